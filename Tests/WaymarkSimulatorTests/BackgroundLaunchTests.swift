import Foundation
import Testing
import WaymarkEngine
@testable import WaymarkSimulator
import WaymarkGeo

@Suite("§7 launch reasons: a silent push")
struct BackgroundLaunchTests {
    static func scenario(_ actions: [UserAction], status: LocationAuthorizationStatus = .authorizedAlways,
                         sceneLifecycle: Bool? = nil) -> Scenario {
        var device = Fixture.existing(status, modes: [.location])
        device.sceneLifecycle = sceneLifecycle
        return Scenario(route: ScenarioRoute(start: Fixture.origin, legs: []), device: device,
                        user: UserBehaviour(actions: actions), platform: PlatformSetup(overrides: Fixture.noCache))
    }

    @Test("a silent push launches a terminated app in the background; the app sees the remote-notification key only without UIScene",
          arguments: [(nil, LaunchReason.background), (true, .background), (false, .remoteNotification)] as [(Bool?, LaunchReason)])
    func launchReason(sceneLifecycle: Bool?, seen: LaunchReason) throws {
        // Under UIScene, launchOptions "is nil" (Apple, application(_:didFinishLaunchingWithOptions:)) [S14]–[S16].
        var sim = try Simulation(scenario: Self.scenario([UserAction(at: 10, .silentPush)], sceneLifecycle: sceneLifecycle))
        sim.run(until: 10)
        #expect(sim.received.map(\.event) == [.launched(reason: seen)])
        #expect(sim.appState == .background)
        #expect(sim.stats.launches == ["remoteNotification": 1], "the stats count the system's reason")
    }

    @Test("in a silent-push launch an Always app may start standard updates, a when-in-use app may not",
          arguments: [LocationAuthorizationStatus.authorizedAlways, .authorizedWhenInUse])
    func standardUpdatesInPushLaunch(status: LocationAuthorizationStatus) throws {
        // Always: "things can be started when the app is not in use" (WWDC19 705) [S5]; when-in-use:
        // only while in use [S22].
        var sim = try Simulation(scenario: Self.scenario([UserAction(at: 10, .silentPush)], status: status))
        sim.run(until: 10)
        sim.perform(.createLocationManager)
        sim.perform(.startUpdatingLocation(LocationConfiguration(pausesLocationUpdatesAutomatically: false,
                                                                 allowsBackgroundLocationUpdates: true)))
        sim.run(until: 120)
        if status == .authorizedAlways {
            #expect(sim.stats.startsIgnoredInBackground == 0)
            #expect(sim.fixes.contains { $0.timestamp.timeIntervalSince(sim.epoch) > 110 })
            #expect(sim.energy[.gnss] > 100)
            #expect(sim.appState == .background)
        } else {
            #expect(sim.stats.startsIgnoredInBackground == 1)
            #expect(sim.fixes.isEmpty)
            #expect(sim.energy[.gnss] == 0)
            #expect(sim.appState == .suspended)
        }
    }

    @Test("a silent push gives about 30 s of background time, then the app is suspended")
    func executionWindow() throws {
        var sim = try Simulation(scenario: Self.scenario([UserAction(at: 10, .silentPush)]))
        sim.run(until: 39.5)
        #expect(sim.appState == .background)
        sim.run(until: 41)
        #expect(sim.appState == .suspended)
    }

    @Test("a silent push wakes a suspended app: an Always app may start updates then, a when-in-use app may not",
          arguments: [LocationAuthorizationStatus.authorizedAlways, .authorizedWhenInUse])
    func wakeSuspended(status: LocationAuthorizationStatus) throws {
        var sim = try Simulation(scenario: Self.scenario([UserAction(at: 0, .open), UserAction(at: 5, .background),
                                                          UserAction(at: 20, .silentPush)], status: status))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.run(until: 19)
        #expect(sim.appState == .suspended)
        sim.run(until: 20)
        #expect(sim.appState == .background)
        sim.perform(.startUpdatingLocation(LocationConfiguration(pausesLocationUpdatesAutomatically: false,
                                                                 allowsBackgroundLocationUpdates: true)))
        sim.run(until: 100)
        if status == .authorizedAlways {
            #expect(sim.stats.startsIgnoredInBackground == 0)
            #expect(sim.fixes.contains { $0.timestamp.timeIntervalSince(sim.epoch) > 90 })
            #expect(sim.appState == .background)
        } else {
            #expect(sim.stats.startsIgnoredInBackground == 1)
            #expect(sim.fixes.isEmpty)
            #expect(sim.appState == .suspended)
        }
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
