import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

@Suite("§4 significant location changes")
struct SignificantChangeTests {
    /// A world whose urban area covers every test route.
    static let city = World(urbanAreas: [BoundingCircle(center: Fixture.origin, radiusMeters: 200_000)])

    static func slc(speed: Double, seconds: Double, after wait: Double = 0, status: LocationAuthorizationStatus = .authorizedAlways,
                    device: DeviceSetup? = nil, actions: [UserAction] = [], world: World? = nil,
                    overrides: [String: JSONValue]? = Fixture.noCache, profile: IOSProfile? = nil,
                    duration: Double? = nil) throws -> Simulation {
        let route = speed > 0 ? Fixture.eastbound(speed: speed, seconds: seconds, after: wait) : ScenarioRoute(start: Fixture.origin, legs: [])
        var sim = try Simulation(scenario: Fixture.opened(route: route,
                                                          device: device ?? Fixture.existing(status), actions: actions,
                                                          world: world, overrides: overrides, profile: profile,
                                                          duration: duration))
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

    /// True distances travelled between consecutive significant changes.
    static func spacing(_ sim: Simulation) -> [Double] {
        let places = changes(sim).map { sim.truePosition(at: $0.1.timestamp) }
        return zip(places, places.dropFirst()).map { Geodesy.haversineDistance($0, $1) }
    }

    static let noIdleWakes: [String: JSONValue] = Fixture.noCache.merging(["significantChangeIdleWakeSeconds": .number(0)]) { $1 }

    @Test("cadence follows cell towers: 500–1000 m in a city, 1–3 km in the country [S34]")
    func urbanAndRural() throws {
        var urban = try Self.slc(speed: 1, seconds: 10_000, world: Self.city, overrides: Self.noIdleWakes)
        urban.run(until: 10_000)
        let urbanSpacing = Self.spacing(urban)
        #expect(urbanSpacing.count >= 9)
        #expect(urbanSpacing.allSatisfy { (500...1001).contains($0) })
        #expect(urbanSpacing.contains { $0 > 600 })                  // drawn per event, not a fixed 500 m

        var rural = try Self.slc(speed: 1, seconds: 10_000, overrides: Self.noIdleWakes)
        rural.run(until: 10_000)
        let ruralSpacing = Self.spacing(rural)
        #expect(ruralSpacing.count >= 3 && ruralSpacing.count < urbanSpacing.count)
        #expect(ruralSpacing.allSatisfy { (1000...3001).contains($0) })
    }

    @Test("never more often than every 5 min, however fast the device moves")
    func interval() throws {
        var fast = try Self.slc(speed: 20, seconds: 3600, world: Self.city)   // 500 m every 25 s
        fast.run(until: 3600)
        let times = Self.changes(fast).map(\.0)
        #expect(times.first == 0)
        #expect(zip(times, times.dropFirst()).allSatisfy { abs($1 - $0 - 300) <= 1 })
        #expect(times.count == 13)
    }

    @Test("without movement the service still wakes at least every 15 min (Energy Guide) [S34]; setting off: nothing")
    func idleWakes() throws {
        var still = try Self.slc(speed: 0, seconds: 0, duration: 4000)
        still.run(until: 3700)
        #expect(Self.changes(still).map(\.0) == [0, 900, 1800, 2700, 3600])

        var off = try Self.slc(speed: 0, seconds: 0, overrides: Self.noIdleWakes, duration: 4000)
        off.run(until: 3700)
        #expect(Self.changes(off).map(\.0) == [0])
    }

    @Test("an idle wake relaunches a terminated always app in the background")
    func idleWakeRelaunches() throws {
        var sim = try Self.slc(speed: 0, seconds: 0, actions: [UserAction(at: 30, .systemTerminate)], duration: 2000)
        sim.run(until: 899)
        #expect(sim.appState == .notRunning)
        sim.run(until: 900)
        #expect(sim.appState == .background)
        #expect(sim.stats.launches["location"] == 1)
    }

    @Test("the first event after a start is usually the cached location: old and coarse [S34]")
    func firstIsCached() throws {
        var cached = try Self.slc(speed: 10, seconds: 600, overrides: ["cachedFixProbability": .number(1)])
        cached.run(until: 1)
        let first = try #require(Self.changes(cached).first)
        let age = cached.epoch.timeIntervalSince(first.1.timestamp)
        #expect(first.0 == 0)
        #expect((60...600).contains(age))
        #expect((65...1000).contains(first.1.horizontalAccuracy ?? 0))

        var fresh = try Self.slc(speed: 10, seconds: 600, overrides: ["cachedFixProbability": .number(0)])
        fresh.run(until: 1)
        #expect(Self.changes(fresh).first?.1.timestamp == fresh.epoch)
    }

    @Test("the cached location is the device's last fix when it has one")
    func cachedIsLastFix() throws {
        var sim = try Simulation(scenario: Fixture.opened(route: Fixture.eastbound(speed: 10, seconds: 600),
                                                          device: Fixture.existing(.authorizedAlways),
                                                          overrides: ["cachedFixProbability": .number(1)]))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.requestLocation(.hundredMeters))
        sim.run(until: 60)
        let last = try #require(sim.fixes.last)
        sim.perform(.startSignificantChanges)
        #expect(Self.changes(sim).first?.1 == last)
    }

    @Test("accuracy is often better than cell level [S34][S37]: a Wi-Fi-level share, the rest cell level")
    func accuracy() throws {
        func accuracies(_ probability: Double) throws -> [(Double, Fix.Source)] {
            var sim = try Self.slc(speed: 20, seconds: 20_000, world: Self.city,
                                   overrides: ["cachedFixProbability": .number(0), "significantChangeWifiProbability": .number(probability)])
            sim.run(until: 20_000)
            return Self.changes(sim).map { ($0.1.horizontalAccuracy ?? 0, $0.1.source) }
        }
        let mixed = try accuracies(0.5)
        #expect(mixed.count > 60)
        #expect(mixed.allSatisfy { (65...2000).contains($0.0) })
        #expect(mixed.contains { $0.0 < 500 && $0.1 == .wifi })
        #expect(mixed.contains { $0.0 >= 500 && $0.1 == .cell })
        #expect(try accuracies(0).allSatisfy { $0.0 >= 500 && $0.1 == .cell })
        #expect(try accuracies(1).allSatisfy { $0.0 <= 500 && $0.1 == .wifi })
    }

    @Test("under reduced accuracy: 1–20 km fixes, no more often than the reduced interval")
    func reducedAccuracy() throws {
        let device = DeviceSetup(install: .existing, location: .authorizedAlways, preciseLocation: false)
        var sim = try Self.slc(speed: 20, seconds: 7200, device: device, world: Self.city)
        sim.run(until: 7200)
        let changes = Self.changes(sim)
        #expect(changes.allSatisfy { (1000...20_000).contains($0.1.horizontalAccuracy ?? 0) })
        let times = changes.map(\.0)
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= 1200 })
    }

    @Test("relaunches a terminated app in the background; the event arrives once the manager exists")
    func relaunch() throws {
        var sim = try Self.slc(speed: 10, seconds: 3600, actions: [UserAction(at: 30, .systemTerminate)], world: Self.city)
        sim.run(until: 299)
        #expect(sim.appState == .notRunning)
        sim.run(until: 300)
        #expect(sim.appState == .background)
        #expect(sim.stats.launches["location"] == 1)
        guard case .launched? = sim.received.last?.event else { Issue.record("no launch: \(String(describing: sim.received.last))"); return }
        #expect(Self.changes(sim).count == 1)               // held for the location manager
        sim.perform(.createLocationManager)
        #expect(Self.changes(sim).count == 2)
        sim.run(until: 311)
        #expect(sim.appState == .suspended)                 // about 10 s to handle it
    }

    @Test("relaunch needs always authorization; a when-in-use app's fixes are not kept across termination")
    func needsAlways() throws {
        var sim = try Self.slc(speed: 10, seconds: 3600, status: .authorizedWhenInUse,
                               actions: [UserAction(at: 30, .systemTerminate), UserAction(at: 3000, .open)], world: Self.city)
        sim.run(until: 3000)
        #expect(sim.stats.launches["location"] == nil)
        #expect(sim.log.systemNotes.contains { $0.hasPrefix("no relaunch: significantChange needs always authorization") })
        sim.perform(.createLocationManager)
        sim.run(until: 3001)
        #expect(!sim.fixes.contains { $0.timestamp < sim.date(3000) })
    }

    @Test("costs 0.004 per second, twice region monitoring (DTS) [S34], and nothing of GNSS")
    func energy() throws {
        var sim = try Self.slc(speed: 10, seconds: 3600, actions: [UserAction(at: 30, .systemTerminate)])
        sim.run(until: 3600)
        #expect(abs(sim.energy[.significantChange] - 3600 * 0.004) < 0.01)
        #expect(sim.energy[.gnss] == 0)
    }
}
