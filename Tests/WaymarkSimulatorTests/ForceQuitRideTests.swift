import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

/// PLATFORM.md §4: after a user force-quit, current iOS still relaunches the app for significant changes once
/// the device has moved (`relaunchAfterForceQuit`, default on); iOS 7.0 did not. A ride keeps significant
/// changes on, so on both backends the two settings must give different rides: with the setting on, the
/// engine is relaunched mid-ride and records again before the user reopens the app; with it off, nothing is
/// recorded until the user does. Before the force-quit the two runs are the same.
@Suite("Force-quit mid-ride: the two relaunch settings give different rides on both backends (§4)")
struct ForceQuitRideTests {
    static let forceQuit = 300.0, reopen = 1_800.0

    /// An always app riding east at 5.5 m/s for 40 min, force-quit at 300 s and reopened by the user at 1800 s.
    static func ride(backend: LocationBackend, relaunchAfterForceQuit: Bool) throws -> Simulation {
        let start = Coordinate(uncheckedLatitude: 46.05, longitude: 14.5)
        let east = Coordinate(uncheckedLatitude: 46.05, longitude: 14.58)
        var scenario = Scenario(
            name: "force-quit mid-ride", seed: 3, startTime: Date(timeIntervalSince1970: 1_700_000_000), durationSeconds: 2_400,
            route: ScenarioRoute(start: start, legs: [.stop(10), .travel([east], speed: 5.5, activity: .cycling)]),
            device: DeviceSetup(install: .existing, location: .authorizedAlways, notifications: .granted, motion: .granted,
                                backgroundModes: [.location]),
            user: UserBehaviour(actions: [UserAction(at: 0, .open), UserAction(at: 30, .background),
                                          UserAction(at: forceQuit, .forceQuit), UserAction(at: reopen, .open)]),
            motion: MotionSetup(mode: .derived))
        scenario.platform = PlatformSetup(overrides: ["relaunchAfterForceQuit": .bool(relaunchAfterForceQuit)])
        var sim = try Simulation(scenario: scenario, seed: 3,
                                 app: EngineApp(configuration: EngineCore.Configuration(backend: backend),
                                                script: EngineApp.Script(startsRide: true, rideID: "r")))
        sim.runToEnd()
        return sim
    }

    /// When the app was launched between the force-quit and the user's reopening, in seconds.
    static func launchesWhileQuit(_ sim: Simulation) -> [Double] {
        sim.received.compactMap {
            guard case .launched = $0.event, $0.time > sim.date(forceQuit), $0.time < sim.date(reopen) else { return nil }
            return $0.time.timeIntervalSince(sim.date(0))
        }
    }

    @Test("on: relaunched for a significant change and recording again before the user reopens; off: nothing until then",
          arguments: LocationBackend.allCases)
    func settingsDiffer(backend: LocationBackend) throws {
        let on = try Self.ride(backend: backend, relaunchAfterForceQuit: true)
        let off = try Self.ride(backend: backend, relaunchAfterForceQuit: false)
        let onFixes = try #require(on.engineApp).recordedFixes, offFixes = try #require(off.engineApp).recordedFixes
        func window(_ fixes: [Fix], _ sim: Simulation) -> [Fix] {
            fixes.filter { $0.timestamp > sim.date(Self.forceQuit) && $0.timestamp < sim.date(Self.reopen) }
        }
        // The same ride up to the force-quit.
        #expect(onFixes.filter { $0.timestamp <= on.date(Self.forceQuit) } == offFixes.filter { $0.timestamp <= off.date(Self.forceQuit) })
        #expect(!onFixes.isEmpty)

        // One relaunch, for a location event (a significant change), within a few significant changes (500 m at
        // 5.5 m/s, at most one per 5 min), then recording until the ride's end at about 1135 s.
        #expect(Self.launchesWhileQuit(on).count == 1, "\(backend): setting on: \(Self.launchesWhileQuit(on))")
        #expect(on.stats.launches["location"] == 1)
        #expect(on.log.systemNotes.contains { $0.contains("under 200 m") }, "the first wake finds the device too close")
        let relaunched = window(onFixes, on).map { $0.timestamp.timeIntervalSince(on.date(0)) }
        #expect(relaunched.count >= 50, "\(backend): \(relaunched.count) fixes recorded while force-quit")
        #expect((relaunched.first ?? .infinity) < 900 && (relaunched.last ?? 0) > 1_100, "\(backend): \(relaunched)")

        #expect(Self.launchesWhileQuit(off).isEmpty, "\(backend): setting off")
        #expect(window(offFixes, off).isEmpty)
        #expect(off.log.systemNotes.contains { $0.hasSuffix("(relaunchAfterForceQuit is off)") })
        #expect(off.stats.launches["location"] == nil)
        #expect(onFixes.count >= offFixes.count + 50)
    }
}
