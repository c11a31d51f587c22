import Foundation
import HTTPTypes
import Testing
import WaymarkEngine
import WaymarkGeo
import WaymarkServerTesting
import WaymarkSimulator
@testable import WaymarkSync
import WaymarkSimulatedPhone

/// A phone whose app installs no fence and takes them from the server (issue #31 item 3): each process
/// runs `FenceSync` over the phone's store, fetches through the scenario's network, and hands changed
/// sets to the engine, which then reports crossings of the server's fences.
@Suite("SimulatedPhone: fences fetched from the server")
struct SimulatedPhoneFenceSyncTests {
    static let start = Coordinate(uncheckedLatitude: 46.05, longitude: 14.5)
    /// 1.2 km east of the start, on the route.
    static let east = Coordinate(uncheckedLatitude: 46.05, longitude: 14.5155)

    /// A 1.2 km ride east from the start at 5.5 m/s after `wait` seconds, then a long stop; the
    /// app opens at 0 and goes to the background at 20; `actions` adds more.
    static func scenario(wait: Double = 10, offline: [TimeWindow] = [], actions: [UserAction] = []) -> Scenario {
        Scenario(name: "fence sync", seed: 1, startTime: FenceSyncTests.t0, durationSeconds: 1_800,
                 route: ScenarioRoute(start: start, legs: [.stop(wait), .travel([east], speed: 5.5, activity: .cycling), .stop(1_800)]),
                 device: DeviceSetup(install: .existing, location: .authorizedAlways, notifications: .granted, motion: .granted,
                                     backgroundModes: [.location]),
                 user: UserBehaviour(actions: ([UserAction(at: 0, .open), UserAction(at: 20, .background)] + actions).sorted { $0.at < $1.at }),
                 world: World(network: World.Network(offline: offline)),
                 motion: MotionSetup(mode: .derived))
    }

    static func postFence(_ server: TestTrackingServer, id: String, at center: Coordinate, name: String) async throws {
        let body = #"{"type":"Feature","id":"\#(id)","geometry":{"type":"Point","coordinates":[\#(center.longitude),\#(center.latitude)]},"properties":{"name":"\#(name)","radiusMeters":150}}"#
        let reply = try await server.send(.post, "/api/fences", token: TestTrackingServer.adminToken, body: body)
        #expect(reply.status == .created)
    }

    /// Runs the phone to the scenario's end in 10 s steps; `between` runs after each step.
    static func run(_ scenario: Scenario, server: TestTrackingServer, transport: FenceSyncTests.RouterFences,
                    between: (Double) async throws -> Void = { _ in }) async throws -> SimulatedPhone {
        let path = TestFixes.temporaryStorePath()
        defer { TestFixes.removeStore(at: path) }
        let sim = try Simulation(scenario: scenario, seed: 1, app: EngineApp(script: EngineApp.Script(startsRide: true, rideID: "r")))
        var phone = try SimulatedPhone(simulation: sim, storePath: path, transport: SimulatedPhoneTests.AcknowledgingTransport(),
                                       credentials: DeviceCredentials(token: server.deviceToken),
                                       fences: FenceSource(transport: transport))
        var t = 0.0
        while t < sim.endTime {
            t = min(t + 10, sim.endTime)
            try await phone.advance(to: t)
            try await between(t)
        }
        return phone
    }

    @Test("the app installs no fence: the launch fetches the server's, and the engine reports crossing them")
    func fetchedAtLaunch() async throws {
        try await TestTrackingServer.run { server in
            try await Self.postFence(server, id: "bakery", at: Self.east, name: "Bakery")
            let transport = FenceSyncTests.RouterFences(server: server)
            let phone = try await Self.run(Self.scenario(), server: server, transport: transport)
            let first = try #require(phone.fenceUpdates.first)
            #expect(first.fences.map(\.id) == ["bakery"])
            #expect(first.fences.first?.userData["name"] == "Bakery")
            #expect(first.source == .server(fetchedAt: FenceSyncTests.t0))
            #expect(first.at.timeIntervalSince(FenceSyncTests.t0) <= 10)     // handed over at the end of the launch's step
            #expect(phone.fenceUpdates.count == 1)
            let app = try #require(phone.simulation.engineApp)
            #expect(app.disk.geofences?.fences.keys.sorted() == ["bakery"])
            #expect(app.fenceEvents.contains { $0.fenceID == "bakery" && $0.kind == .enter })
            #expect(phone.fenceEvents.contains { $0.fenceID == "bakery" && $0.kind == .enter })   // stored for upload
            #expect(await phone.fenceFetches == (requests: 1, failed: 0))
        }
    }

    @Test("offline at launch: the fetch fails, the engine has no fence, and the set arrives when the network is back")
    func offlineAtLaunch() async throws {
        try await TestTrackingServer.run { server in
            try await Self.postFence(server, id: "bakery", at: Self.east, name: "Bakery")
            let transport = FenceSyncTests.RouterFences(server: server)
            // Offline for the first two minutes; the ride sets off at 10 s and reaches the fence after ~230 s.
            let phone = try await Self.run(Self.scenario(offline: [TimeWindow(from: 0, to: 120)]), server: server, transport: transport)
            #expect(await phone.fenceFetches.failed >= 1)
            #expect(transport.requests == 1)   // failures never reached the server
            let first = try #require(phone.fenceUpdates.first)
            #expect(first.at.timeIntervalSince(FenceSyncTests.t0) >= 120)
            #expect(first.fences.map(\.id) == ["bakery"])
        }
    }

    @Test("a relaunch revalidates with If-None-Match: 304 while unchanged, the new set once the server's changed")
    func relaunchRevalidates() async throws {
        try await TestTrackingServer.run { server in
            try await Self.postFence(server, id: "bakery", at: Self.east, name: "Bakery")
            let transport = FenceSyncTests.RouterFences(server: server)
            // Terminated at 400 and 1,000 s, opened again at 600 and 1,200 s; the server gains a fence at 800 s.
            let actions = [UserAction(at: 400, .systemTerminate), UserAction(at: 600, .open), UserAction(at: 620, .background),
                           UserAction(at: 1_000, .systemTerminate), UserAction(at: 1_200, .open), UserAction(at: 1_220, .background)]
            var added = false
            let phone = try await Self.run(Self.scenario(actions: actions), server: server, transport: transport) { t in
                if t >= 800, !added {
                    added = true
                    try await Self.postFence(server, id: "school", at: Self.start, name: "School")
                }
            }
            // One request per launch (the user's three, and any iOS made for location events): a full
            // page, 304s while unchanged, and the changed set at the first launch after 800 s.
            #expect(phone.launches >= 3)
            #expect(transport.requests == phone.launches)
            #expect(phone.fenceUpdates.map { $0.fences.map(\.id).sorted() } == [["bakery"], ["bakery", "school"]])
            let second = try #require(phone.fenceUpdates.last)
            // The first launch after 800 s: the user's at 1,200 s, or earlier one iOS made for a location
            // event (balanced fences, the default since #34, also relaunch the app for their stationary region).
            #expect(second.at.timeIntervalSince(FenceSyncTests.t0) >= 800)
            #expect(phone.simulation.engineApp?.disk.geofences?.fences.keys.sorted() == ["bakery", "school"])
        }
    }
}
