import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

/// Region monitoring as iOS does it (issue #14, PLATFORM.md §5): crossing distances, drawn latency,
/// misses, network, reduced accuracy, registration before authorization, entries held after a push launch.
@Suite("§5 region monitoring fidelity")
struct RegionFidelityTests {
    static let home = MonitoredRegion(identifier: "home", center: Fixture.origin, radiusMeters: 300)
    static let office = RegionTests.far   // 300 m radius, 2000 m east: entry (GNSS off) 1800 m east

    /// An existing install with regions already registered, the user opening the app at 0 and the
    /// location manager created, riding east at 10 m/s after `wait` seconds (by default to 1900 m
    /// east, well inside the office region).
    static func riding(_ regions: [MonitoredRegion], wait: Double = 0, seconds: Double = 190,
                       device: DeviceSetup? = nil, actions: [UserAction] = [], world: World? = nil,
                       overrides: [String: JSONValue] = RegionTests.fixedLatency) throws -> Simulation {
        var setup = device ?? Fixture.existing(.authorizedAlways)
        setup.monitoredRegions = regions
        var sim = try Simulation(scenario: Fixture.opened(route: Fixture.eastbound(speed: 10, seconds: seconds, after: wait),
                                                          device: setup, actions: actions, world: world, overrides: overrides))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        return sim
    }

    // MARK: crossing distance [S27][S28]

    @Test("an exit counts about 200 m outside while GNSS is off, 65 m while the app runs GNSS updates",
          arguments: [(DesiredAccuracy?.none, 51.0), (.hundredMeters, 51.0), (.kilometer, 51.0), (.best, 37.0)])
    func exitDistance(accuracy: DesiredAccuracy?, beyondAt: Double) throws {
        var sim = try Self.riding([Self.home])
        if let accuracy { sim.perform(.startUpdatingLocation(LocationConfiguration(desiredAccuracy: accuracy))) }
        sim.run(until: 300)
        let exit = try #require(sim.times { $0 == .regionExited(identifier: "home") }.first)
        #expect(abs(exit - (beyondAt + 20 + 60)) <= 1.5, "exit at \(exit)")
    }

    @Test("an entry counts 100 m inside while GNSS is off, 65 m inside while the app runs GNSS updates",
          arguments: [(DesiredAccuracy?.none, 181.0), (.hundredMeters, 181.0), (.best, 177.0)])
    func entryDistance(accuracy: DesiredAccuracy?, beyondAt: Double) throws {
        var sim = try Self.riding([Self.office])
        if let accuracy { sim.perform(.startUpdatingLocation(LocationConfiguration(desiredAccuracy: accuracy))) }
        sim.run(until: 400)
        let enter = try #require(sim.times { $0 == .regionEntered(identifier: "office") }.first)
        #expect(abs(enter - (beyondAt + 20 + 60)) <= 1, "enter at \(enter)")
    }

    @Test("the entry distance is at most half the effective radius, so a pass through the middle always counts")
    func entryDepthCapped() throws {
        // Entry distance 500 m in a 300 m region: capped at 150 m, passed at 1850 m east (185 s).
        var sim = try Self.riding([Self.office], overrides: RegionTests.fixedLatency.merging(["regionEntryDistanceMeters": .number(500)]) { $1 })
        sim.run(until: 400)
        let enter = try #require(sim.times { $0 == .regionEntered(identifier: "office") }.first)
        #expect(abs(enter - (186 + 20 + 60)) <= 1)
    }

    // MARK: latency and misses [S26][S28]

    @Test("latency is drawn: mean at least Apple's 3–5 minutes, a long tail of 30 min – 3 h, larger after a termination")
    func latencyDistribution() throws {
        var sim = try Simulation(scenario: Fixture.opened())
        let n = 20_000
        let running = (0..<n).map { _ in sim.drawRegionLatency(appNotRunning: false) }
        let terminated = (0..<n).map { _ in sim.drawRegionLatency(appNotRunning: true) }
        func share(_ xs: [Double], _ p: (Double) -> Bool) -> Double { Double(xs.filter(p).count) / Double(xs.count) }
        let mean = running.reduce(0, +) / Double(n)
        #expect(mean >= 240, "mean \(mean)")
        #expect((0.01...0.035).contains(share(running) { $0 >= 1800 }))
        #expect((0.07...0.13).contains(share(terminated) { $0 >= 1800 }))
        #expect(running.allSatisfy { $0 > 0 && $0 <= 10_800 })
        #expect(share(running) { $0 < 60 } < 0.03)   // the old fixed 60 s is a rare fast case now

        var body = try Simulation(scenario: Fixture.opened(overrides: ["regionLatencyTailProbability": .number(0)]))
        let bodyMean = (0..<n).map { _ in body.drawRegionLatency(appNotRunning: false) }.reduce(0, +) / Double(n)
        #expect(abs(bodyMean - 240) < 10, "body mean \(bodyMean)")
    }

    @Test("by default a crossing's event comes minutes later, differently per seed; never before the crossing")
    func latencyPerSeed() throws {
        var delays: [Double] = []
        for seed in UInt64(1)...30 {
            var setup = Fixture.existing(.authorizedAlways)
            setup.monitoredRegions = [Self.office]
            var sim = try Simulation(scenario: Fixture.opened(route: Fixture.eastbound(speed: 10, seconds: 300), device: setup), seed: seed)
            sim.run(until: 0)
            sim.perform(.createLocationManager)
            sim.run(until: 201 + 1800)
            if let enter = sim.times({ $0 == .regionEntered(identifier: "office") }).first { delays.append(enter - 201) }
        }
        #expect(delays.count >= 25)
        #expect(delays.allSatisfy { $0 >= 0 })
        #expect(delays.reduce(0, +) / Double(delays.count) >= 180)
        #expect(Set(delays.map { Int($0) }).count >= 20)
    }

    @Test("a missed crossing never arrives, but the state request tells the truth (regionMissProbability)", arguments: [0.0, 1.0])
    func misses(probability: Double) throws {
        var sim = try Self.riding([Self.office], overrides: RegionTests.fixedLatency.merging(["regionMissProbability": .number(probability)]) { $1 })
        sim.run(until: 600)
        #expect(sim.times { $0 == .regionEntered(identifier: "office") }.count == (probability == 1 ? 0 : 1))
        #expect(sim.stats.regionEventsMissed == (probability == 1 ? 1 : 0))
        #expect(RegionStateTests.state(&sim, "office") == .inside)
    }

    @Test("events of one region arrive in the order of their crossings, whatever their drawn latencies")
    func orderPerRegion() throws {
        // In and out of the office region; twenty seeds of drawn latencies.
        for seed in UInt64(1)...20 {
            var setup = Fixture.existing(.authorizedAlways)
            setup.monitoredRegions = [Self.office]
            var sim = try Simulation(scenario: Fixture.opened(route: Fixture.eastbound(speed: 10, seconds: 300), device: setup,
                                                              overrides: ["regionMissProbability": .number(0)]), seed: seed)
            sim.run(until: 0)
            sim.perform(.createLocationManager)
            sim.run(until: 12 * 3600)
            let kinds = sim.events { (e: DeviceEvent) -> String? in
                switch e {
                case .regionEntered: "enter"
                case .regionExited: "exit"
                default: nil
                }
            }
            #expect(kinds == ["enter", "exit"], "seed \(seed)")
        }
    }

    // MARK: network [S26][S46]

    @Test("an event that comes due offline waits for the network: late, not lost")
    func offline() throws {
        // Committed at 201 s, due at 261 s; offline 230–900 s.
        let world = World(network: World.Network(offline: [TimeWindow(from: 230, to: 900)]))
        var sim = try Self.riding([Self.office], world: world)
        sim.run(until: 899)
        #expect(sim.times { $0 == .regionEntered(identifier: "office") }.isEmpty)
        sim.run(until: 1000)
        let enter = try #require(sim.times { $0 == .regionEntered(identifier: "office") }.first)
        #expect((900...901).contains(enter))
        #expect(sim.stats.regionEventsHeld == 1)

        var online = try Self.riding([Self.office])
        online.run(until: 1000)
        #expect(online.times { $0 == .regionEntered(identifier: "office") } == [261])
    }

    // MARK: reduced accuracy [S9]

    static func reduced(regions: [MonitoredRegion] = [], actions: [UserAction] = []) throws -> Simulation {
        try Self.riding(regions, device: DeviceSetup(install: .existing, location: .authorizedAlways, preciseLocation: false),
                        actions: actions)
    }

    @Test("with Precise off a registration fails as unavailable")
    func reducedRegistrationFails() throws {
        var sim = try Self.reduced()
        sim.perform(.startMonitoring(Self.office))
        #expect(sim.monitoredRegionIdentifiers.isEmpty)
        #expect(sim.received.last?.event == .regionMonitoringFailed(identifier: "office", reason: .unavailable))
    }

    @Test("regions already registered stay registered but deliver nothing while reduced, and answer unknown")
    func reducedSilent() throws {
        var sim = try Self.reduced(regions: [Self.office])
        sim.run(until: 600)
        #expect(sim.monitoredRegionIdentifiers == ["office"])
        #expect(sim.events { (e: DeviceEvent) -> DeviceEvent? in
            switch e {
            case .regionEntered, .regionExited, .regionMonitoringFailed: e
            default: nil
            }
        }.isEmpty)
        #expect(RegionStateTests.state(&sim, "office") == .unknown)
    }

    @Test("they work again once full accuracy returns")
    func reducedThenPrecise() throws {
        var sim = try Self.reduced(regions: [Self.office], actions: [UserAction(at: 100, .settings, preciseLocation: true)])
        sim.run(until: 600)
        #expect(sim.times { $0 == .regionEntered(identifier: "office") } == [261])
    }

    @Test("an event that comes due after Precise was switched off is dropped")
    func preciseOffDrops() throws {
        var sim = try Self.riding([Self.office], actions: [UserAction(at: 230, .settings, preciseLocation: false)])
        sim.run(until: 600)
        #expect(sim.times { $0 == .regionEntered(identifier: "office") }.isEmpty)
        #expect(sim.stats.regionEventsDroppedUnavailable == 1)
    }

    // MARK: registration before authorization [S30]

    @Test("a region registered while notDetermined is accepted and starts working once authorization is granted")
    func beforeAuthorization() throws {
        var setup = Fixture.existing(.notDetermined)
        setup.monitoredRegions = nil
        var sim = try Simulation(scenario: Fixture.opened(route: Fixture.eastbound(speed: 10, seconds: 190), device: setup,
                                                          overrides: RegionTests.fixedLatency))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.startMonitoring(Self.office))
        #expect(sim.monitoredRegionIdentifiers == ["office"])
        #expect(!sim.received.contains { if case .regionMonitoringFailed = $0.event { true } else { false } })
        sim.run(until: 100)
        #expect(RegionStateTests.state(&sim, "office") == .unknown)
        sim.perform(.requestWhenInUseAuthorization)   // granted 2 s later
        sim.run(until: 600)
        #expect(sim.times { $0 == .regionEntered(identifier: "office") } == [261])
        let states = RegionStateCallbackTests.states(sim, "office").map(\.1)
        #expect(states == [.unknown, .outside, .inside])   // the request, the registration's callback, the transition
    }

    // MARK: an entry held after a push launch (forums 812111 [S43])

    /// Terminated at 10 s, a silent push at `push`; the crossing commits at 301 s, due at 361 s.
    static func pushed(at push: Double, held: Bool) throws -> Simulation {
        var sim = try Self.riding([Self.office], wait: 100,
                                  actions: [UserAction(at: 10, .systemTerminate), UserAction(at: push, .silentPush),
                                            UserAction(at: 600, .open)],
                                  overrides: RegionTests.fixedLatency.merging(["regionEnterHeldAfterPushLaunch": .bool(held)]) { $1 })
        sim.run(until: push + 1)
        #expect(sim.stats.launches["remoteNotification"] == 1)
        sim.perform(.createLocationManager)
        return sim
    }

    @Test("during the push launch's window: the entry is held until the app is in the foreground; setting off: at once",
          arguments: [true, false])
    func pushWindow(held: Bool) throws {
        var sim = try Self.pushed(at: 340, held: held)
        sim.run(until: 365)
        #expect(sim.times { $0 == .regionEntered(identifier: "office") } == (held ? [] : [361]))
        sim.run(until: 700)
        let enters = sim.times { $0 == .regionEntered(identifier: "office") }
        #expect(enters.count == 1)
        if held { #expect((600...602).contains(try #require(enters.first))) }
    }

    @Test("the push-launched process suspended since: still held until the foreground; setting off: it is woken",
          arguments: [true, false])
    func pushLaunchedSuspended(held: Bool) throws {
        var sim = try Self.pushed(at: 200, held: held)
        sim.run(until: 300)
        #expect(sim.appState == .suspended)
        sim.run(until: 599)
        #expect(sim.times { $0 == .regionEntered(identifier: "office") } == (held ? [] : [361]))
        sim.run(until: 700)
        #expect(sim.times { $0 == .regionEntered(identifier: "office") }.count == 1)
        #expect(sim.stats.regionEventsHeld == (held ? 1 : 0))
    }
}
