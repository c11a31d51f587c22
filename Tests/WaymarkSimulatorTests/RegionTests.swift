import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

@Suite("§6 region monitoring")
struct RegionTests {
    static let far = MonitoredRegion(identifier: "office", center: Fixture.east(2000), radiusMeters: 300)

    /// A fixed 60 s latency and no misses (issue #14: both are drawn by default), for tests about
    /// geometry, order and relaunch rather than latency.
    static let fixedLatency: [String: JSONValue] = ["regionLatencySeconds": .number(60), "regionMissProbability": .number(0)]

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

    @Test("small radii behave like about 200 m (never smaller than asked) [S27]; a radius over the maximum fails, it is not clamped [S30]")
    func radiusTooLarge() throws {
        let tiny = MonitoredRegion(identifier: "tiny", center: Fixture.east(5000), radiusMeters: 20)
        let almost = MonitoredRegion(identifier: "almost", center: Fixture.east(5000), radiusMeters: 190)
        let huge = MonitoredRegion(identifier: "huge", center: Fixture.east(5000), radiusMeters: 1_000_000)
        let sim = try Self.monitoring([tiny, almost, huge])
        #expect((150...250).contains(try #require(sim.effectiveRadius(ofRegion: "tiny"))))
        #expect((190...250).contains(try #require(sim.effectiveRadius(ofRegion: "almost"))))
        #expect(sim.effectiveRadius(ofRegion: "huge") == nil)
        #expect(sim.monitoredRegionIdentifiers == ["tiny", "almost"])
        #expect(sim.received.last?.event == .regionMonitoringFailed(identifier: "huge", reason: .radiusTooLarge))
    }

    @Test("a device reporting maximumRegionMonitoringDistance −1: every registration fails as unavailable [S26]")
    func monitoringUnavailableOnDevice() throws {
        let sim = try Self.monitoring([Self.far], overrides: ["maxRegionRadiusMeters": .number(-1)])
        #expect(sim.monitoredRegionIdentifiers.isEmpty)
        #expect(sim.received.last?.event == .regionMonitoringFailed(identifier: "office", reason: .unavailable))
    }

    @Test("an enter counts 100 m inside the boundary (GNSS off) after the 20 s dwell, then arrives after the latency")
    func crossingDistanceDwellLatency() throws {
        // 300 m radius 2000 m east: the boundary is at 1700 m, 100 m inside it at 1800 m, passed at 180 s at 10 m/s
        // (the first tick beyond: 181 s); committed 20 s later; 60 s of latency. (The old 50 m buffer: 175 + 20 + 60.)
        var sim = try Self.monitoring([Self.far], route: Fixture.eastbound(speed: 10, seconds: 200), overrides: Self.fixedLatency)
        sim.run(until: 400)
        let entered = sim.times { $0 == .regionEntered(identifier: "office") }
        #expect(entered.count == 1)
        let at = try #require(entered.first)
        #expect(abs(at - (181 + 20 + 60)) <= 1)
    }

    @Test("a fixed latency replaces the drawn one (regionLatencySeconds)")
    func latencyOverride() throws {
        var sim = try Self.monitoring([Self.far], route: Fixture.eastbound(speed: 10, seconds: 200),
                                      overrides: ["regionLatencySeconds": .number(240), "regionMissProbability": .number(0)])
        sim.run(until: 600)
        #expect(abs((sim.times { $0 == .regionEntered(identifier: "office") }.first ?? 0) - (181 + 20 + 240)) <= 1)
    }

    @Test("a brief incursion shorter than the dwell fires nothing")
    func briefIncursion() throws {
        // 50 m past the entry distance and back at 10 m/s: 10 s beyond it, under the 20 s dwell.
        let route = ScenarioRoute(start: Fixture.origin, legs: [.travel([Fixture.east(1850)], speed: 10),
                                                               .travel([Fixture.origin], speed: 10)])
        var sim = try Self.monitoring([Self.far], route: route, overrides: Self.fixedLatency)
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
        var sim = try Self.monitoring([home], route: Fixture.eastbound(speed: 10, seconds: 100), overrides: Self.fixedLatency)
        sim.run(until: 300)
        #expect(sim.times { $0 == .regionExited(identifier: "home") }.count == 1)
        sim.perform(.requestRegionState(identifier: "home"))
        #expect(sim.received.last?.event == .regionState(identifier: "home", state: .outside))
    }

    @Test("monitored regions persist across launches and relaunch a terminated app with the location reason (one launch key [S14])")
    func persistenceAndRelaunch() throws {
        var sim = try Self.monitoring([Self.far], route: Fixture.eastbound(speed: 10, seconds: 200, after: 100),
                                      actions: [UserAction(at: 10, .systemTerminate)], overrides: Self.fixedLatency)
        sim.run(until: 60)
        #expect(sim.appState == .notRunning)
        #expect(sim.monitoredRegionIdentifiers == ["office"])
        sim.run(until: 500)
        #expect(sim.stats.launches["location"] == 1)
        #expect(sim.stats.launches["region"] == nil)
        #expect(sim.times { $0 == .regionEntered(identifier: "office") }.isEmpty)   // not until the manager exists
        #expect(sim.appState == .suspended)                                         // ~10 s budget, unused
    }

    @Test("a crossing relaunches a terminated app only with always authorization")
    func relaunchNeedsAlways() throws {
        var sim = try Self.monitoring([Self.far], route: Fixture.eastbound(speed: 10, seconds: 200, after: 100),
                                      device: Fixture.existing(.authorizedWhenInUse),
                                      actions: [UserAction(at: 10, .systemTerminate)], overrides: Self.fixedLatency)
        sim.run(until: 500)
        #expect(sim.appState == .notRunning)
        #expect(sim.stats.launches["location"] == nil)
        #expect(sim.log.systemNotes.contains { $0.hasPrefix("no relaunch: regionEntered needs always authorization") })
    }

    @Test("the relaunch budget is about 10 s, about 30 s with a background task")
    func relaunchBudget() throws {
        var sim = try Self.monitoring([Self.far], route: Fixture.eastbound(speed: 10, seconds: 200, after: 100),
                                      actions: [UserAction(at: 10, .systemTerminate)], overrides: Self.fixedLatency)
        var probe = sim   // a value: run a copy ahead to learn when the relaunch happens
        probe.run(until: 400)
        let launched = try #require(probe.times { $0 == .launched(reason: .background) }.first)   // UIScene (default): no launch key
        sim.run(until: launched)
        sim.perform(.createLocationManager)
        #expect(sim.received.suffix(2).map(\.event) == [.regionEntered(identifier: "office"),
                                                        .regionState(identifier: "office", state: .inside)])
        sim.perform(.beginBackgroundTask(id: 1))
        sim.run(until: launched + 20)
        #expect(sim.appState == .background)
        sim.run(until: launched + 30)
        #expect(sim.received.last?.event == .backgroundTaskExpired(id: 1))
        sim.perform(.endBackgroundTask(id: 1))
        sim.run(until: launched + 31)
        #expect(sim.appState == .suspended)
    }

    @Test("after a force-quit a crossing relaunches the app with relaunchAfterForceQuit (current iOS [S25]); not without it",
          arguments: [true, false])
    func relaunchAfterForceQuit(relaunches: Bool) throws {
        var sim = try Self.monitoring([Self.far], route: Fixture.eastbound(speed: 10, seconds: 200, after: 100),
                                      actions: [UserAction(at: 10, .forceQuit)],
                                      overrides: Self.fixedLatency.merging(["relaunchAfterForceQuit": .bool(relaunches)]) { $1 })
        sim.run(until: 600)
        #expect(sim.stats.launches["location"] == (relaunches ? 1 : nil))
        #expect(sim.log.systemNotes.contains { $0.hasPrefix("no relaunch after force-quit") } == !relaunches)
    }

    @Test("monitoring fails when location is denied or restricted", arguments: [LocationAuthorizationStatus.denied, .restricted])
    func needsAuthorization(status: LocationAuthorizationStatus) throws {
        let sim = try Self.monitoring([Self.far], device: Fixture.existing(status))
        #expect(sim.monitoredRegionIdentifiers.isEmpty)
        #expect(sim.received.last?.event == .regionMonitoringFailed(identifier: "office", reason: .denied))
    }
}
