import Foundation
import Testing
import WaymarkEngine
import WaymarkTransport
@testable import WaymarkSimulator

@Suite("§3 notifications and §10 network")
struct NetworkTests {
    static func sim(world: World? = nil, notifications: DeviceSetup.PermissionSetting? = nil,
                    actions: [UserAction] = []) throws -> Simulation {
        var sim = try Simulation(scenario: Fixture.opened(device: DeviceSetup(install: .existing, notifications: notifications),
                                                          actions: actions, world: world))
        sim.run(until: 0)
        return sim
    }

    @Test("notification permission granted, then a device token")
    func tokenPath() throws {
        var sim = try Self.sim()
        sim.perform(.requestNotificationAuthorization([.alert, .sound]))
        sim.run(until: 2)
        #expect(sim.received.last?.event == .notificationAuthorization(granted: true))
        sim.perform(.registerForRemoteNotifications)
        sim.run(until: 5)
        guard case .remoteRegistration(.token(let token)) = sim.received.last?.event else {
            Issue.record("expected a token, got \(String(describing: sim.received.last))")
            return
        }
        #expect(token.count == 64)
    }

    @Test("notification permission denied: the prompt's answer is denied")
    func deniedPath() throws {
        var sim = try Simulation(scenario: Fixture.opened(prompts: [.notifications: PromptResponse(.deny)]))
        sim.run(until: 0)
        sim.perform(.requestNotificationAuthorization([.alert]))
        sim.run(until: 1.9)
        #expect(sim.stats.promptsShown == 1)
        #expect(sim.events { if case .notificationAuthorization(let g) = $0 { g } else { nil } }.isEmpty)
        sim.run(until: 5)
        #expect(sim.received.last?.event == .notificationAuthorization(granted: false))
    }

    @Test("registration fails without network or APNs", arguments: [
        World(network: World.Network(offline: [TimeWindow(from: 0)])), World(network: World.Network(apnsAvailable: false)),
    ])
    func registrationFailure(world: World) throws {
        var sim = try Self.sim(world: world)
        sim.perform(.registerForRemoteNotifications)
        sim.run(until: 5)
        guard case .remoteRegistration(.failed) = sim.received.last?.event else {
            Issue.record("expected a failure, got \(String(describing: sim.received.last))")
            return
        }
    }

    @Test("an already determined notification permission answers at once without a prompt")
    func determined() throws {
        var sim = try Self.sim(notifications: .denied)
        sim.perform(.requestNotificationAuthorization([.alert]))
        #expect(sim.received.last?.event == .notificationAuthorization(granted: false))
        #expect(sim.stats.promptsShown == 0)
    }

    @Test("provisional notifications are granted at once, without a prompt and without colliding with a visible one")
    func provisional() throws {
        var sim = try Simulation(scenario: Fixture.opened(prompts: [.notifications: PromptResponse(.deny)]))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.requestWhenInUseAuthorization)              // a location prompt is on screen
        sim.perform(.requestNotificationAuthorization([.alert, .provisional]))
        #expect(sim.received.last?.event == .notificationAuthorization(granted: true))
        #expect(sim.stats.promptsShown == 1)
        #expect(sim.stats.promptCollisions == 0)
        sim.run(until: 10)
        sim.perform(.requestNotificationAuthorization([.alert, .provisional]))   // stored answer, at once
        #expect(sim.received.last?.event == .notificationAuthorization(granted: true))
        #expect(sim.stats.promptsShown == 1)
        // A full (non-provisional) request from provisional shows the prompt; "Don't Allow" turns notifications off.
        sim.perform(.requestNotificationAuthorization([.alert]))
        #expect(sim.stats.promptsShown == 2)
        sim.run(until: 20)
        #expect(sim.received.last?.event == .notificationAuthorization(granted: false))
        sim.perform(.requestNotificationAuthorization([.alert, .provisional]))
        #expect(sim.received.last?.event == .notificationAuthorization(granted: false))
        #expect(sim.stats.promptsShown == 2)
    }

    @Test("the server answers with the status of the matching rule", arguments: [200, 401, 409, 422, 503])
    func statuses(status: Int) throws {
        let server = World.Server(rules: [World.Server.Rule(window: TimeWindow(from: 0, to: 100), status: status)])
        let network = SimulatedNetwork(World.Network(server: server))
        #expect(network.verdict(bytes: 2000, at: 50) == (status == 200 ? .delivered : .refused(status: status)))
        #expect(network.verdict(bytes: 2000, at: 100) == .delivered, "the window is half-open")
    }

    @Test("the network's verdicts: offline first, then 413 over the size limit, then the first matching rule, then the default")
    func verdicts() throws {
        let server = World.Server(defaultStatus: 200, maxBodyBytes: 1000, rules: [
            World.Server.Rule(window: TimeWindow(from: 50, to: 200), timeout: true),
            World.Server.Rule(window: TimeWindow(from: 100, to: 250), status: 503),
            World.Server.Rule(window: TimeWindow(from: 250, to: 260), status: 202),
            World.Server.Rule(window: TimeWindow(from: 260, to: 270), replyLost: true),
        ])
        let network = SimulatedNetwork(World.Network(offline: [TimeWindow(from: 300, to: 400)], server: server))
        #expect(network.verdict(bytes: 10, at: 10) == .delivered)
        #expect(network.verdict(bytes: 5000, at: 10) == .refused(status: 413))
        #expect(network.verdict(bytes: 10, at: 120) == .unanswered, "the first matching rule wins")
        #expect(network.verdict(bytes: 10, at: 220) == .refused(status: 503))
        #expect(network.verdict(bytes: 10, at: 255) == .delivered, "a 2xx rule lets the upload through")
        #expect(network.verdict(bytes: 10, at: 265) == .replyLost)
        #expect(network.verdict(bytes: 5000, at: 350) == .offline, "offline before anything else")
        #expect(!network.isOnline(at: 350) && network.isOnline(at: 400))
        #expect(SimulatedNetwork(World.Network(server: World.Server(defaultStatus: 401))).verdict(bytes: 1, at: 0) == .refused(status: 401))
        #expect(SimulatedNetwork(nil).verdict(bytes: 1 << 30, at: 0) == .delivered)
        // The simulation tells the app about the offline window as a reachability change.
        var sim = try Self.sim(world: World(network: World.Network(offline: [TimeWindow(from: 300, to: 400)], server: server)))
        sim.run(until: 350)
        #expect(sim.received.contains { $0.event == .networkReachability(online: false) })
        sim.run(until: 410)
        #expect(sim.received.last { if case .networkReachability = $0.event { true } else { false } }?.event == .networkReachability(online: true))
    }

    @Test("the next time with connectivity: past back-to-back and overlapping windows; never after an open-ended one")
    func nextOnline() {
        let network = SimulatedNetwork(World.Network(offline: [TimeWindow(from: 10, to: 20), TimeWindow(from: 20, to: 30),
                                                              TimeWindow(from: 25, to: 40), TimeWindow(from: 100)]))
        #expect(network.nextOnline(atOrAfter: 5) == 5)
        #expect(network.nextOnline(atOrAfter: 12) == 40)
        #expect(network.nextOnline(atOrAfter: 40) == 40, "a window's end is outside it")
        #expect(network.nextOnline(atOrAfter: 100) == nil)
        #expect(SimulatedNetwork(nil).nextOnline(atOrAfter: 7) == 7)
    }

    /// Keeps what reached the server behind the simulated network.
    actor Server: UploadTransport {
        var keys: [String] = []
        func send(_ request: UploadRequest) async -> UploadResponse {
            keys.append(request.key)
            return .status(200, body: Array(#"{"result":"ok"}"#.utf8))
        }
    }

    @Test("the transport answers as the network says at the virtual time, and passes on only what reaches the server")
    func transport() async throws {
        let server = World.Server(maxBodyBytes: 100, rules: [
            World.Server.Rule(window: TimeWindow(from: 10, to: 20), status: 503),
            World.Server.Rule(window: TimeWindow(from: 20, to: 30), timeout: true),
            World.Server.Rule(window: TimeWindow(from: 30, to: 40), replyLost: true),
        ])
        let epoch = Date(timeIntervalSince1970: 1_000)
        let real = Server()
        let transport = SimulatedNetworkTransport(network: SimulatedNetwork(World.Network(offline: [TimeWindow(from: 40, to: 50)], server: server)),
                                                  epoch: epoch, server: real)
        func send(_ key: String, bytes: Int = 10, at t: Double) async -> UploadResponse {
            await transport.send(UploadRequest(key: key, body: Array(repeating: 32, count: bytes), token: "t"), at: epoch + t)
        }
        #expect(await send("a", at: 0).isAcknowledgement)
        let tooLarge = await send("b", bytes: 200, at: 1)
        guard case .status(413, _) = tooLarge else { Issue.record("expected 413, got \(tooLarge)"); return }
        #expect(tooLarge.serverMessage?.contains("200 bytes") == true)
        guard case .status(503, _) = await send("c", at: 15) else { Issue.record("expected 503"); return }
        #expect(await send("d", at: 25) == .timedOut)
        #expect(await send("e", at: 35) == .timedOut)
        #expect(await send("f", at: 45) == .connectionFailed("offline (simulated network)"))
        #expect(await transport.send(UploadRequest(key: "g", body: [], token: "t")).isAcknowledgement == false, "without a time: judged at the previous upload's time (offline)")
        #expect(await real.keys == ["a", "e"], "only the delivered upload and the one whose reply was lost reached the server")
        let log = await transport.takeTransmissions()
        #expect(log.map(\.verdict) == [.delivered, .refused(status: 413), .refused(status: 503), .unanswered, .replyLost, .offline, .offline])
        #expect(log.map(\.bytes) == [10, 200, 10, 10, 10, 10, 0])
        #expect(await transport.takeTransmissions().isEmpty, "taken once")
    }

    @Test("uploads close together share one radio wake; an offline upload costs nothing; each is counted and noted")
    func radioWakes() throws {
        var sim = try Self.sim()
        let epoch = sim.epoch
        func sent(_ t: Double, _ verdict: SimulatedNetwork.Verdict = .delivered) -> SimulatedNetworkTransport.Transmission {
            SimulatedNetworkTransport.Transmission(at: epoch + t, bytes: 1024, verdict: verdict)
        }
        sim.run(until: 100)
        for transmission in [sent(0), sent(2, .refused(status: 413)), sent(30, .offline), sent(60, .replyLost)] {
            sim.recordTransmission(transmission)
        }
        #expect(abs(sim.energy[.radio] - (2 * 0.5 + 3 * 0.0005)) < 1e-9)
        #expect(sim.stats.uploads == 4)
        let notes = sim.log.entries.filter { $0.note?.hasPrefix("upload of") == true }
        #expect(notes.map(\.t) == [0, 2, 30, 60], "noted at the time each was sent, in the log's time order")
        #expect(zip(sim.log.entries, sim.log.entries.dropFirst()).allSatisfy { $0.t <= $1.t })
        #expect(notes[1].note == "upload of 1024 bytes: refused with HTTP 413")
    }
}
