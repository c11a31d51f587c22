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
                           world: World? = nil) throws -> Simulation {
        var sim = try Simulation(scenario: Fixture.opened(route: route, device: Fixture.existing(.authorizedAlways), world: world))
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

    @Test("within the buffer of the boundary the side cannot be told: unknown, and no event when it is decided")
    func bufferBand() throws {
        let edge = MonitoredRegion(identifier: "edge", center: Fixture.east(320), radiusMeters: 300)  // 20 m outside
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
        var sim = try Self.monitoring(route: Fixture.eastbound(speed: 10, seconds: 100), world: world)
        sim.run(until: 600)
        let exits = sim.times { $0 == .regionExited(identifier: "home") }
        #expect(exits.count == 1)
        // Out by the buffer at 35 s; without the outage the exit would arrive at about 35 + 20 + 60 s.
        #expect(exits.allSatisfy { $0 >= 200 + 20 + 60 - 1 })
    }
}
