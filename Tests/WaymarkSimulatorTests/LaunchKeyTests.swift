import Foundation
import Testing
import WaymarkEngine
@testable import WaymarkSimulator

@Suite("§7 launch reasons: the location launch key and the UIScene life cycle")
struct LaunchKeyTests {
    /// A terminated Always app with significant changes left on, riding east: a significant change
    /// relaunches it in the background.
    static func relaunched(sceneLifecycle: Bool?) throws -> Simulation {
        let device = DeviceSetup(install: .existing, location: .authorizedAlways, significantChangesActive: true,
                                 backgroundModes: [.location], sceneLifecycle: sceneLifecycle)
        let scenario = Scenario(durationSeconds: 1800, route: Fixture.eastbound(speed: 10, seconds: 1800), device: device,
                                platform: PlatformSetup(overrides: Fixture.noCache))
        var sim = try Simulation(scenario: scenario)
        sim.run(until: 1800)
        return sim
    }

    @Test("a location relaunch reaches a UIScene app as a background launch with no key, an app-delegate app with the location key",
          arguments: [(nil, LaunchReason.background), (true, .background), (false, .location)] as [(Bool?, LaunchReason)])
    func locationKey(sceneLifecycle: Bool?, seen: LaunchReason) throws {
        // Apple: launchOptions "is nil" if the app supports scenes (application(_:didFinishLaunchingWithOptions:));
        // UIApplication.LaunchOptionsKey.location [S14]; intuit/LocationManager #119 [S15]; TN3187 [S16].
        let sim = try Self.relaunched(sceneLifecycle: sceneLifecycle)
        let launches = sim.events { if case .launched(let reason) = $0 { reason } else { nil } }
        #expect(!launches.isEmpty)
        #expect(launches.allSatisfy { $0 == seen })
        #expect(sim.stats.launches["location"] == launches.count, "the stats count the system's reason")
        let noted = sim.log.systemNotes.contains { $0.hasPrefix("launch options not delivered (UIScene life cycle)") }
        #expect(noted == (seen == .background))
    }

    @Test("a location relaunch seen as a background launch still gets the location launch's ~10 s window")
    func sceneLaunchWindow() throws {
        let sim = try Self.relaunched(sceneLifecycle: true)
        let launch = try #require(sim.times { $0 == .launched(reason: .background) }.first)
        // The relaunched app did nothing (no manager): it was suspended after the location window.
        #expect(sim.log.entries.contains { $0.kind == .system && $0.note == "suspended" && abs($0.t - (launch + 10)) < 1.001 })
    }

    @Test("a user launch is a user launch, with or without UIScene", arguments: [true, false])
    func userLaunch(sceneLifecycle: Bool) throws {
        var device = DeviceSetup()
        device.sceneLifecycle = sceneLifecycle
        var sim = try Simulation(scenario: Fixture.opened(device: device))
        sim.run(until: 1)
        #expect(sim.received.first?.event == .launched(reason: .user))
    }
}
