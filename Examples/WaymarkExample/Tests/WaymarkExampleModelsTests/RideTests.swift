import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
import WaymarkSimulator
@testable import WaymarkExampleModels

/// The Ride tab: records in the background with the battery-aware policy and uploads every fix once.
@Suite("Ride tab")
@MainActor
struct RideTests {
    /// Existing install (when in use), the user starts a ride, goes to the home screen at 60 s,
    /// rides east at 6 m/s for 5 minutes, then stands still for 4 minutes.
    static func ride(duration: Double = 700) -> Scenario {
        Scenarios.existing(.authorizedWhenInUse, route: Scenarios.eastbound(speed: 6, seconds: 300, after: 10),
                           actions: [UserAction(at: 60, .background)], duration: duration)
    }

    /// Starts the phone, sets the server and starts a ride at once.
    static func startRide(_ phone: SimulatedPhone) async throws {
        await phone.launch()
        let app = phone.app
        app.setServer(ServerSettings(url: "http://127.0.0.1:8080", token: "wmd_test"))
        _ = try await phone.whileAdvancing(limit: 60) { await app.ride.start() }
    }

    @Test("records in the background with the screen off, auto-pauses at the stop, and the server gets every fix once")
    func recordsInTheBackgroundAndUploads() async throws {
        let phone = try SimulatedPhone(scenario: Self.ride())
        try await Self.startRide(phone)
        let ride = phone.app.ride
        await phone.advance(until: { ride.state.ride == .autoPaused }, limit: 600)
        #expect(ride.state.ride == .autoPaused)
        await ride.uploadsSettled()

        let sim = await phone.sim
        #expect(sim.appState != .foreground)
        let background = sim.epoch.addingTimeInterval(60)
        let fixes = sim.received.flatMap { timed -> [Fix] in
            if case .locations(let f) = timed.event { f } else { [] }
        }
        // Fixes kept coming after the app left the foreground at 60 s, and the ride recorded them
        // to the end of the road: never 30 s without a recorded fix while moving (GNSS duty
        // cycling rests the receiver on this straight road, so not every second is recorded).
        #expect(fixes.filter { $0.timestamp > background }.count > 60)
        let recorded = await phone.server.storedFixes.sorted()
        let moving = recorded.filter { $0 > sim.epoch.addingTimeInterval(20) && $0 < sim.epoch.addingTimeInterval(300) }
        #expect(moving.filter { $0 > background }.count > 20)
        #expect(zip(moving, moving.dropFirst()).allSatisfy { $1.timeIntervalSince($0) < 30 })
        #expect(try #require(recorded.last).timeIntervalSince(sim.epoch) > 300)
        #expect(abs(ride.state.statistics.distanceMeters - 1_800) < 100, "\(ride.state.statistics.distanceMeters)")

        // Background updates were asked for (the Info.plist has the location mode) ...
        let starts = sim.log.entries.compactMap { entry -> LocationConfiguration? in
            if case .startUpdatingLocation(let c)? = entry.command { c } else { nil }
        }
        #expect(starts.contains { $0.allowsBackgroundLocationUpdates && $0.desiredAccuracy == .best })
        // ... and the battery-aware policy let GNSS go at the stop: a cell-level setting follows.
        #expect(starts.contains { !RideAccuracyPolicy.Setting(accuracy: $0.desiredAccuracy).usesGNSS })

        // Uploads: the pause flushed everything; every recorded fix stored once, nothing pending.
        let stored = await phone.server.storedFixes
        #expect(stored.count == ride.state.recordedFixes)
        #expect(await phone.server.duplicates == 0)
        #expect(ride.state.uploads.pending.isEmpty)
        #expect(ride.state.uploads.acknowledgedFixes == ride.state.recordedFixes)
        #expect(await phone.server.received.count >= ride.state.recordedFixes / 100)
        #expect(await phone.sim.stats.promptCollisions == 0)
    }

    @Test("a failing server loses nothing: batches stay on the phone and go again with the same key",
          arguments: LocationBackend.allCases)
    func failuresKeepTheRecords(backend: LocationBackend) async throws {
        let phone = try SimulatedPhone(scenario: Self.ride(), backend: backend)
        await phone.server.fail(next: [.failed("offline"), .failed("The server answered 503; will try again"), .tooLarge])
        try await Self.startRide(phone)
        let ride = phone.app.ride
        await phone.advance(until: { ride.state.ride == .autoPaused }, limit: 600)
        await ride.uploadsSettled()
        ride.uploadNow()
        await ride.uploadsSettled()

        let received = await phone.server.received
        #expect(received.count > 3)
        #expect(received[0].idempotencyKey == received[1].idempotencyKey, "the failed batch was sent again as it was")
        #expect(received[3].records.count < received[2].records.count, "after a 413 the batch is smaller")
        #expect(await phone.server.storedFixes.count == ride.state.recordedFixes)
        #expect(await phone.server.duplicates == 0)
        #expect(ride.state.uploads.pending.isEmpty)
        #expect(ride.state.uploads.lastProblem == nil)
    }

    @Test("without a server, nothing leaves the phone and the records wait in the stored state")
    func noServerKeepsEverything() async throws {
        let phone = try SimulatedPhone(scenario: Self.ride(duration: 200))
        await phone.launch()
        let app = phone.app
        _ = try await phone.whileAdvancing(limit: 60) { await app.ride.start() }
        await phone.advance(seconds: 120)
        await app.ride.stop()
        await phone.advance(seconds: 2)
        #expect(app.ride.state.ride == .ended)
        #expect(await phone.server.received.isEmpty)
        #expect(app.ride.state.uploads.pendingFixes == app.ride.state.recordedFixes)
        app.save()
        #expect(phone.store.state.uploads.pendingFixes == app.ride.state.recordedFixes)
        #expect(phone.store.state.ride?.state == .ended)

        // The user sets the server: the waiting records go out.
        app.setServer(ServerSettings(url: "http://127.0.0.1:8080", token: "wmd_test"))
        app.ride.uploadNow()
        await app.ride.uploadsSettled()
        #expect(await phone.server.storedFixes.count == app.ride.state.recordedFixes)
    }
}

/// What the app stores is enough for a new process to pick the ride up.
@Suite("Ride tab across a relaunch")
@MainActor
struct RideRelaunchTests {
    @Test("a new process made from the stored state resumes the ride under the same id and sends what was left")
    func resumesFromTheStoredState() async throws {
        let first = try SimulatedPhone(scenario: RideTests.ride(duration: 200))
        await first.launch()
        let app = first.app
        _ = try await first.whileAdvancing(limit: 60) { await app.ride.start() }
        await first.advance(seconds: 90)
        app.save()   // what the app writes when it leaves the foreground
        let stored = first.store.state
        let rideID = try #require(app.ride.state.rideID)
        #expect(stored.ride?.rideID == rideID)
        #expect(stored.ride?.state.isActive == true)
        #expect(stored.uploads.pendingFixes > 0)

        // The process is gone; iOS relaunches the app, which builds everything from the stored state.
        let second = try SimulatedPhone(scenario: Scenarios.existing(.authorizedAlways, motion: .granted,
                                                                     route: Scenarios.eastbound(speed: 6, seconds: 200),
                                                                     duration: 200),
                                        stored: stored)
        let ride = second.app.ride
        #expect(ride.state.uploads.pendingFixes == stored.uploads.pendingFixes)
        await second.launch()
        second.app.setServer(ServerSettings(url: "http://127.0.0.1:8080", token: "wmd_test"))
        await second.advance(seconds: 60)
        #expect(ride.state.ride == .moving)
        #expect(ride.state.rideID == rideID)
        #expect(ride.state.recordedFixes > 5)
        ride.uploadNow()
        await ride.uploadsSettled()
        let sent = await second.server.received.flatMap(\.records)
        #expect(sent.allSatisfy { $0.rideID == rideID })
        #expect(sent.filter(\.isFix).count == stored.uploads.pendingFixes + ride.state.recordedFixes)
        #expect(sent.contains { !$0.isFix }, "the span between the processes is a gap marker")
    }
}
