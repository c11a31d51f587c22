import Foundation
import GRDB
import Testing
import WaymarkEngine
import WaymarkGeo
import WaymarkSimulator
import WaymarkSimulatedPhone
@testable import WaymarkSync

/// Retention on the device (issue #32 item 6): limits by age, count and bytes, the oldest unsent
/// points dropped first, a gap marker for what was dropped, batches already formed never touched.
@Suite("RideStore retention limits")
struct RetentionTests {
    static let t0 = Date(timeIntervalSince1970: 1_767_254_400)
    static func at(_ s: Double) -> Date { t0.addingTimeInterval(s) }
    static func fixes(_ range: ClosedRange<Int>) -> [Fix] {
        range.map { s in
            Fix(coordinate: Geodesy.destination(from: Coordinate(uncheckedLatitude: 46.05, longitude: 14.5), bearing: 90, distance: Double(s) * 5),
                horizontalAccuracy: 5, speed: 5, timestamp: at(Double(s)), source: .gnss)
        }
    }

    /// A store with one ride of 100 fixes (0…99 s) whose first 20 are in a pending batch.
    static func store() throws -> (RideStore, RideID, String) {
        let store = try RideStore.inMemory()
        let ride = try store.startRide(at: at(0)).id
        try store.append(fixes(0...99), to: ride)
        let batch = try #require(try store.formBatch(maxPoints: 20, maxBytes: 1 << 20, at: at(100), key: "b1"))
        #expect(batch.points == 20)
        return (store, ride, "b1")
    }

    static func times(_ store: RideStore) throws -> [Double] {
        try store.read { db in try Int64.fetchAll(db, sql: "SELECT timestamp_ms FROM fixes ORDER BY timestamp_ms") }
            .map { (Double($0) / 1000 - t0.timeIntervalSince1970).rounded() }
    }

    @Test("count: at the limit nothing goes; one over drops the oldest: the pending batch, whole, never cut")
    func count() throws {
        let (store, ride, key) = try Self.store()
        #expect(try store.enforceRetention(RetentionLimits(maxAge: nil, maxPoints: 100, maxBytes: nil), now: Self.at(100)).droppedPoints == 0)
        let one = try store.enforceRetention(RetentionLimits(maxAge: nil, maxPoints: 99, maxBytes: nil), now: Self.at(100))
        #expect(one.droppedPoints == 20)                       // the oldest point is in the batch: the batch goes whole
        #expect(try store.batch(key) == nil)
        #expect(try Self.times(store) == Array(20...99).map(Double.init))
        let report = try store.enforceRetention(RetentionLimits(maxAge: nil, maxPoints: 50, maxBytes: nil), now: Self.at(100))
        #expect(report.droppedPoints == 30)                    // then unbatched points one by one
        #expect(try Self.times(store) == Array(50...99).map(Double.init))
        #expect(report.gaps == [GapRecord(ride: ride, start: Self.at(20), end: Self.at(49), reason: RideStore.retentionGapReason)])
        #expect(try store.gaps(of: ride).filter { $0.reason == RideStore.retentionGapReason }.count == 2)
    }

    @Test("a quarantined batch is kept: the app decides about it")
    func quarantinedKept() throws {
        let (store, _, key) = try Self.store()
        try store.quarantine(batch: key, reason: "422")
        let report = try store.enforceRetention(RetentionLimits(maxAge: nil, maxPoints: 50, maxBytes: nil), now: Self.at(100))
        #expect(report.droppedPoints == 50)                    // 20…69; the quarantined 0…19 stay
        #expect(try Self.times(store) == Array(0...19).map(Double.init) + Array(70...99).map(Double.init))
        #expect(try store.batch(key)?.fixes.count == 20)
    }

    @Test("age: a point exactly at the limit stays, one a millisecond older goes")
    func age() throws {
        let (store, _, key) = try Self.store()
        let report = try store.enforceRetention(RetentionLimits(maxAge: 60, maxPoints: nil, maxBytes: nil), now: Self.at(100))
        #expect(report.droppedPoints == 40)          // the batch (0…19) and 20…39; 40 is exactly 60 s old
        #expect(try Self.times(store).first == 40)
        #expect(try store.batch(key) == nil)
        #expect(try store.enforceRetention(RetentionLimits(maxAge: 60, maxPoints: nil, maxBytes: nil), now: Self.at(100)).droppedPoints == 0)
        #expect(try store.enforceRetention(RetentionLimits(maxAge: 60, maxPoints: nil, maxBytes: nil), now: Self.at(100.001)).droppedPoints == 1)
    }

    @Test("bytes: the encoded size counts; a byte over drops the oldest unsent point")
    func bytes() throws {
        let (store, _, _) = try Self.store()
        try store.discard(batch: "b1")
        let total = try store.read { db in try Int.fetchOne(db, sql: "SELECT SUM(payload_bytes) FROM fixes") ?? 0 }
        #expect(try store.enforceRetention(RetentionLimits(maxAge: nil, maxPoints: nil, maxBytes: total), now: Self.at(100)).droppedPoints == 0)
        #expect(try store.enforceRetention(RetentionLimits(maxAge: nil, maxPoints: nil, maxBytes: total - 1), now: Self.at(100)).droppedPoints == 1)
    }

    @Test("the gap marker goes to the server with the next batch; several rides get one each, oldest first")
    func gapUploadedAndPerRide() throws {
        let store = try RideStore.inMemory()
        let a = try store.startRide(at: Self.at(0)).id
        let b = try store.startRide(at: Self.at(1_000)).id
        try store.append(Self.fixes(0...9), to: a)
        try store.append(Self.fixes(1_000...1_009), to: b)
        let report = try store.enforceRetention(RetentionLimits(maxAge: nil, maxPoints: 5, maxBytes: nil), now: Self.at(2_000))
        #expect(report.droppedPoints == 15)
        #expect(report.gaps.map(\.ride) == [a, b])
        #expect(report.gaps.map(\.start) == [Self.at(0), Self.at(1_000)])
        #expect(report.gaps.map(\.end) == [Self.at(9), Self.at(1_004)])
        try store.formBatch(maxPoints: 100, maxBytes: 1 << 20, at: Self.at(2_000), key: "next")
        let batch = try #require(try store.batch("next"))
        #expect(batch.fixes.count == 5)
        #expect(batch.gaps.map(\.reason) == [RideStore.retentionGapReason, RideStore.retentionGapReason])
        let body = NativeBatchFormat(deviceID: "d").body(for: batch)
        #expect(try NativeBatchFormat.decode(body).gaps.map(\.reason) == [RideStore.retentionGapReason, RideStore.retentionGapReason])
    }

    @Test("the recorder enforces the limits when made, counting ages back from the newest fix")
    func recorderEnforces() async throws {
        let (store, _, _) = try Self.store()
        _ = try RideRecorder(store: store, retention: RetentionLimits(maxAge: 50, maxPoints: nil, maxBytes: nil))
        // Newest fix at 99 s: points before 49 s go (the batch 0…19 whole, then 20…48).
        #expect(try Self.times(store).first == 49)
        _ = try RideRecorder(store: store, retention: .unlimited)
        #expect(try store.fixCount() == 51)
    }
}

/// Retention on a simulated phone whose server never answers during the ride.
@Suite("SimulatedPhone: retention while the server is out of reach")
struct SimulatedPhoneRetentionTests {
    @Test("offline for the whole ride with a 20-point limit: the newest 20 reach the server, with a droppedOnDevice gap marker")
    func offlineRide() async throws {
        let path = TestFixes.temporaryStorePath()
        defer { TestFixes.removeStore(at: path) }
        let route = ScenarioRoute(start: Coordinate(uncheckedLatitude: 46.05, longitude: 14.5),
                                  legs: [.travel([Coordinate(uncheckedLatitude: 46.05, longitude: 14.52)], speed: 5.5, activity: .cycling)])
        let scenario = Scenario(name: "retention", seed: 1, startTime: RetentionTests.t0, durationSeconds: 600, route: route,
                                device: DeviceSetup(install: .existing, location: .authorizedAlways, notifications: .granted, motion: .granted,
                                                    backgroundModes: [.location]),
                                user: UserBehaviour(actions: [UserAction(at: 0, .open)]),
                                world: World(network: World.Network(offline: [TimeWindow(from: 0, to: 600)])))
        let sim = try Simulation(scenario: scenario, seed: 1, app: EngineApp(script: EngineApp.Script(startsRide: true, rideID: "r")))
        let transport = SimulatedPhoneTests.AcknowledgingTransport()
        var phone = try SimulatedPhone(simulation: sim, storePath: path, transport: transport, credentials: DeviceCredentials(token: "t"),
                                       retention: RetentionLimits(maxAge: nil, maxPoints: 20, maxBytes: nil))
        var t = 0.0
        while t < sim.endTime {
            t = min(t + 10, sim.endTime)
            try await phone.advance(to: t)
        }
        try await phone.finishOnline()
        #expect(phone.recorded.count > 30)   // GNSS duty cycling rests the receiver on the straight road
        let stored = await transport.stored()
        let dropped = phone.retentionDrops.reduce(0) { $0 + $1.droppedPoints }
        // Oldest first; a batch the queue formed while offline goes whole, so a few more than the excess may go.
        #expect(dropped >= phone.recorded.count - 20 && dropped <= phone.recorded.count - 20 + UploadQueue.Configuration().maxBatchPoints)
        let newest = SimulatedPhoneTests.AcknowledgingTransport.expected(Array(phone.recorded.suffix(phone.recorded.count - dropped)))
        #expect(stored == newest, "the newest points, each once")
        let gaps = try phone.store.gaps(of: phone.rideID).filter { $0.reason == RideStore.retentionGapReason }
        #expect(!gaps.isEmpty && gaps.first?.start == phone.recorded.first?.timestamp)
        #expect(try phone.store.gapsAwaitingUpload().isEmpty, "the markers went to the server")
    }
}
