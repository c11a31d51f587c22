import Foundation
import Testing
import WaymarkEngine
@testable import WaymarkSimulator

@Suite("§7 motion activity")
struct MotionTests {
    static func motion(_ route: ScenarioRoute, permission: DeviceSetup.PermissionSetting = .granted,
                       setup: MotionSetup? = nil) throws -> Simulation {
        var sim = try Simulation(scenario: Fixture.opened(route: route, device: Fixture.existing(.authorizedWhenInUse, motion: permission),
                                                          motion: setup))
        sim.run(until: 0)
        sim.perform(.startMotionActivityUpdates)
        return sim
    }

    @Test("walking is reported about 30 s after it starts, with high confidence")
    func walkingLag() throws {
        var sim = try Self.motion(Fixture.eastbound(speed: 1.4, seconds: 600, after: 100))
        sim.run(until: 400)
        let walking = try #require(sim.motionActivities.first { $0.1.kind == .walking })
        #expect(abs(walking.0 - 130) <= 1.5)
        #expect(walking.1.confidence == .high)
        #expect(sim.motionActivities.first?.1.kind == .stationary)
    }

    @Test("cycling is detected later and with less confidence")
    func cyclingLag() throws {
        var sim = try Self.motion(Fixture.eastbound(speed: 6, seconds: 600, after: 100, activity: .cycling))
        sim.run(until: 400)
        let cycling = try #require(sim.motionActivities.first { $0.1.kind == .cycling })
        #expect(abs(cycling.0 - 190) <= 1.5)
        #expect(cycling.1.confidence < .high)
    }

    @Test("an activity shorter than the lag is never reported")
    func shortActivity() throws {
        let route = ScenarioRoute(start: Fixture.origin, legs: [.stop(100), .travel([Fixture.east(20)], speed: 1.4), .stop(600)])
        var sim = try Self.motion(route)
        sim.run(until: 700)
        #expect(!sim.motionActivities.contains { $0.1.kind == .walking })
    }

    @Test("motion needs its own prompt; denied means no updates")
    func permission() throws {
        var asked = try Self.motion(Fixture.eastbound(speed: 1.4, seconds: 600), permission: .notDetermined)
        asked.run(until: 100)
        #expect(asked.stats.promptsShown == 1)
        #expect(!asked.motionActivities.isEmpty)
        var denied = try Self.motion(Fixture.eastbound(speed: 1.4, seconds: 600), permission: .denied)
        denied.run(until: 100)
        #expect(denied.motionActivities.isEmpty)
    }

    @Test("scripted motion is reported as written")
    func scripted() throws {
        let setup = MotionSetup(mode: .scripted, script: [.init(at: 10, activity: .automotive, confidence: .medium)])
        var sim = try Self.motion(Fixture.eastbound(speed: 1.4, seconds: 600), setup: setup)
        sim.run(until: 100)
        #expect(sim.motionActivities.map(\.1) == [MotionActivity(.automotive, confidence: .medium)])
        #expect(sim.motionActivities.first?.0 == 10)
    }

    @Test("a stop after a leg with an explicit activity is stationary, and the next leg keeps its own")
    func stopAfterExplicitActivity() throws {
        let park = Fixture.east(3_000)
        let trajectory = Trajectory(start: Fixture.origin, legs: [
            .travel([park], speed: 6, activity: .cycling), .stop(8 * 3_600),
            .travel([Fixture.origin], speed: 1.4, activity: .walking)])
        #expect(trajectory.state(at: 250).activity == .cycling)
        for hour in 1...7 {
            let t = 500 + Double(hour) * 3_600
            #expect(trajectory.state(at: t).activity == .stationary, "hour \(hour) of the park")
            #expect(trajectory.state(at: t).speed == 0)
        }
        #expect(trajectory.state(at: 500 + 8 * 3_600 + 60).activity == .walking)
    }

    @Test("motion reports stationary during a park that follows a cycling leg")
    func parkAfterCycling() throws {
        let route = ScenarioRoute(start: Fixture.origin, legs: [.travel([Fixture.east(1_800)], speed: 6, activity: .cycling),
                                                              .stop(3_600)])
        var sim = try Self.motion(route)
        sim.run(until: 3_000)
        let last = try #require(sim.motionActivities.last)
        #expect(last.1.kind == .stationary)
        #expect(last.0 > 300 && last.0 < 600)
    }
}
