import Foundation
import Testing
import WaymarkEngine
@testable import WaymarkSimulator
import WaymarkGeo

@Suite("§2 location authorization")
struct AuthorizationTests {
    private func firstLaunch(_ answer: PromptResponse.Answer, device: DeviceSetup? = nil,
                             actions: [UserAction] = []) throws -> Simulation {
        var sim = try Simulation(scenario: Fixture.opened(device: device, prompts: [.locationWhenInUse: PromptResponse(answer)],
                                                          actions: actions))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.requestWhenInUseAuthorization)
        sim.run(until: 10)
        return sim
    }

    @Test("first launch, user allows: notDetermined then authorizedWhenInUse")
    func firstLaunchAllow() throws {
        #expect(try firstLaunch(.allow).authorizationStatuses == [.notDetermined, .authorizedWhenInUse])
    }

    @Test("first launch, user denies: notDetermined then denied")
    func firstLaunchDeny() throws {
        #expect(try firstLaunch(.deny).authorizationStatuses == [.notDetermined, .denied])
    }

    @Test("relaunch after allowing: one callback, and requesting again shows nothing")
    func relaunchAfterAllowing() throws {
        var sim = try Simulation(scenario: Fixture.opened(device: Fixture.existing(.authorizedWhenInUse)))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.requestWhenInUseAuthorization)
        sim.run(until: 30)
        #expect(sim.authorizationStatuses == [.authorizedWhenInUse])
        #expect(sim.stats.promptsShown == 0)
    }

    @Test("the callback comes only once the location manager exists")
    func callbackOnDelegate() throws {
        var sim = try Simulation(scenario: Fixture.opened(device: Fixture.existing(.denied)))
        sim.run(until: 5)
        #expect(sim.authorizationStatuses.isEmpty)
        sim.perform(.createLocationManager)
        #expect(sim.authorizationStatuses == [.denied])
    }

    @Test("allow once lasts for this process only; the next launch is notDetermined again")
    func allowOnce() throws {
        var sim = try firstLaunch(.allowOnce, actions: [UserAction(at: 20, .forceQuit), UserAction(at: 30, .open)])
        #expect(sim.authorizationStatuses == [.notDetermined, .authorizedWhenInUse])
        sim.run(until: 30)
        sim.perform(.createLocationManager)
        #expect(sim.authorizationStatuses.last == .notDetermined)
    }

    @Test("iOS 12 has no allow once: the grant persists")
    func allowOnceOldProfile() throws {
        var sim = try Simulation(scenario: Fixture.opened(prompts: [.locationWhenInUse: PromptResponse(.allowOnce)],
                                                          actions: [UserAction(at: 20, .forceQuit), UserAction(at: 30, .open)],
                                                          profile: .ios12))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.requestWhenInUseAuthorization)
        sim.run(until: 30)
        sim.perform(.createLocationManager)
        #expect(sim.authorizationStatuses.last == .authorizedWhenInUse)
    }

    @Test("the always upgrade prompt appears once per install")
    func alwaysUpgradeOnce() throws {
        var sim = try Simulation(scenario: Fixture.opened(device: Fixture.existing(.authorizedWhenInUse),
                                                          prompts: [.locationAlways: PromptResponse(.deny)],
                                                          actions: [UserAction(at: 20, .forceQuit), UserAction(at: 30, .open)]))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.requestAlwaysAuthorization)
        sim.run(until: 10)
        #expect(sim.stats.promptsShown == 1)
        sim.perform(.requestAlwaysAuthorization)
        sim.run(until: 30)
        sim.perform(.createLocationManager)
        sim.perform(.requestAlwaysAuthorization)
        sim.run(until: 60)
        #expect(sim.stats.promptsShown == 1)
        #expect(sim.locationAuthorization.status == .authorizedWhenInUse)
    }

    @Test("allowing the upgrade grants always")
    func alwaysUpgradeAllowed() throws {
        var sim = try Simulation(scenario: Fixture.opened(device: Fixture.existing(.authorizedWhenInUse)))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.requestAlwaysAuthorization)
        sim.run(until: 10)
        #expect(sim.authorizationStatuses == [.authorizedWhenInUse, .authorizedAlways])
    }

    @Test("a Settings change while the app is not running is reported when it next runs")
    func settingsChangeNextRun() throws {
        let actions = [UserAction(at: 10, .forceQuit), UserAction(at: 20, .settings, location: .denied), UserAction(at: 30, .open)]
        var sim = try Simulation(scenario: Fixture.opened(device: Fixture.existing(.authorizedWhenInUse), actions: actions))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.run(until: 25)
        #expect(sim.authorizationStatuses == [.authorizedWhenInUse])
        sim.run(until: 30)
        sim.perform(.createLocationManager)
        #expect(sim.authorizationStatuses == [.authorizedWhenInUse, .denied])
    }

    @Test("downgradeOnly (the old rule): an upgrade in Settings while backgrounded arrives on return to the foreground")
    func settingsChangeOnForeground() throws {
        let actions = [UserAction(at: 10, .background), UserAction(at: 20, .settings, location: .authorizedAlways),
                       UserAction(at: 30, .open)]
        var sim = try Simulation(scenario: Fixture.opened(device: Fixture.existing(.authorizedWhenInUse), actions: actions,
                                                          overrides: ["settingsChangeTermination": .string("downgradeOnly")]))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.run(until: 29)
        #expect(sim.authorizationStatuses == [.authorizedWhenInUse])
        sim.run(until: 30)
        #expect(sim.authorizationStatuses == [.authorizedWhenInUse, .authorizedAlways])
    }

    @Test("revoking permission in Settings while backgrounded terminates the app, under either setting",
          arguments: [SettingsChangeTermination.anyChange, .downgradeOnly])
    func revokeTerminates(rule: SettingsChangeTermination) throws {
        let actions = [UserAction(at: 10, .background), UserAction(at: 12, .settings, location: .denied)]
        var sim = try Simulation(scenario: Fixture.opened(device: Fixture.existing(.authorizedAlways), actions: actions,
                                                          overrides: ["settingsChangeTermination": .string(rule.rawValue)]))
        sim.run(until: 20)
        #expect(sim.appState == .notRunning)
    }

    @Test("by default any privacy change (an upgrade, precise location) terminates a background or suspended app; the new status comes at the next manager creation",
          arguments: [UserAction(at: 20, .settings, location: .authorizedAlways), UserAction(at: 20, .settings, preciseLocation: false)])
    func anySettingsChangeTerminates(change: UserAction) throws {
        let actions = [UserAction(at: 10, .background), change, UserAction(at: 30, .open)]
        var sim = try Simulation(scenario: Fixture.opened(device: Fixture.existing(.authorizedWhenInUse), actions: actions))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.run(until: 25)
        #expect(sim.appState == .notRunning)
        #expect(sim.stats.terminations == 1)
        sim.run(until: 30)
        sim.perform(.createLocationManager)
        let last = try #require(sim.events { if case .authorizationChanged(let a) = $0 { a } else { nil } }.last)
        #expect(last == sim.locationAuthorization)
        #expect(sim.authorizationStatuses.count == 2)
        #expect(PlatformConstants().settingsChangeTermination == .anyChange)
    }

    @Test("with location services off the status is denied, services disabled, and no prompt appears")
    func servicesOff() throws {
        var sim = try Simulation(scenario: Fixture.opened(device: DeviceSetup(locationServicesEnabled: false)))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.requestWhenInUseAuthorization)
        sim.perform(.startUpdatingLocation(LocationConfiguration()))
        sim.run(until: 30)
        let auth = try #require(sim.events { if case .authorizationChanged(let a) = $0 { a } else { nil } }.first)
        #expect(auth.status == .denied && !auth.servicesEnabled)
        #expect(sim.stats.promptsShown == 0)
        #expect(sim.locationErrors == [.denied])
        #expect(sim.fixes.isEmpty)
    }

    @Test("reduced accuracy (precise off) gives coarse fixes only")
    func reducedAccuracy() throws {
        var sim = try Simulation(scenario: Fixture.opened(prompts: [.locationWhenInUse: PromptResponse(.allow, preciseLocation: false)],
                                                          overrides: Fixture.noCache))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.requestWhenInUseAuthorization)
        sim.perform(.startUpdatingLocation(LocationConfiguration(desiredAccuracy: .best)))
        sim.run(until: 2000)
        #expect(sim.locationAuthorization.accuracy == .reduced)
        #expect(!sim.fixes.isEmpty)
        #expect(sim.fixes.allSatisfy { ($0.horizontalAccuracy ?? 0) >= 1000 })
        #expect(sim.energy[.gnss] == 0)
    }
}
