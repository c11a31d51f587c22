import Foundation
import Testing
import WaymarkEngine
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
        var sim = try Self.sim(world: World(network: World.Network(server: server)))
        sim.perform(.upload(id: 1, bytes: 2000))
        sim.run(until: 1)
        #expect(sim.uploadResults == [.status(status)])
    }

    @Test("too large a body gets 413; a silent server times out; offline fails at once")
    func failures() throws {
        let server = World.Server(maxBodyBytes: 1000, rules: [World.Server.Rule(window: TimeWindow(from: 50, to: 200), timeout: true)])
        var sim = try Self.sim(world: World(network: World.Network(offline: [TimeWindow(from: 300, to: 400)], server: server)))
        sim.perform(.upload(id: 1, bytes: 5000))
        sim.run(until: 60)
        sim.perform(.upload(id: 2, bytes: 10))
        sim.run(until: 119)
        #expect(sim.uploadResults == [.status(413)])
        sim.run(until: 121)
        #expect(sim.uploadResults == [.status(413), .timedOut])
        sim.run(until: 350)
        #expect(sim.received.contains { $0.event == .networkReachability(online: false) })
        sim.perform(.upload(id: 3, bytes: 10))
        #expect(sim.uploadResults.last == .offline)
    }

    @Test("a suspended app uploads nothing: the request is cancelled and reported on resume")
    func suspendedCancels() throws {
        let server = World.Server(rules: [World.Server.Rule(window: TimeWindow(from: 0), timeout: true)])
        var sim = try Self.sim(world: World(network: World.Network(server: server)),
                               actions: [UserAction(at: 10, .background), UserAction(at: 100, .open)])
        sim.run(until: 9)
        sim.perform(.upload(id: 1, bytes: 10))
        sim.run(until: 99)
        #expect(sim.uploadResults.isEmpty)
        sim.run(until: 100)
        #expect(sim.uploadResults == [.cancelled])
    }

    @Test("uploads close together share one radio wake")
    func radioWakes() throws {
        var sim = try Self.sim()
        sim.perform(.upload(id: 1, bytes: 1024))
        sim.run(until: 2)
        sim.perform(.upload(id: 2, bytes: 1024))
        sim.run(until: 60)
        sim.perform(.upload(id: 3, bytes: 1024))
        #expect(abs(sim.energy[.radio] - (2 * 0.5 + 3 * 0.0005)) < 1e-9)
    }
}
