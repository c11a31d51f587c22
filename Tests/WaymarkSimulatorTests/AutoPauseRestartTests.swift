import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

/// A tracker that starts fitness updates at launch, watches a fence around the start, and calls
/// start again on the region exit and when it returns to the foreground — the documented way to
/// get going again after an automatic pause: Core Location never resumes by itself, and reports
/// `locationManagerDidResumeLocationUpdates` when the app's start resumes them [S23].
private struct RestartingApp: SimulatedApp {
    static let home = MonitoredRegion(identifier: "home", center: Fixture.origin, radiusMeters: 300)
    var config = LocationConfiguration(activityType: .fitness, allowsBackgroundLocationUpdates: true)

    mutating func handle(_ event: DeviceEvent, at time: Date) -> [DeviceCommand] {
        switch event {
        case .launched: [.createLocationManager, .startUpdatingLocation(config), .startMonitoring(Self.home)]
        case .regionExited, .willEnterForeground: [.startUpdatingLocation(config)]
        default: []
        }
    }
}

@Suite("§4 restarting standard updates after an automatic pause")
struct AutoPauseRestartTests {
    /// Still for 20 min, then 3 km east at 5 m/s.
    static let route = ScenarioRoute(start: Fixture.origin, legs: [.stop(1200), .travel([Fixture.east(3000)], speed: 5)])

    static func seconds(_ sim: Simulation, _ fixes: [Fix]) -> [Double] {
        fixes.map { $0.timestamp.timeIntervalSince(sim.epoch) }
    }

    @Test("paused in the background and suspended: a region exit wakes the app, and its start resumes delivery")
    func restartOnRegionExit() throws {
        let scenario = Fixture.opened(route: Self.route, device: Fixture.existing(.authorizedAlways, modes: [.location]),
                                      actions: [UserAction(at: 60, .background)], overrides: Fixture.noCache)
        var sim = try Simulation(scenario: scenario, app: RestartingApp())
        sim.run(until: 1250)
        #expect(sim.times { $0 == .locationUpdatesPaused }.count == 1)
        #expect(sim.appState == .suspended)
        sim.run(until: 1800)
        let exit = try #require(sim.times { $0 == .regionExited(identifier: "home") }.first)
        let after = Self.seconds(sim, sim.fixes).filter { $0 > exit }
        #expect(after.count >= Int(1800 - exit) - 10, "fixes flow again at about 1 Hz after the restart")
        #expect(after.contains { $0 > 1790 })
        #expect(sim.appState == .background, "background location keeps the woken app running")
        #expect(sim.times { $0 == .locationUpdatesResumed } == [exit], "resumed only by the app's start, and told so")
    }

    @Test("paused in the foreground: a start when the user returns resumes delivery at once, before any movement")
    func restartInForeground() throws {
        let scenario = Fixture.opened(route: Self.route, device: Fixture.existing(.authorizedWhenInUse, modes: [.location]),
                                      actions: [UserAction(at: 400, .background), UserAction(at: 500, .open)],
                                      overrides: Fixture.noCache)
        var sim = try Simulation(scenario: scenario, app: RestartingApp())
        sim.run(until: 600)
        #expect(sim.times { $0 == .locationUpdatesPaused } .count == 1)
        #expect(sim.times { $0 == .locationUpdatesResumed } == [500])
        let times = Self.seconds(sim, sim.fixes)
        #expect(!times.contains { $0 > 302 && $0 < 500 })
        #expect(times.filter { $0 >= 500 && $0 <= 600 }.count >= 95, "the device is still, so only the start resumed it")
    }

    @Test("paused in the background, a silent push: a when-in-use app's start is ignored, an Always app's start resumes delivery",
          arguments: [LocationAuthorizationStatus.authorizedWhenInUse, .authorizedAlways])
    func restartFromSilentPush(status: LocationAuthorizationStatus) throws {
        // When-in-use: only while in use [S22]; Always: from any background wake (WWDC19 705) [S5].
        let scenario = Fixture.opened(route: Self.route, device: Fixture.existing(status, modes: [.location]),
                                      actions: [UserAction(at: 60, .background), UserAction(at: 1000, .silentPush)],
                                      overrides: Fixture.noCache)
        var sim = try Simulation(scenario: scenario, seed: 1)
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        let config = LocationConfiguration(activityType: .fitness, allowsBackgroundLocationUpdates: true)
        sim.perform(.startUpdatingLocation(config))
        sim.run(until: 1000)
        #expect(sim.appState == .background)
        sim.perform(.startUpdatingLocation(config))
        sim.run(until: 1180)
        if status == .authorizedAlways {
            #expect(sim.stats.startsIgnoredInBackground == 0)
            #expect(sim.times { $0 == .locationUpdatesResumed } == [1000])
            #expect(Self.seconds(sim, sim.fixes).filter { $0 > 1000 }.count >= 170)
            #expect(sim.appState == .background, "background location keeps the app running after the push's 30 s")
        } else {
            #expect(sim.stats.startsIgnoredInBackground == 1)
            #expect(sim.times { $0 == .locationUpdatesResumed }.isEmpty)
            #expect(!Self.seconds(sim, sim.fixes).contains { $0 > 310 })
            #expect(sim.appState == .suspended)
        }
    }
}
