import Foundation
import Testing
import WaymarkEngine
@testable import WaymarkSimulator

@Suite("§8 launch reasons: a silent push")
struct BackgroundLaunchTests {
    static func scenario(_ actions: [UserAction]) -> Scenario {
        Scenario(route: ScenarioRoute(start: Fixture.origin, legs: []),
                 device: Fixture.existing(.authorizedAlways, modes: [.location]),
                 user: UserBehaviour(actions: actions), platform: PlatformSetup(overrides: Fixture.noCache))
    }

    @Test("a silent push launches a terminated app in the background with the remote-notification reason")
    func launchReason() throws {
        var sim = try Simulation(scenario: Self.scenario([UserAction(at: 10, .silentPush)]))
        sim.run(until: 10)
        #expect(sim.received.map(\.event) == [.launched(reason: .remoteNotification)])
        #expect(sim.appState == .background)
        #expect(sim.stats.launches == ["remoteNotification": 1])
    }

    @Test("standard updates cannot be started from a silent-push launch; a location launch may start them")
    func noStandardUpdates() throws {
        var sim = try Simulation(scenario: Self.scenario([UserAction(at: 10, .silentPush)]))
        sim.run(until: 10)
        sim.perform(.createLocationManager)
        sim.perform(.startUpdatingLocation(LocationConfiguration(pausesLocationUpdatesAutomatically: false,
                                                                 allowsBackgroundLocationUpdates: true)))
        sim.run(until: 120)
        #expect(sim.stats.startsIgnoredInBackground == 1)
        #expect(sim.fixes.isEmpty)
        #expect(sim.energy[.gnss] == 0)
    }

    @Test("a silent push gives about 30 s of background time, then the app is suspended")
    func executionWindow() throws {
        var sim = try Simulation(scenario: Self.scenario([UserAction(at: 10, .silentPush)]))
        sim.run(until: 39.5)
        #expect(sim.appState == .background)
        sim.run(until: 41)
        #expect(sim.appState == .suspended)
    }

    @Test("a silent push wakes a suspended app without leave to start updates")
    func wakeSuspended() throws {
        var sim = try Simulation(scenario: Self.scenario([UserAction(at: 0, .open), UserAction(at: 5, .background),
                                                          UserAction(at: 20, .silentPush)]))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.run(until: 19)
        #expect(sim.appState == .suspended)
        sim.run(until: 20)
        #expect(sim.appState == .background)
        sim.perform(.startUpdatingLocation(LocationConfiguration(allowsBackgroundLocationUpdates: true)))
        sim.run(until: 100)
        #expect(sim.stats.startsIgnoredInBackground == 1)
        #expect(sim.fixes.isEmpty)
        #expect(sim.appState == .suspended)
    }

    @Test("a silent push does not launch an app the user force-quit")
    func notAfterForceQuit() throws {
        var sim = try Simulation(scenario: Self.scenario([UserAction(at: 0, .open), UserAction(at: 5, .forceQuit),
                                                          UserAction(at: 20, .silentPush)]))
        sim.run(until: 100)
        #expect(sim.appState == .notRunning)
        #expect(sim.stats.launches["remoteNotification"] == nil)
        #expect(sim.log.systemNotes.contains("silent push not delivered: app force-quit"))
    }
}
