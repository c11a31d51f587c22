import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

@Suite("§6 region state: inside, outside or unknown")
struct RegionStateTests {
    static let home = MonitoredRegion(identifier: "home", center: Fixture.origin, radiusMeters: 300)

    static func state(_ sim: inout Simulation, _ identifier: String = "home") -> RegionState? {
        sim.perform(.requestRegionState(identifier: identifier))
        if case .regionState(_, let state)? = sim.received.last?.event { return state }
        return nil
    }

    static func monitoring(_ region: MonitoredRegion = home, route: ScenarioRoute? = nil,
                           world: World? = nil, overrides: [String: JSONValue]? = nil) throws -> Simulation {
        var sim = try Simulation(scenario: Fixture.opened(route: route, device: Fixture.existing(.authorizedAlways), world: world,
                                                          overrides: overrides))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.startMonitoring(region))
        return sim
    }

    @Test("right after registering the state is unknown; a couple of seconds later it is known")
    func rightAfterStart() throws {
        var sim = try Self.monitoring()
        #expect(Self.state(&sim) == .unknown)
        sim.run(until: 1)
        #expect(Self.state(&sim) == .unknown)
        sim.run(until: 3)
        #expect(Self.state(&sim) == .inside)
    }

    @Test("regions persisted from an earlier launch are known at once")
    func persistedKnown() throws {
        var sim = try Simulation(scenario: Fixture.opened(device: Fixture.existing(.authorizedAlways, regions: [Self.home])))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        #expect(Self.state(&sim) == .inside)
    }

    @Test("within the crossing distances of the boundary the side cannot be told: unknown, and no event when it is decided")
    func bufferBand() throws {
        // 20 m outside; the side is known 200 m outside (GNSS off), reached at 600 + 90 s.
        let edge = MonitoredRegion(identifier: "edge", center: Fixture.east(320), radiusMeters: 300)
        let route = ScenarioRoute(start: Fixture.origin, legs: [.stop(600), .travel([Fixture.east(-500)], speed: 2)])
        var sim = try Self.monitoring(edge, route: route)
        sim.run(until: 600)
        #expect(Self.state(&sim, "edge") == .unknown)
        sim.run(until: 1000)
        #expect(Self.state(&sim, "edge") == .outside)
        #expect(sim.times { if case .regionExited = $0 { true } else { false } }.isEmpty)
    }

    @Test("registered where no position is available (an outage), the state stays unknown until it ends")
    func outage() throws {
        let world = World(outages: [World.Outage(window: TimeWindow(from: 0, to: 120))])
        var sim = try Self.monitoring(world: world)
        sim.run(until: 100)
        #expect(Self.state(&sim) == .unknown)
        sim.run(until: 200)
        #expect(Self.state(&sim) == .inside)
        #expect(sim.times { $0 == .regionEntered(identifier: "home") }.isEmpty)
    }

    @Test("no crossing is decided without a position: the exit waits for the outage to end")
    func crossingWaitsForPosition() throws {
        let world = World(outages: [World.Outage(window: TimeWindow(from: 20, to: 200))])
        var sim = try Self.monitoring(route: Fixture.eastbound(speed: 10, seconds: 100), world: world, overrides: RegionTests.fixedLatency)
        sim.run(until: 600)
        let exits = sim.times { $0 == .regionExited(identifier: "home") }
        #expect(exits.count == 1)
        // 200 m out at 50 s; without the outage the exit would arrive at about 51 + 20 + 60 s.
        #expect(exits.allSatisfy { $0 >= 200 + 20 + 60 - 1 })
    }
}

@Suite("§5 didDetermineState: after registration and on every transition [S29]")
struct RegionStateCallbackTests {
    static func states(_ sim: Simulation, _ identifier: String) -> [(Double, RegionState)] {
        sim.received.compactMap { timed in
            if case .regionState(identifier, let state) = timed.event { (timed.time.timeIntervalSince(sim.epoch), state) } else { nil }
        }
    }

    @Test("once after registration, when the state is determined; an immediate request still answers unknown")
    func afterRegistration() throws {
        var sim = try RegionStateTests.monitoring()
        #expect(RegionStateTests.state(&sim) == .unknown)   // the immediate request
        sim.run(until: 600)
        let states = Self.states(sim, "home")
        #expect(states.map(\.1) == [.unknown, .inside])
        let reported = try #require(states.last?.0)
        #expect(reported >= 2 && reported <= 3)
    }

    @Test("registered near the boundary: the callback waits until the side is known")
    func afterRegistrationNearBoundary() throws {
        let edge = MonitoredRegion(identifier: "edge", center: Fixture.east(320), radiusMeters: 300)
        let route = ScenarioRoute(start: Fixture.origin, legs: [.stop(600), .travel([Fixture.east(-500)], speed: 2)])
        var sim = try RegionStateTests.monitoring(edge, route: route)
        sim.run(until: 1000)
        let states = Self.states(sim, "edge")
        #expect(states.map(\.1) == [.outside])
        #expect(try #require(states.first?.0) > 690)
    }

    @Test("persisted regions report nothing at launch (no registration in this process)")
    func persistedSilent() throws {
        var sim = try Simulation(scenario: Fixture.opened(device: Fixture.existing(.authorizedAlways, regions: [RegionStateTests.home])))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.run(until: 600)
        #expect(Self.states(sim, "home").isEmpty)
    }

    @Test("every enter and exit is followed by didDetermineState with the new state")
    func onTransitions() throws {
        // Out of home (exit), into a region 2 km east (enter), out of it again (exit).
        let office = MonitoredRegion(identifier: "office", center: Fixture.east(2000), radiusMeters: 300)
        var sim = try Simulation(scenario: Fixture.opened(route: Fixture.eastbound(speed: 10, seconds: 300),
                                                          device: Fixture.existing(.authorizedAlways, regions: [RegionStateTests.home, office]),
                                                          overrides: RegionTests.fixedLatency))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.run(until: 600)
        let regionEvents = sim.received.map(\.event).filter {
            switch $0 {
            case .regionEntered, .regionExited, .regionState: true
            default: false
            }
        }
        #expect(regionEvents == [.regionExited(identifier: "home"), .regionState(identifier: "home", state: .outside),
                                 .regionEntered(identifier: "office"), .regionState(identifier: "office", state: .inside),
                                 .regionExited(identifier: "office"), .regionState(identifier: "office", state: .outside)])
    }
}
