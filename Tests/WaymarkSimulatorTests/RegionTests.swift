import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

@Suite("§6 region monitoring")
struct RegionTests {
    static let far = MonitoredRegion(identifier: "office", center: Fixture.east(2000), radiusMeters: 300)

    static func monitoring(_ regions: [MonitoredRegion], route: ScenarioRoute? = nil,
                           device: DeviceSetup = Fixture.existing(.authorizedAlways), actions: [UserAction] = [],
                           overrides: [String: JSONValue]? = nil) throws -> Simulation {
        var sim = try Simulation(scenario: Fixture.opened(route: route, device: device, actions: actions, overrides: overrides))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        for region in regions { sim.perform(.startMonitoring(region)) }
        return sim
    }

    static func region(_ i: Int) -> MonitoredRegion {
        MonitoredRegion(identifier: "r\(i)", center: Fixture.east(Double(5000 + i * 1000)), radiusMeters: 200)
    }

    @Test("at most 20 regions: the 21st fails with tooManyRegions")
    func slotLimit() throws {
        let sim = try Self.monitoring((0..<21).map(Self.region))
        #expect(sim.monitoredRegionIdentifiers.count == 20)
        #expect(sim.received.last?.event == .regionMonitoringFailed(identifier: "r20", reason: .tooManyRegions))
    }

    @Test("the 20 slots are shared with regions the host app already monitors")
    func sharedSlots() throws {
        let host = (100..<105).map(Self.region)
        let sim = try Self.monitoring((0..<16).map(Self.region),
                                      device: Fixture.existing(.authorizedAlways, regions: host))
        #expect(sim.monitoredRegionIdentifiers.count == 20)
        #expect(sim.received.last?.event == .regionMonitoringFailed(identifier: "r15", reason: .tooManyRegions))
    }

    @Test("small radii behave like 100–200 m; huge radii are clamped to the maximum")
    func radiusClamp() throws {
        let tiny = MonitoredRegion(identifier: "tiny", center: Fixture.east(5000), radiusMeters: 20)
        let huge = MonitoredRegion(identifier: "huge", center: Fixture.east(5000), radiusMeters: 1_000_000)
        let sim = try Self.monitoring([tiny, huge])
        #expect((100...200).contains(try #require(sim.effectiveRadius(ofRegion: "tiny"))))
        #expect(sim.effectiveRadius(ofRegion: "huge") == 400_000)
    }

    @Test("an enter fires only after buffer and dwell, then arrives after the latency")
    func bufferDwellLatency() throws {
        // 300 m radius 2000 m east: the boundary is at 1700 m, boundary minus buffer at 1750 m, reached at 175 s at 10 m/s.
        var sim = try Self.monitoring([Self.far], route: Fixture.eastbound(speed: 10, seconds: 200))
        sim.run(until: 400)
        let entered = sim.times { $0 == .regionEntered(identifier: "office") }
        #expect(entered.count == 1)
        let at = try #require(entered.first)
        #expect(abs(at - (175 + 20 + 60)) <= 2)
    }

    @Test("the latency is a platform setting (field reports of 3–5 min)")
    func latencyOverride() throws {
        var sim = try Self.monitoring([Self.far], route: Fixture.eastbound(speed: 10, seconds: 200),
                                      overrides: ["regionLatencySeconds": .number(240)])
        sim.run(until: 600)
        #expect(abs((sim.times { $0 == .regionEntered(identifier: "office") }.first ?? 0) - (175 + 20 + 240)) <= 2)
    }

    @Test("a brief incursion shorter than the dwell fires nothing")
    func briefIncursion() throws {
        let route = ScenarioRoute(start: Fixture.origin, legs: [.travel([Fixture.east(1800)], speed: 10),
                                                               .travel([Fixture.origin], speed: 10)])
        var sim = try Self.monitoring([Self.far], route: route)
        sim.run(until: 600)
        #expect(sim.times { $0 == .regionEntered(identifier: "office") }.isEmpty)
    }

    @Test("no enter for a region the device is already inside; the state request says inside")
    func alreadyInside() throws {
        let home = MonitoredRegion(identifier: "home", center: Fixture.origin, radiusMeters: 300)
        var sim = try Self.monitoring([home])
        sim.run(until: 600)
        #expect(sim.times { $0 == .regionEntered(identifier: "home") }.isEmpty)
        sim.perform(.requestRegionState(identifier: "home"))
        sim.perform(.requestRegionState(identifier: "office"))
        #expect(sim.received.last?.event == .regionState(identifier: "home", state: .inside))
    }

    @Test("an exit fires when leaving, and the state request then says outside")
    func exit() throws {
        let home = MonitoredRegion(identifier: "home", center: Fixture.origin, radiusMeters: 300)
        var sim = try Self.monitoring([home], route: Fixture.eastbound(speed: 10, seconds: 100))
        sim.run(until: 300)
        #expect(sim.times { $0 == .regionExited(identifier: "home") }.count == 1)
        sim.perform(.requestRegionState(identifier: "home"))
        #expect(sim.received.last?.event == .regionState(identifier: "home", state: .outside))
    }

    @Test("monitored regions persist across launches and relaunch a terminated app with the region reason")
    func persistenceAndRelaunch() throws {
        var sim = try Self.monitoring([Self.far], route: Fixture.eastbound(speed: 10, seconds: 200, after: 100),
                                      actions: [UserAction(at: 10, .systemTerminate)])
        sim.run(until: 60)
        #expect(sim.appState == .notRunning)
        #expect(sim.monitoredRegionIdentifiers == ["office"])
        sim.run(until: 500)
        #expect(sim.stats.launches["region"] == 1)
        #expect(sim.times { $0 == .regionEntered(identifier: "office") }.isEmpty)   // not until the manager exists
        #expect(sim.appState == .suspended)                                         // ~10 s budget, unused
    }

    @Test("a crossing relaunches a terminated app only with always authorization")
    func relaunchNeedsAlways() throws {
        var sim = try Self.monitoring([Self.far], route: Fixture.eastbound(speed: 10, seconds: 200, after: 100),
                                      device: Fixture.existing(.authorizedWhenInUse),
                                      actions: [UserAction(at: 10, .systemTerminate)])
        sim.run(until: 500)
        #expect(sim.appState == .notRunning)
        #expect(sim.stats.launches["region"] == nil)
        #expect(sim.log.systemNotes.contains { $0.hasPrefix("no relaunch: regionEntered needs always authorization") })
    }

    @Test("the relaunch budget is about 10 s, about 30 s with a background task")
    func relaunchBudget() throws {
        var sim = try Self.monitoring([Self.far], route: Fixture.eastbound(speed: 10, seconds: 200, after: 100),
                                      actions: [UserAction(at: 10, .systemTerminate)])
        var probe = sim   // a value: run a copy ahead to learn when the relaunch happens
        probe.run(until: 400)
        let launched = try #require(probe.times { $0 == .launched(reason: .location) }.first)
        sim.run(until: launched)
        sim.perform(.createLocationManager)
        #expect(sim.received.last?.event == .regionEntered(identifier: "office"))
        sim.perform(.beginBackgroundTask(id: 1))
        sim.run(until: launched + 20)
        #expect(sim.appState == .background)
        sim.run(until: launched + 30)
        #expect(sim.received.last?.event == .backgroundTaskExpired(id: 1))
        sim.perform(.endBackgroundTask(id: 1))
        sim.run(until: launched + 31)
        #expect(sim.appState == .suspended)
    }

    @Test("no relaunch on a crossing after a force-quit")
    func noRelaunchAfterForceQuit() throws {
        var sim = try Self.monitoring([Self.far], route: Fixture.eastbound(speed: 10, seconds: 200, after: 100),
                                      actions: [UserAction(at: 10, .forceQuit)])
        sim.run(until: 600)
        #expect(sim.stats.launches["region"] == nil)
        #expect(sim.log.systemNotes.contains { $0.hasPrefix("no relaunch after force-quit") })
    }

    @Test("monitoring needs location authorization")
    func needsAuthorization() throws {
        let sim = try Self.monitoring([Self.far], device: Fixture.existing(.denied))
        #expect(sim.received.last?.event == .regionMonitoringFailed(identifier: "office", reason: .denied))
    }
}
