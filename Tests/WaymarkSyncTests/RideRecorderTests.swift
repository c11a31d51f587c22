import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
import WaymarkSimulator
@testable import WaymarkSync

@Suite("RideRecorder: what the engine records goes into the store", .timeLimit(.minutes(5)))
struct RideRecorderTests {
    static func snapshot(_ id: RideID, _ state: RideState, last: Fix? = nil) -> RideSnapshot {
        RideSnapshot(rideID: id, state: state, startedAt: TestFixes.start, lastRecorded: last)
    }

    @Test("a checkpoint makes the ride; its fixes and gaps follow it; the latest checkpoint restores it")
    func entriesInOrder() async throws {
        let store = try RideStore.inMemory()
        let recorder = try RideRecorder(store: store)
        let fixes = TestFixes.ride(count: 5)
        #expect(try await recorder.record(.checkpoint(Self.snapshot("morning", .moving))) == false)
        for fix in fixes { #expect(try await recorder.record(.fix(fix))) }
        let gap = GapMarker(start: fixes[4].timestamp, end: fixes[4].timestamp.addingTimeInterval(90), reason: .terminated)
        #expect(try await recorder.record(.gap(gap)))
        let last = Self.snapshot("morning", .autoPaused, last: fixes[4])
        try await recorder.record(.checkpoint(last))

        #expect(try store.fixes(of: "morning") == fixes)
        #expect(try store.gaps(of: "morning") == [GapRecord(ride: "morning", start: gap.start, end: gap.end, reason: "terminated")])
        #expect(try store.ride("morning")?.state == "autoPaused")
        #expect(try store.lastCheckpoint() == last)
        #expect(try store.backlog().unbatchedPoints == 5)
        // The same fix again (a replayed delivery) adds nothing.
        #expect(try await recorder.record(.fix(fixes[0])) == false)
    }

    @Test("an ended ride is closed and no longer restored; the next ride is the current one")
    func endedRide() async throws {
        let store = try RideStore.inMemory()
        let recorder = try RideRecorder(store: store)
        let fixes = TestFixes.ride(count: 3)
        try await recorder.record(.checkpoint(Self.snapshot("r1", .moving)))
        for fix in fixes { try await recorder.record(.fix(fix)) }
        try await recorder.record(.checkpoint(Self.snapshot("r1", .ended, last: fixes[2])))
        #expect(try store.lastCheckpoint() == nil)
        #expect(try store.ride("r1")?.ended == fixes[2].timestamp)

        let later = TestFixes.ride(count: 2, from: TestFixes.start.addingTimeInterval(3_600))
        try await recorder.record(.checkpoint(RideSnapshot(rideID: "r2", state: .moving, startedAt: later[0].timestamp)))
        for fix in later { try await recorder.record(.fix(fix)) }
        #expect(try store.fixes(of: "r2") == later)
        #expect(try store.fixes(of: "r1") == fixes)
        #expect(await recorder.currentRide == "r2")
    }

    @Test("a fix before any checkpoint is refused, naming what to do")
    func fixBeforeRide() async throws {
        let recorder = try RideRecorder(store: try RideStore.inMemory())
        await #expect { try await recorder.record(.fix(TestFixes.ride(count: 1)[0])) } throws: { error in
            guard let error = error as? SyncError, error.code == .notFound else { return false }
            return error.message.contains("engine.ride.start")
        }
    }

    @Test("after a relaunch, a new recorder over the same file continues the ride under way")
    func relaunchContinues() async throws {
        let path = TestFixes.temporaryStorePath()
        defer { TestFixes.removeStore(at: path) }
        let fixes = TestFixes.ride(count: 6)
        do {
            let recorder = try RideRecorder(store: try RideStore(path: path))
            try await recorder.record(.checkpoint(Self.snapshot("commute", .moving)))
            for fix in fixes[..<3] { try await recorder.record(.fix(fix)) }
            try await recorder.record(.checkpoint(Self.snapshot("commute", .moving, last: fixes[2])))
        }
        let store = try RideStore(path: path)
        let restored = try #require(try store.lastCheckpoint())
        #expect(restored.rideID == "commute" && restored.lastRecorded == fixes[2])
        let recorder = try RideRecorder(store: store)
        #expect(await recorder.currentRide == "commute")
        for fix in fixes[3...] { try await recorder.record(.fix(fix)) }
        #expect(try store.fixes(of: "commute") == fixes)
    }

    @Test("the real engine over the simulator: every recorded fix is in the store, in order, and the upload is told",
          arguments: LocationBackend.allCases)
    func engineToStore(backend: LocationBackend) async throws {
        let origin = Coordinate(uncheckedLatitude: 46.05, longitude: 14.50)
        let route = ScenarioRoute(start: origin, legs: [
            .travel([Geodesy.destination(from: origin, bearing: 90, distance: 600)], speed: 5, activity: nil),
        ])
        let scenario = Scenario(durationSeconds: 180, route: route,
                                device: DeviceSetup(install: .existing, location: .authorizedAlways, motion: .granted,
                                                    backgroundModes: [.location]),
                                user: UserBehaviour(actions: [UserAction(at: 0, .open)]))
        let device = try SimulatedDevice(scenario: scenario, seed: 11)
        let engine = Engine(device: device, clock: device.clock, configuration: .init(backend: backend))
        let store = try RideStore.inMemory()
        let recorder = try RideRecorder(store: store)
        let entries = await engine.ride.recorded.subscribe()
        let witness = await engine.ride.recorded.subscribe()
        let told = Counter()
        let recording = Task { await recorder.record(entries) { await told.increment() } }
        let watching = Task {
            var fixes: [Fix] = []
            for await entry in witness { if case .fix(let fix) = entry { fixes.append(fix) } }
            return fixes
        }
        let run = Task { await engine.run() }
        await device.open()
        await device.settle(engine)
        await engine.ride.start(rideID: "sim-ride")
        for _ in 0..<150 {
            await device.advance(by: 1)
            await device.settle(engine)
        }
        await engine.ride.stop()
        await device.finish()
        await run.value
        await recording.value
        let recorded = await watching.value

        #expect(recorded.count > 10, "the engine recorded \(recorded.count) fixes")
        #expect(try store.fixes(of: "sim-ride") == recorded)
        #expect(await told.value == recorded.count, "the upload driver hears of every new fix")
        #expect(try store.ride("sim-ride")?.state == "ended")
        #expect(try store.lastCheckpoint() == nil)
    }
}

/// Counts calls from concurrent tasks.
actor Counter {
    private(set) var value = 0
    func increment() { value += 1 }

    @Test("an automatic ride that ended hands its resting place to the next process; a manual one does not")
    func restingPlaceSurvivesRelaunch() throws {
        let store = try RideStore.inMemory()
        let place = Coordinate(uncheckedLatitude: 46.05, longitude: 14.5)
        let manual = RideSnapshot(rideID: "m1", state: .ended, startedAt: TestFixes.start, stopAnchor: place)
        try store.saveCheckpoint(manual)
        #expect(try store.lastCheckpoint() == nil, "a ride the rider ended leaves nothing to restore")
        let automatic = RideSnapshot(rideID: "auto-1", state: .ended, startedAt: TestFixes.start.addingTimeInterval(60),
                                     stopAnchor: place, stoppedAt: TestFixes.start.addingTimeInterval(900),
                                     wakeFenceActive: true, startedAutomatically: true)
        try store.saveCheckpoint(automatic)
        #expect(try store.lastCheckpoint() == automatic)
        var placeless = automatic
        placeless.rideID = "auto-2"
        placeless.startedAt = TestFixes.start.addingTimeInterval(120)
        placeless.stopAnchor = nil
        try store.saveCheckpoint(placeless)
        #expect(try store.lastCheckpoint() == nil, "without a resting place there is nothing to watch from")
    }
}
