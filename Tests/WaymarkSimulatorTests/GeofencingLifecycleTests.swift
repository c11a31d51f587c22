import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

@Suite("Geofencing in the simulator: noise, relaunch, shared slots")
struct GeofencingLifecycleTests {
    static func circle(_ id: String, east meters: Double, radius: Double, triggers: FenceTriggers = [.enter, .exit]) -> Fence {
        Fence(id: id, shape: .circle(center: Fixture.east(meters), radiusMeters: radius), triggers: triggers)
    }

    /// Fences spread over 30 km east of the origin, every 150 m, radius 100 m.
    static let corridor = (0..<200).map { circle("c\($0)", east: 500 + Double($0) * 150, radius: 100) }

    @Test("an hour parked 20 m outside a fence (and inside another) with GNSS noise: no events")
    func parked() throws {
        let fences = [Self.circle("near", east: 220, radius: 200, triggers: .all),
                      Self.circle("home", east: -50, radius: 150, triggers: .all)]
        let scenario = GeofenceScenario.make(route: ScenarioRoute(start: Fixture.origin, legs: [.stop(3600)]))
        var sim = try Simulation(scenario: scenario, seed: 3, app: GeofencingTestApp(fences: fences))
        sim.run(until: 3600)
        let app = GeofencingTestApp.app(of: sim)
        #expect(sim.fixes.count > 3000)   // the receiver really ran, with noise, the whole hour
        let truthGap = Geodesy.haversineDistance(sim.truePosition(at: sim.currentDate), Fixture.east(220)) - 200
        #expect(abs(truthGap - 20) < 1)
        #expect(app.delivered.isEmpty)
        #expect(app.monitor.presence(of: "near") == .outside)
        #expect(app.monitor.presence(of: "home") == .inside)
    }

    @Test("kill, region-triggered relaunch, continued ride: every event once, none lost")
    func killAndRelaunch() throws {
        let fences = [Self.circle("z", east: 900, radius: 300), Self.circle("a", east: 2000, radius: 300),
                      Self.circle("b", east: 3000, radius: 300)]
        // A fixed 60 s latency and no misses (issue #14 draws both): this test is about the relaunch
        // hand-over, not iOS's lateness. Each enter and exit now comes with didDetermineState, which
        // the engine must not count a second time.
        let scenario = GeofenceScenario.make(route: Fixture.eastbound(speed: 10, seconds: 400),
                                             actions: [UserAction(at: 80, .systemTerminate)], duration: 500,
                                             overrides: RegionTests.fixedLatency)
        var sim = try Simulation(scenario: scenario, seed: 5, app: GeofencingTestApp(fences: fences))
        sim.run(until: 79)
        let beforeKill: [FenceEvent] = GeofencingTestApp.app(of: sim).delivered
        #expect(beforeKill.map { $0.fenceID } == ["z"])
        sim.run(until: 500)
        let app = GeofencingTestApp.app(of: sim)
        #expect(app.launches.first == LaunchReason.user)
        // A UIScene app (the default) gets no launch key: the location relaunch is a background launch [S14]–[S16].
        #expect(app.launches.dropFirst().first == LaunchReason.background)
        let relaunch = try #require(sim.times { $0 == DeviceEvent.launched(reason: .background) }.first)
        #expect(relaunch > 80)
        for id in ["z", "a", "b"] {
            let events: [FenceEvent] = app.delivered.filter { $0.fenceID == id }
            let kinds: [FenceEvent.Kind] = events.map { $0.kind }
            #expect(kinds == [.enter, .exit], "\(id): \(kinds)")
            #expect(events.map { $0.sequence } == [1, 2])
        }
        // The exit of z and the entry of a happened while the app was dead; both arrive after the relaunch.
        let late: [FenceEvent] = app.delivered.filter { (e: FenceEvent) -> Bool in
            (e.fenceID == "z" && e.kind == .exit) || (e.fenceID == "a" && e.kind == .enter)
        }
        #expect(late.count == 2)
        #expect(late.allSatisfy { $0.deliveredAt.timeIntervalSince(sim.epoch) >= relaunch })
    }

    @Test("host app monitoring 7 regions: Waymark uses at most 13 slots and never touches the host's")
    func hostRegions() throws {
        let host = (0..<7).map { MonitoredRegion(identifier: "host.\($0)", center: Fixture.east(-5000 - Double($0) * 500), radiusMeters: 200) }
        let scenario = GeofenceScenario.make(route: Fixture.eastbound(speed: 10, seconds: 900), host: host, duration: 960)
        let configuration = GeofenceMonitor.Configuration(hostRegionIdentifiers: Set(host.map(\.identifier)))
        var sim = try Simulation(scenario: scenario, seed: 9, app: GeofencingTestApp(configuration: configuration, fences: Self.corridor))
        var maxUsed = 0, hostIntact = true
        GeofenceScenario.run(&sim, until: 960) { sim in
            maxUsed = max(maxUsed, sim.monitoredRegionIdentifiers.filter { $0.hasPrefix("waymark.") }.count)
            hostIntact = hostIntact && Set(host.map(\.identifier)).isSubset(of: sim.monitoredRegionIdentifiers)
        }
        #expect(maxUsed == 13)
        #expect(hostIntact)
        let stops = sim.log.entries.compactMap { if case .stopMonitoring(let id)? = $0.command { id } else { nil } }
        #expect(!stops.isEmpty)   // the selection really moved along the corridor
        #expect(stops.allSatisfy { $0.hasPrefix("waymark.") })
        #expect(sim.events { if case .regionMonitoringFailed = $0 { true } else { nil } }.isEmpty)
        #expect(GeofencingTestApp.app(of: sim).delivered.count >= 100)   // ~60 fences crossed, in and out
    }

    @Test("an app that does not declare the host's regions: refused slots shrink the budget, no loop of failures")
    func refusedSlots() throws {
        let host = (0..<7).map { MonitoredRegion(identifier: "host.\($0)", center: Fixture.east(-5000 - Double($0) * 500), radiusMeters: 200) }
        let scenario = GeofenceScenario.make(route: Fixture.eastbound(speed: 10, seconds: 900), host: host, duration: 960)
        var sim = try Simulation(scenario: scenario, seed: 9, app: GeofencingTestApp(fences: Self.corridor))
        sim.run(until: 960)
        let failures = sim.events { if case .regionMonitoringFailed(let id, _) = $0 { id } else { nil } }
        #expect((1...7).contains(failures.count), "failures: \(failures)")
        #expect(failures.allSatisfy { $0.hasPrefix("waymark.") })
        let app = GeofencingTestApp.app(of: sim)
        // 20 − 7 refused − 1 kept for the balanced fences' stationary region (unused: the device moves).
        #expect(app.monitor.slotBudget == 12)
        #expect(sim.monitoredRegionIdentifiers.filter { $0.hasPrefix("host.") }.count == 7)
        #expect(sim.monitoredRegionIdentifiers.count == 19)
    }
}
