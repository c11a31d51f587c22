import Foundation
import Testing
import WaymarkEngine
@testable import WaymarkSimulator

/// Review 2, H1: in a UIScene app `applicationState` is `.background` during `didFinishLaunching`
/// at every launch (bugsnag/bugsnag-cocoa#1263, #1307), so a device that decided there read every
/// user launch as a background one. The simulator shows the app what UIKit shows and makes the
/// `.launched` event with the live device's rule, `LaunchReasonResolver`.
@Suite("H1: scene launches — the launch reason decided after the first scene or run-loop turn")
struct SceneLaunchTests {
    static func launchEvents(sceneLifecycle: Bool, overrides: [String: JSONValue]? = nil) throws -> [DeviceEvent] {
        var device = DeviceSetup()
        device.sceneLifecycle = sceneLifecycle
        var sim = try Simulation(scenario: Fixture.opened(device: device, overrides: overrides))
        sim.run(until: 1)
        return Array(sim.received.map(\.event).prefix(2))
    }

    static let notified: [String: JSONValue] = ["willEnterForegroundAtSceneLaunch": .bool(true)]

    @Test("a cold user launch: a UIScene app sees launched(user) then willEnterForeground (TelemetryDeck/SwiftSDK#113); an app-delegate app only launched(user)")
    func coldUserLaunchOrder() throws {
        #expect(try Self.launchEvents(sceneLifecycle: true, overrides: Self.notified) == [.launched(reason: .user), .willEnterForeground])
        let appDelegate = try Self.launchEvents(sceneLifecycle: false, overrides: Self.notified)
        #expect(appDelegate.first == .launched(reason: .user))
        #expect(!appDelegate.contains(.willEnterForeground))
    }

    @Test("without the willEnterForeground notification at a scene launch (the default, pessimistic reading), the activation still decides a user launch")
    func activationAlone() throws {
        let events = try Self.launchEvents(sceneLifecycle: true)
        #expect(events.first == .launched(reason: .user))
        #expect(!events.contains(.willEnterForeground))
    }

    @Test("if the scene connected only after the first run-loop turn, the launch would read as background: the setting shows the residual risk")
    func sceneAfterRunLoop() throws {
        let events = try Self.launchEvents(sceneLifecycle: true, overrides: ["sceneConnectsBeforeFirstRunLoopTurn": .bool(false),
                                                                            "willEnterForegroundAtSceneLaunch": .bool(true)])
        #expect(events == [.launched(reason: .background), .willEnterForeground])
    }

    @Test("the rule read in didFinishLaunching alone (the old LiveDevice) calls a scene user launch background; the resolver waits and calls it user")
    func oldRuleFails() {
        // What the simulator models a scene app to see in didFinishLaunching: background, no key.
        #expect(CoreLocationRules.launchReason(hasLocationKey: false, hasRemoteNotificationKey: false, launchedInBackground: true) == .background)
        var resolver = LaunchReasonResolver(hasLocationKey: false, hasRemoteNotificationKey: false, inBackgroundAtLaunch: true)
        #expect(resolver.reason == nil)
        #expect(resolver.observe(.sceneWillEnterForeground) == .user)
        #expect(resolver.observe(.runLoopTurned(inBackground: true)) == nil, "decided once")
        #expect(resolver.reason == .user)
    }

    @Test("a keyless background launch is decided when the run loop turns in the background; a key decides at once",
          arguments: [(false, false, true, nil), (true, false, true, LaunchReason.location),
                      (false, true, true, .remoteNotification), (false, false, false, .user)] as [(Bool, Bool, Bool, LaunchReason?)])
    func resolverDecisions(location: Bool, push: Bool, inBackground: Bool, atOnce: LaunchReason?) {
        var resolver = LaunchReasonResolver(hasLocationKey: location, hasRemoteNotificationKey: push, inBackgroundAtLaunch: inBackground)
        #expect(resolver.reason == atOnce)
        let turned = resolver.observe(.runLoopTurned(inBackground: true))
        #expect(resolver.reason == (atOnce ?? .background))
        #expect(turned == (atOnce == nil ? .background : nil))
    }

    @Test("an engine in a UIScene app opened by the user settles the launch as userOpened and centres the map, with or without the launch's willEnterForeground",
          arguments: [(true, true), (true, false), (false, false)] as [(Bool, Bool)])
    func engineSettlesUserOpened(sceneLifecycle: Bool, notified: Bool) throws {
        var device = DeviceSetup(install: .existing, location: .authorizedWhenInUse)
        device.sceneLifecycle = sceneLifecycle
        var sim = try Simulation(scenario: Fixture.opened(device: device, overrides: notified ? Self.notified : nil, duration: 120),
                                 app: EngineApp())
        sim.runToEnd()
        let app = try #require(sim.engineApp)
        let launches = LaunchAttributionTests.attributions(app)
        #expect(launches.map(\.reason) == [.user])
        #expect(launches.first?.cause == .userOpened)
        #expect(app.launchStates.contains { if case .located = $0.value { true } else { false } })
        #expect(app.launchStates.filter { $0.value == .locating }.count <= 1, "the launch's willEnterForeground does not start the locator twice")
    }

    @Test("a scene app relaunched in the background (significant change) is still a background launch")
    func backgroundLaunchStaysBackground() throws {
        let sim = try LaunchKeyTests.relaunched(sceneLifecycle: true)
        let launches = sim.events { if case .launched(let reason) = $0 { reason } else { nil } }
        #expect(!launches.isEmpty)
        #expect(launches.allSatisfy { $0 == .background })
        #expect(!sim.received.contains { $0.event == .willEnterForeground }, "no scene comes to the foreground")
    }
}
