import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

@Suite("§3 visits (CLVisit) [S36]")
struct VisitTests {
    static let home = Fixture.origin
    static let work = Fixture.east(2000)
    static let shop = Fixture.east(4000)

    /// At home until 1200 s, 200 s to work, at work until 2600 s, 200 s to the shop, then at the shop.
    static let day = ScenarioRoute(start: home, legs: [.stop(1200), .travel([work], speed: 10), .stop(1200),
                                                       .travel([shop], speed: 10)])

    static func visiting(route: ScenarioRoute = day, device: DeviceSetup = Fixture.existing(.authorizedAlways),
                         actions: [UserAction] = [], overrides: [String: JSONValue]? = nil,
                         duration: Double = 5000) throws -> Simulation {
        var sim = try Simulation(scenario: Fixture.opened(route: route, device: device, actions: actions,
                                                          overrides: overrides, duration: duration))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.startMonitoringVisits)
        return sim
    }

    static func visits(_ sim: Simulation) -> [(Double, Visit)] {
        sim.received.compactMap { (t: TimedDeviceEvent) -> (Double, Visit)? in
            if case .visit(let v) = t.event { (t.time.timeIntervalSince(sim.epoch), v) } else { nil }
        }
    }

    @Test("arrivals and departures, late, in order; a stay in progress at the start has no arrival date")
    func arrivalsAndDepartures() throws {
        var sim = try Self.visiting()
        sim.run(until: 5000)
        let visits = Self.visits(sim)
        try #require(visits.count == 4)
        let s = { (d: Date?) in d.map { $0.timeIntervalSince(sim.epoch) } }
        // Home: in progress when monitoring started, so only a departure, without arrival date.
        let (homeAt, home) = visits[0]
        #expect(home.arrival == nil)
        #expect(abs(try #require(s(home.departure)) - 1215) <= 1)       // 150 m out at 10 m/s
        #expect((1215 + 60 - 1...1215 + 900 + 1).contains(homeAt))
        // Work: an arrival (no departure yet), then the departure with the same arrival and place.
        let (arrivedAt, arrival) = visits[1], (leftAt, departure) = visits[2]
        let arrivalTime = try #require(s(arrival.arrival))
        #expect((1385...1400).contains(arrivalTime))
        #expect(arrival.departure == nil)
        #expect((arrivalTime + 600 + 60 - 1...arrivalTime + 600 + 900 + 1).contains(arrivedAt))
        #expect(departure.arrival == arrival.arrival)
        #expect(departure.coordinate == arrival.coordinate && departure.horizontalAccuracy == arrival.horizontalAccuracy)
        #expect(abs(try #require(s(departure.departure)) - 2615) <= 1)
        #expect(leftAt >= arrivedAt)
        // The shop: an arrival.
        #expect(visits[3].1.departure == nil && visits[3].1.arrival != nil)
        for (_, visit) in visits {
            #expect((30...150).contains(visit.horizontalAccuracy))
            let place = [Self.home, Self.work, Self.shop].map { Geodesy.haversineDistance($0, visit.coordinate) }.min() ?? .infinity
            #expect(place <= 4 * visit.horizontalAccuracy)
        }
    }

    @Test("a stop shorter than the minimum stay is no visit; a lower setting makes it one")
    func minimumStay() throws {
        // 200 s to work, 300 s there, then on the road until 1500 s.
        let errand = ScenarioRoute(start: Self.home, legs: [.travel([Self.work], speed: 10), .stop(300),
                                                            .travel([Fixture.east(12_000)], speed: 10)])
        var short = try Self.visiting(route: errand, duration: 1400)
        short.run(until: 1400)
        #expect(Self.visits(short).isEmpty)

        var lower = try Self.visiting(route: errand, overrides: ["visitMinimumStaySeconds": .number(200),
                                                                 "visitReportDelayMaxSeconds": .number(60)], duration: 1400)
        lower.run(until: 1400)
        #expect(Self.visits(lower).map { $0.1.departure == nil } == [true, false])   // arrival and departure at work
    }

    @Test("a visit relaunches a terminated always app, with the location launch reason")
    func relaunch() throws {
        var sim = try Self.visiting(actions: [UserAction(at: 30, .systemTerminate)])
        sim.run(until: 5000)
        #expect(sim.stats.launches["location", default: 0] >= 1)
        #expect(sim.log.systemNotes.contains { $0.hasPrefix("launched (location)") })
    }

    @Test("visits never relaunch a force-quit app [S25], though significant changes do")
    func noRelaunchAfterForceQuit() throws {
        var sim = try Self.visiting(actions: [UserAction(at: 30, .forceQuit)])
        sim.run(until: 5000)
        #expect(sim.stats.launches["location"] == nil)
        #expect(sim.log.systemNotes.contains { $0.hasPrefix("no relaunch after force-quit: visit dropped (visits never relaunch") })
    }

    @Test("without always authorization a terminated app is not relaunched")
    func needsAlways() throws {
        var sim = try Self.visiting(device: Fixture.existing(.authorizedWhenInUse), actions: [UserAction(at: 30, .systemTerminate)])
        sim.run(until: 5000)
        #expect(sim.stats.launches["location"] == nil)
        #expect(sim.log.systemNotes.contains { $0.hasPrefix("no relaunch: visit needs always authorization") })
    }

    @Test("with Precise Location off, visits use reduced accuracy (Apple) [S36]")
    func reducedAccuracy() throws {
        var sim = try Self.visiting(device: DeviceSetup(install: .existing, location: .authorizedAlways, preciseLocation: false))
        sim.run(until: 5000)
        #expect(!Self.visits(sim).isEmpty)
        #expect(Self.visits(sim).allSatisfy { $0.1.horizontalAccuracy >= 1000 })
    }

    @Test("with location denied, monitoring fails with denied")
    func denied() throws {
        var sim = try Self.visiting(device: Fixture.existing(.denied))
        #expect(sim.locationErrors == [.denied])
        sim.run(until: 5000)
        #expect(Self.visits(sim).isEmpty)
    }

    @Test("stopping ends the reports; monitoring costs 0.002 per second, like region monitoring (§8)")
    func stopAndEnergy() throws {
        var sim = try Self.visiting(duration: 6000)
        sim.run(until: 1000)
        #expect(abs(sim.energy[.regionMonitoring] - 1000 * 0.002) < 0.01)
        sim.perform(.stopMonitoringVisits)
        sim.run(until: 6000)
        #expect(Self.visits(sim).isEmpty)
        #expect(abs(sim.energy[.regionMonitoring] - 1000 * 0.002) < 0.01)
    }
}
