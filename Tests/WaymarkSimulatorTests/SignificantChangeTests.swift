import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

@Suite("§5 significant location changes")
struct SignificantChangeTests {
    static func slc(speed: Double, seconds: Double, status: LocationAuthorizationStatus = .authorizedAlways,
                    actions: [UserAction] = [], profile: IOSProfile? = nil) throws -> Simulation {
        var sim = try Simulation(scenario: Fixture.opened(route: Fixture.eastbound(speed: speed, seconds: seconds),
                                                          device: Fixture.existing(status), actions: actions, profile: profile))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.startSignificantChanges)
        return sim
    }

    static func changes(_ sim: Simulation) -> [(Double, Fix)] {
        sim.received.compactMap { (t: TimedDeviceEvent) -> (Double, Fix)? in
            if case .significantChange(let f) = t.event { (t.time.timeIntervalSince(sim.epoch), f) } else { nil }
        }
    }

    @Test("fires after about 500 m, at most every 5 min, with cell-level accuracy")
    func distanceAndInterval() throws {
        var fast = try Self.slc(speed: 20, seconds: 3600)   // 500 m every 25 s: the interval limits
        fast.run(until: 3600)
        let times = Self.changes(fast).map(\.0)
        #expect(times.first == 0)                           // the current position on start
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= 300 })
        #expect(times.count == 13)
        #expect(Self.changes(fast).allSatisfy { (500...2000).contains($0.1.horizontalAccuracy ?? 0) && $0.1.source == .cell })

        var slow = try Self.slc(speed: 0.5, seconds: 3600)  // 500 m takes 1000 s: the distance limits
        slow.run(until: 3600)
        let slowTimes = Self.changes(slow).map(\.0)
        #expect(slowTimes.count == 4)
        #expect(zip(slowTimes, [0.0, 1000, 2000, 3000]).allSatisfy { abs($0 - $1) <= 1 })
    }

    @Test("relaunches a terminated app in the background; the event arrives once the manager exists")
    func relaunch() throws {
        var sim = try Self.slc(speed: 10, seconds: 3600, actions: [UserAction(at: 30, .systemTerminate)])
        sim.run(until: 299)
        #expect(sim.appState == .notRunning)
        sim.run(until: 300)
        #expect(sim.appState == .background)
        #expect(sim.received.last?.event == .launched(reason: .location))
        #expect(Self.changes(sim).count == 1)               // held for the location manager
        sim.perform(.createLocationManager)
        #expect(Self.changes(sim).count == 2)
        sim.run(until: 311)
        #expect(sim.appState == .suspended)                 // about 10 s to handle it
    }

    @Test("after a force-quit current iOS does not relaunch; iOS 12 did", arguments: [(IOSProfile.ios18, false), (.ios12, true)])
    func forceQuit(profile: IOSProfile, relaunches: Bool) throws {
        var sim = try Self.slc(speed: 10, seconds: 3600, actions: [UserAction(at: 30, .forceQuit)], profile: profile)
        sim.run(until: 3600)
        #expect((sim.stats.launches["location"] ?? 0 > 0) == relaunches)
    }

    @Test("relaunch needs always authorization")
    func needsAlways() throws {
        var sim = try Self.slc(speed: 10, seconds: 3600, status: .authorizedWhenInUse, actions: [UserAction(at: 30, .systemTerminate)])
        sim.run(until: 3600)
        #expect(sim.stats.launches["location"] == nil)
    }

    @Test("costs very little energy compared with GNSS")
    func energy() throws {
        var sim = try Self.slc(speed: 10, seconds: 3600, actions: [UserAction(at: 30, .systemTerminate)])
        sim.run(until: 3600)
        #expect(abs(sim.energy[.significantChange] - 3600 * 0.002) < 0.01)
        #expect(sim.energy[.gnss] == 0)
    }
}
