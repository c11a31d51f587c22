import Foundation
import Testing
import WaymarkEngine
@testable import WaymarkSimulator

@Suite("§1 system prompts")
struct PromptTests {
    @Test("asking for location while the notification prompt is visible is a counted collision and is lost")
    func collision() throws {
        var sim = try Simulation(scenario: Fixture.opened())
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.requestNotificationAuthorization([.alert]))
        sim.perform(.requestWhenInUseAuthorization)
        sim.run(until: 30)
        #expect(sim.stats.promptCollisions == 1)
        #expect(sim.stats.promptsShown == 1)
        #expect(sim.authorizationStatuses == [.notDetermined])   // the location request never got an answer
        #expect(sim.events { if case .notificationAuthorization(let g) = $0 { g } else { nil } } == [true])
    }

    @Test("requests made one after the other's answer do not collide")
    func sequential() throws {
        var sim = try Simulation(scenario: Fixture.opened())
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.requestNotificationAuthorization([.alert]))
        sim.run(until: 3)
        sim.perform(.requestWhenInUseAuthorization)
        sim.run(until: 6)
        #expect(sim.stats.promptCollisions == 0)
        #expect(sim.authorizationStatuses == [.notDetermined, .authorizedWhenInUse])
    }

    @Test("the answer arrives after the user's think time: 2 s by default, or as the scenario says",
          arguments: [(nil, 2.0), (7.0, 7.0)] as [(Double?, Double)])
    func thinkTime(think: Double?, answeredAt: Double) throws {
        var sim = try Simulation(scenario: Fixture.opened(prompts: [.locationWhenInUse: PromptResponse(.allow, thinkSeconds: think)]))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.requestWhenInUseAuthorization)
        sim.run(until: answeredAt - 0.1)
        #expect(sim.authorizationStatuses == [.notDetermined])
        sim.run(until: answeredAt)
        #expect(sim.authorizationStatuses == [.notDetermined, .authorizedWhenInUse])
    }

    @Test("the motion prompt is a system prompt like any other: asked over the location prompt, it collides")
    func motionCollides() throws {
        var sim = try Simulation(scenario: Fixture.opened())
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.requestWhenInUseAuthorization)
        sim.perform(.requestMotionPermission)
        sim.run(until: 30)
        #expect(sim.stats.promptCollisions == 1)
        #expect(sim.stats.promptsShown == 1)
        #expect(sim.events { if case .motionAuthorization(let g) = $0 { g } else { nil } }.isEmpty)
    }

    @Test("without NSLocationAlwaysAndWhenInUseUsageDescription the always upgrade shows nothing and calls nothing back")
    func missingAlwaysDescription() throws {
        let device = DeviceSetup(install: .existing, location: .authorizedWhenInUse,
                                 usageDescriptions: [.NSLocationWhenInUseUsageDescription, .NSMotionUsageDescription])
        var sim = try Simulation(scenario: Fixture.opened(device: device))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.requestAlwaysAuthorization)
        sim.run(until: 600)
        #expect(sim.stats.promptsShown == 0)
        #expect(sim.stats.missingUsageDescriptions == 1)
        #expect(sim.authorizationStatuses == [.authorizedWhenInUse])
        #expect(sim.locationAuthorization.status == .authorizedWhenInUse)
    }

    @Test("without the location usage description nothing appears and no callback ever comes",
          arguments: [DeviceCommand.requestWhenInUseAuthorization, .requestAlwaysAuthorization])
    func missingUsageDescription(command: DeviceCommand) throws {
        let device = DeviceSetup(usageDescriptions: [])
        var sim = try Simulation(scenario: Fixture.opened(device: device))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(command)
        sim.run(until: 600)
        #expect(sim.stats.promptsShown == 0)
        #expect(sim.stats.missingUsageDescriptions == 1)
        #expect(sim.authorizationStatuses == [.notDetermined])
        #expect(sim.events { if case .motionAuthorization(let g) = $0 { g } else { nil } }.isEmpty)
    }

    // Issue #14: the collision outcome is a setting, the foreground rule, the motion crash.

    @Test("a collision under shownAfterFirst is still counted, and the second prompt appears once the first is answered",
          arguments: [DeviceCommand.requestWhenInUseAuthorization, .requestMotionPermission])
    func collisionShownAfterFirst(second: DeviceCommand) throws {
        var sim = try Simulation(scenario: Fixture.opened(overrides: ["promptCollisionOutcome": .string("shownAfterFirst")]))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.requestNotificationAuthorization([.alert]))
        sim.perform(second)
        sim.run(until: 1.9)
        #expect(sim.stats.promptsShown == 1)
        sim.run(until: 30)
        #expect(sim.stats.promptCollisions == 1)
        #expect(sim.stats.promptsShown == 2)
        #expect(sim.events { if case .notificationAuthorization(let g) = $0 { g } else { nil } } == [true])
        if second == .requestWhenInUseAuthorization {
            #expect(sim.authorizationStatuses == [.notDetermined, .authorizedWhenInUse])
            #expect(sim.times { if case .authorizationChanged(let a) = $0 { a.status != .notDetermined } else { false } } == [4])
        } else {
            #expect(sim.events { if case .motionAuthorization(let g) = $0 { g } else { nil } } == [true])
        }
    }

    @Test("the default collision outcome is lost (pessimistic): the setting's default")
    func collisionDefaultIsLost() {
        #expect(PlatformConstants().promptCollisionOutcome == .lost)
        #expect(PlatformConstants.profile(.ios12).promptCollisionOutcome == .lost)
    }

    @Test("a location request from the background shows nothing, and is not shown later either: the app must ask again")
    func backgroundRequestDropped() throws {
        var sim = try Simulation(scenario: Fixture.opened(actions: [UserAction(at: 10, .background), UserAction(at: 20, .open)]))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.run(until: 12)
        #expect(sim.appState == .background)
        sim.perform(.requestWhenInUseAuthorization)
        sim.run(until: 19)
        #expect(sim.stats.promptsShown == 0)
        #expect(sim.stats.promptsRefusedInBackground == 1)
        sim.run(until: 30)
        #expect(sim.stats.promptsShown == 0)
        #expect(sim.authorizationStatuses == [.notDetermined])
        sim.perform(.requestWhenInUseAuthorization)   // in the foreground again
        sim.run(until: 40)
        #expect(sim.stats.promptsShown == 1)
        #expect(sim.authorizationStatuses == [.notDetermined, .authorizedWhenInUse])
    }

    @Test("a motion query or update start without NSMotionUsageDescription crashes the app, whatever the permission state",
          arguments: [(DeviceCommand.requestMotionPermission, DeviceSetup.PermissionSetting?.none),
                      (.startMotionActivityUpdates, nil), (.requestMotionPermission, .granted)])
    func motionWithoutDescriptionCrashes(command: DeviceCommand, motion: DeviceSetup.PermissionSetting?) throws {
        let device = DeviceSetup(install: .existing, motion: motion,
                                 usageDescriptions: [.NSLocationWhenInUseUsageDescription, .NSLocationAlwaysAndWhenInUseUsageDescription])
        var sim = try Simulation(scenario: Fixture.opened(device: device))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(command)
        #expect(sim.appState == .notRunning)
        #expect(sim.stats.crashes == 1)
        #expect(sim.stats.terminations == 1)
        #expect(sim.stats.promptsShown == 0)
        #expect(sim.events { if case .motionAuthorization(let g) = $0 { g } else { nil } }.isEmpty)
        #expect(sim.log.entries.contains { $0.note?.contains("crashed") == true })
    }
}
