import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
import WaymarkSimulator
@testable import WaymarkSync
import WaymarkSimulatedPhone

/// `SimulatedPhone`'s own contract, with a transport that acknowledges every batch and counts it:
/// it uploads only while the app runs, starts a process per launch the simulation delivers, sends
/// nothing over the network while the scenario is offline, and ends with every recorded point sent
/// exactly once.
@Suite("SimulatedPhone: the app, its store and its uploads on virtual time")
struct SimulatedPhoneTests {
    /// Acknowledges every batch and, like a server, stores the points its body carries (once per idempotency
    /// key): the evidence the tests compare with what the app recorded, independent of the uploader's own
    /// bookkeeping (`Send.points` is taken from the queue's backlog record, not from the body).
    struct AcknowledgingTransport: UploadTransport {
        actor Seen {
            /// How often each idempotency key was sent.
            var keys: [String: Int] = [:]
            /// The points stored from the bodies, a replayed key's points not again.
            var stored: [IngestLedger.Point] = []
            /// Bodies that were not a native batch.
            var unreadable = 0
            func add(_ key: String, body: [UInt8]) {
                keys[key, default: 0] += 1
                guard keys[key] == 1 else { return }
                guard let json = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
                      let locations = json["locations"] as? [[String: Any]] else {
                    unreadable += 1
                    return
                }
                for feature in locations where (feature["properties"] as? [String: Any])?["waymark_kind"] as? String != "gap" {
                    guard let coordinates = (feature["geometry"] as? [String: Any])?["coordinates"] as? [Double],
                          coordinates.count >= 2,
                          let timestamp = (feature["properties"] as? [String: Any])?["timestamp"] as? String else {
                        unreadable += 1
                        continue
                    }
                    stored.append(IngestLedger.Point(timestamp: timestamp, longitude: coordinates[0], latitude: coordinates[1]))
                }
            }
        }
        let seen = Seen()
        func send(_ request: UploadRequest) async -> UploadResponse {
            await seen.add(request.key, body: request.body)
            return .status(200, body: Array(#"{"result":"ok","rejected":[]}"#.utf8))
        }

        /// The points the app recorded, as the server would store them.
        static func expected(_ recorded: [Fix]) -> [IngestLedger.Point: Int] {
            Dictionary(recorded.map {
                (IngestLedger.Point(timestamp: NativeBatchFormat.timestamp($0.timestamp), longitude: $0.coordinate.longitude,
                                    latitude: $0.coordinate.latitude), 1)
            }, uniquingKeysWith: +)
        }

        /// The points stored, each with how often it was stored.
        func stored() async -> [IngestLedger.Point: Int] {
            Dictionary(await seen.stored.map { ($0, 1) }, uniquingKeysWith: +)
        }
    }

    @Test("uploads only while the app runs, one process per launch, and every recorded point sent once",
          arguments: UInt64(1)...12)
    func contract(seed: UInt64) async throws {
        let path = TestFixes.temporaryStorePath()
        defer { TestFixes.removeStore(at: path) }
        var rng = SplitMix64(seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ 5)
        let (scenario, _) = SimulatedRideRun.commute(seed: seed, rng: &rng)
        let sim = try Simulation(scenario: scenario, seed: seed,
                                 app: EngineApp(script: EngineApp.Script(startsRide: true, rideID: "ride-\(seed)")))
        let transport = AcknowledgingTransport()
        var phone = try SimulatedPhone(simulation: sim, storePath: path, transport: transport,
                                       credentials: DeviceCredentials(token: "tok"), deviceID: "sim-\(seed)",
                                       uploads: UploadQueue.Configuration(maxBatchPoints: 60, maxBatchAge: 60), seed: seed)
        var t = 0.0
        while t < sim.endTime {
            let before = (state: phone.simulation.appState, sends: phone.sends.count, events: phone.simulation.received.count)
            t = min(t + 15, sim.endTime)
            try await phone.advance(to: t)
            // An app asleep or dead for the whole step, which received no event in it (a suspended app
            // woken for a few seconds receives events), sent nothing in it.
            let asleep: Set<AppState> = [.suspended, .notRunning]
            if asleep.contains(before.state), asleep.contains(phone.simulation.appState),
               phone.simulation.received.count == before.events {
                #expect(phone.sends.count == before.sends, "seed \(seed): sent at \(t) s while the app was not running")
            }
        }
        let launches = phone.simulation.received.filter { if case .launched = $0.event { return true }; return false }.count
        #expect(phone.launches == launches)
        try await phone.finishOnline()
        #expect(phone.launches == launches, "finishOnline's process is not a launch")
        #expect(try phone.store.backlog().isEmpty)
        #expect(!phone.recorded.isEmpty)
        // Every recorded point went out in an acknowledged batch, each batch once (the transport never failed).
        let acknowledged = phone.sends.filter(\.response.isAcknowledgement)
        #expect(acknowledged.reduce(0) { $0 + $1.points } == phone.recorded.count)
        // What the server stored from the bodies is exactly what the app recorded, each point once.
        let stored = await transport.stored()
        #expect(stored == AcknowledgingTransport.expected(phone.recorded),
                "seed \(seed): stored \(stored.values.reduce(0, +)), recorded \(phone.recorded.count)")
        #expect(await transport.seen.unreadable == 0)
        let keys = await transport.seen.keys
        #expect(keys.values.allSatisfy { $0 == 1 })
        #expect(keys.count == acknowledged.count)
        #expect(phone.requests == acknowledged.count)
        // A send that found the radio off never reached the transport, and happened inside an offline window.
        for send in phone.sends where !send.response.isAcknowledgement {
            #expect(send.response == .connectionFailed("offline"))
            #expect(phone.isOffline(at: send.at.timeIntervalSince(sim.epoch)), "seed \(seed): \(send)")
        }
        #expect(zip(phone.sends, phone.sends.dropFirst()).allSatisfy { $0.at <= $1.at })
    }

    /// A short ride, then a park long enough for iOS to suspend the app (the hour-long watch ends), then
    /// the ride back, which wakes it. With a two-hour batch age, the ride's points are still waiting
    /// when the app is suspended, and their deadline passes while it sleeps.
    static func parkedAsleep() -> Scenario {
        let start = Coordinate(uncheckedLatitude: 46.05, longitude: 14.5)
        let east = Coordinate(uncheckedLatitude: 46.05, longitude: 14.5155)
        let legs: [RouteLeg] = [.stop(10), .travel([east], speed: 5.5, activity: .cycling), .stop(9_000),
                                .travel([start], speed: 5.5, activity: .cycling)]
        return Scenario(
            name: "parked asleep", seed: 7, startTime: SimulatedRideRun.epoch, durationSeconds: 10 + 2 * 1_200 / 5.5 + 9_000 + 120,
            route: ScenarioRoute(start: start, legs: legs),
            device: DeviceSetup(install: .existing, location: .authorizedAlways, notifications: .granted, motion: .granted,
                                backgroundModes: [.location]),
            user: UserBehaviour(actions: [UserAction(at: 0, .open), UserAction(at: 30, .background)]),
            motion: MotionSetup(mode: .derived))
    }

    @Test("a suspended app whose upload deadline has passed sends nothing until it runs again")
    func suspendedAppWaits() async throws {
        let path = TestFixes.temporaryStorePath()
        defer { TestFixes.removeStore(at: path) }
        let sim = try Simulation(scenario: Self.parkedAsleep(), seed: 7,
                                 app: EngineApp(script: EngineApp.Script(startsRide: true, rideID: "ride")))
        let transport = AcknowledgingTransport()
        var phone = try SimulatedPhone(simulation: sim, storePath: path, transport: transport,
                                       credentials: DeviceCredentials(token: "tok"),
                                       uploads: UploadQueue.Configuration(maxBatchPoints: 500, maxBatchAge: 7_200))
        var t = 0.0, asleepPastDeadline: Double?
        while t < sim.endTime {
            t = min(t + 15, sim.endTime)
            let sent = phone.sends.count
            try await phone.advance(to: t)
            if phone.simulation.appState == .suspended, try !phone.store.backlog().isEmpty,
               let due = phone.uploader?.queue.nextDeadline, due <= sim.date(t) {
                asleepPastDeadline = t
                #expect(phone.sends.count == sent, "sent at \(t) s while suspended")
            }
        }
        let slept = try #require(asleepPastDeadline, "the scenario must leave points due while the app sleeps")
        // The waiting points went out once something woke the app, not at the day's end.
        #expect(phone.sends.contains { $0.at > sim.date(slept) && $0.response.isAcknowledgement })
        try await phone.finishOnline()
        #expect(try phone.store.backlog().isEmpty)
        #expect(phone.sends.filter(\.response.isAcknowledgement).reduce(0) { $0 + $1.points } == phone.recorded.count)
        #expect(await transport.stored() == AcknowledgingTransport.expected(phone.recorded))
        #expect(await transport.seen.unreadable == 0)
    }
}
