import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
import WaymarkSimulator
import WaymarkSync
import WaymarkTransport
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
        await app.setServer(ServerSettings(url: "http://127.0.0.1:8080", token: "wmd_test"))
        _ = try await phone.whileAdvancing(limit: 60) { await app.ride.start() }
    }

    /// The fixes a request carried, read with the format's decoder.
    static func fixes(in request: UploadRequest) throws -> Int {
        try NativeBatchFormat.decode(request.body).fixes.count
    }

    @Test("records in the background with the screen off, auto-pauses at the stop, and the server gets every fix once")
    func recordsInTheBackgroundAndUploads() async throws {
        let phone = try SimulatedPhone(scenario: Self.ride())
        try await Self.startRide(phone)
        let ride = phone.app.ride
        // Automatic tracking is on in the example app; the rider's tap wins and the tab says so.
        #expect(ride.state.automatic == .riding)
        await phone.advance(until: { ride.state.ride == .autoPaused }, limit: 600)
        #expect(ride.state.ride == .autoPaused)
        try await phone.whileAdvancing(limit: 120) { await ride.uploadsSettled() }

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

        // Uploads: the pause flushed everything; every recorded fix stored once, nothing waits.
        #expect(await phone.server.storedFixes.count == ride.state.recordedFixes)
        #expect(await phone.server.duplicates == 0)
        #expect(ride.state.waitingPoints == 0)
        #expect(try phone.rides.fixCount() == 0, "acknowledged points leave the phone")
        #expect(await phone.sim.stats.promptCollisions == 0)
    }

    @Test("a failing server loses nothing: a batch goes again with the same key, a 413 splits it",
          arguments: LocationBackend.allCases)
    func failuresKeepTheRecords(backend: LocationBackend) async throws {
        let phone = try SimulatedPhone(scenario: Self.ride(), backend: backend)
        await phone.server.fail(next: [.connectionFailed("offline"), .status(503, body: []), .status(413, body: [])])
        try await Self.startRide(phone)
        let ride = phone.app.ride
        await phone.advance(until: { ride.state.ride == .autoPaused }, limit: 600)
        // Retries wait out the backoff on the device's clock.
        try await phone.whileAdvancing(limit: 900) { await ride.uploadsSettled() }

        let received = await phone.server.received
        #expect(received.count > 3)
        #expect(received[0].key == received[1].key && received[1].key == received[2].key,
                "the failed batch was sent again as it was")
        #expect(received[0].body == received[2].body)
        #expect(try Self.fixes(in: received[3]) < Self.fixes(in: received[2]), "after a 413 the batch is smaller")
        #expect(await phone.server.storedFixes.count == ride.state.recordedFixes)
        #expect(await phone.server.duplicates == 0)
        #expect(ride.state.waitingPoints == 0 && ride.state.uploadFailures == 0)
    }

    @Test("without a server, nothing leaves the phone and the records wait in the ride store")
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
        #expect(app.ride.state.recordedFixes > 10)
        #expect(try phone.rides.fixCount() == app.ride.state.recordedFixes)
        #expect(app.ride.state.waitingPoints == app.ride.state.recordedFixes)
        let rideID = try #require(app.ride.state.rideID)
        #expect(try phone.rides.ride(rideID)?.state == "ended")
        #expect(try phone.rides.lastCheckpoint() == nil, "an ended ride is not resumed")

        // The user sets the server: the waiting records go out, and its token is kept apart.
        await app.setServer(ServerSettings(url: "http://127.0.0.1:8080", token: "wmd_test"))
        #expect(phone.tokens.token(for: URL(string: "http://127.0.0.1:8080")!) == "wmd_test")
        #expect(phone.store.state.serverURL == URL(string: "http://127.0.0.1:8080"))
        try await phone.whileAdvancing(limit: 120) { await app.ride.uploadsSettled() }
        #expect(await phone.server.storedFixes.count == app.ride.state.recordedFixes)
        #expect(try phone.rides.fixCount() == 0)
    }
}

/// What the phone stores is enough for a new process to pick the ride and its uploads up.
@Suite("Ride tab across a kill and a relaunch")
@MainActor
struct RideRelaunchTests {
    /// The app relaunched by iOS 30 s after the first process died, on the same phone: its stored
    /// state, ride store file, Keychain and server. (A new simulated device continues the clock.)
    static func relaunch(after first: SimulatedPhone, path: String) async throws -> SimulatedPhone {
        var scenario = Scenarios.existing(.authorizedAlways, motion: .granted,
                                          route: Scenarios.eastbound(speed: 6, seconds: 200), duration: 200)
        let sim = await first.sim
        scenario.startTime = sim.currentDate.addingTimeInterval(30)
        return try SimulatedPhone(scenario: scenario, stored: first.store.state, rides: RideStore(path: path),
                                  tokens: first.tokens, server: first.server)
    }

    @Test("killed in the middle of an upload: the relaunched app resumes the ride and the upload; no fix lost or stored twice")
    func killDuringUpload() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-example-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let first = try SimulatedPhone(scenario: RideTests.ride(duration: 400), rides: RideStore(path: path))
        try await RideTests.startRide(first)
        await first.advance(seconds: 90)
        let ride = first.app.ride
        let rideID = try #require(ride.state.rideID)

        // The server commits the next batch but its answer never arrives: the app is killed meanwhile.
        await first.server.loseAnswers(next: 1)
        ride.uploadNow()
        let server = first.server
        #expect(await first.advance(until: { await server.hanging == 1 }, limit: 30), "an upload is in flight")
        let lostKey = try #require(await server.received.last?.key)
        await first.kill()
        for _ in 0..<100 { await Task.yield() }
        let recordedBefore = ride.state.recordedFixes
        #expect(recordedBefore > 10)
        let committedBefore = await server.storedFixes.count
        #expect(committedBefore > 0, "the server committed the batch whose answer was lost")
        let leftBehind = try RideStore(path: path).backlog()
        #expect(leftBehind.pending.map(\.key).contains(lostKey), "the phone still holds the batch, under the same key")

        // iOS relaunches the app; everything is rebuilt from what the first process stored.
        let second = try await Self.relaunch(after: first, path: path)
        #expect(second.app.state.server?.deviceToken == "wmd_test", "the token survives in the token store")
        await second.launch()
        await second.advance(seconds: 60)
        let resumed = second.app.ride
        #expect(resumed.state.ride == .moving)
        #expect(resumed.state.rideID == rideID)
        #expect(resumed.state.recordedFixes > 5)
        await resumed.stop()
        try await second.whileAdvancing(limit: 300) { await resumed.uploadsSettled() }

        #expect(await server.received.filter { $0.key == lostKey }.count == 2, "the lost batch was resent with its key")
        #expect(await server.storedFixes.count == recordedBefore + resumed.state.recordedFixes, "no recorded fix lost")
        #expect(await server.duplicates == 0, "none stored twice")
        #expect(await server.storedGaps.contains { $0.rideID == rideID }, "the span between the processes is a gap marker")
        #expect(try second.rides.fixCount() == 0)
        #expect(resumed.state.waitingPoints == 0)
    }
}
