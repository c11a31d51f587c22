import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

@Suite("§4 standard location updates")
struct StandardUpdateTests {
    /// Opens the app with when-in-use already granted and starts updates with `config`.
    static func started(_ config: LocationConfiguration = LocationConfiguration(), route: ScenarioRoute? = nil,
                        modes: [DeviceSetup.BackgroundMode] = [], actions: [UserAction] = [], world: World? = nil,
                        overrides: [String: JSONValue] = Fixture.noCache, seed: UInt64 = 1) throws -> Simulation {
        var sim = try Simulation(scenario: Fixture.opened(route: route, device: Fixture.existing(.authorizedWhenInUse, modes: modes),
                                                          actions: actions, world: world, overrides: overrides), seed: seed)
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.startUpdatingLocation(config))
        return sim
    }

    @Test("a cached fix arrives at once: minutes old and coarse")
    func cachedFirstFix() throws {
        var sim = try Self.started(overrides: ["cachedFixProbability": .number(1)])
        let cached = try #require(sim.fixes.first)
        let age = sim.currentDate.timeIntervalSince(cached.timestamp)
        #expect(age >= 60 && age <= 600)
        #expect((65...1000).contains(cached.horizontalAccuracy ?? 0))
        sim.run(until: 3)
        #expect(sim.fixes.count == 4)   // then fresh fixes at 1 Hz
    }

    @Test("GNSS: about 1 Hz, first accurate fix after 5–30 s, then 5–10 m in open sky")
    func gnssAccuracy() throws {
        var sim = try Self.started(route: Fixture.eastbound(speed: 5, seconds: 600))
        sim.run(until: 120)
        let fixes = sim.fixes
        #expect((115...121).contains(fixes.count))
        let firstGNSS = try #require(fixes.first { $0.source == .gnss })
        let ttff = firstGNSS.timestamp.timeIntervalSince(sim.epoch)
        #expect(ttff >= 5 && ttff <= 31)
        #expect(fixes.prefix { $0.source != .gnss }.allSatisfy { ($0.horizontalAccuracy ?? 0) >= 30 })
        #expect(fixes.filter { $0.source == .gnss }.allSatisfy { (5...10).contains($0.horizontalAccuracy ?? 0) })
    }

    @Test("urban areas worsen GNSS accuracy to 10–30 m")
    func urban() throws {
        let world = World(urbanAreas: [BoundingCircle(center: Fixture.origin, radiusMeters: 5000)])
        var sim = try Self.started(world: world)
        sim.run(until: 120)
        let gnss = sim.fixes.filter { $0.source == .gnss }
        #expect(!gnss.isEmpty)
        #expect(gnss.allSatisfy { (10...30).contains($0.horizontalAccuracy ?? 0) })
    }

    /// A world without Wi-Fi positioning anywhere near the origin.
    static let noWifi = World(noWifiAreas: [BoundingCircle(center: Fixture.origin, radiusMeters: 50_000)])

    @Test("hundredMeters uses Wi-Fi (30–100 m); kilometer and threeKilometers get Wi-Fi too where it exists, cell towers (500–3000 m) only where it does not; never the GNSS receiver",
          arguments: [(DesiredAccuracy.hundredMeters, false, Fix.Source.wifi), (.kilometer, false, .wifi), (.threeKilometers, false, .wifi),
                      (.kilometer, true, .cell), (.threeKilometers, true, .cell)])
    func coarseSources(accuracy: DesiredAccuracy, noWifi: Bool, source: Fix.Source) throws {
        var sim = try Self.started(LocationConfiguration(desiredAccuracy: accuracy), world: noWifi ? Self.noWifi : nil)
        sim.run(until: 600)
        #expect(!sim.fixes.isEmpty)
        #expect(sim.fixes.allSatisfy { $0.source == source })
        let range: ClosedRange<Double> = source == .wifi ? 30...100 : 500...3000
        #expect(sim.fixes.allSatisfy { range.contains($0.horizontalAccuracy ?? 0) })
        #expect(sim.energy[.gnss] == 0)
        #expect(sim.energy[source == .wifi ? .wifi : .cell] > 0)
        #expect(sim.energy[source == .wifi ? .cell : .wifi] == 0)
    }

    @Test("a kilometer request leaving a no-Wi-Fi area switches from cell to Wi-Fi fixes, and its energy with it")
    func coarseAcrossWifiBoundary() throws {
        // Cell-only within 1 km of the origin; the device rides 3 km east at 5 m/s.
        let world = World(noWifiAreas: [BoundingCircle(center: Fixture.origin, radiusMeters: 1000)])
        var sim = try Self.started(LocationConfiguration(desiredAccuracy: .kilometer, pausesLocationUpdatesAutomatically: false),
                                   route: Fixture.eastbound(speed: 5, seconds: 600), world: world)
        sim.run(until: 600)
        let seconds = sim.fixes.map { ($0.timestamp.timeIntervalSince(sim.epoch), $0.source) }
        #expect(seconds.filter { $0.0 < 190 }.allSatisfy { $0.1 == .cell })
        #expect(seconds.filter { $0.0 > 210 }.allSatisfy { $0.1 == .wifi })
        #expect(abs(sim.energy[.cell] - 0.05 * 200) < 0.1)
        #expect(abs(sim.energy[.wifi] - 0.15 * 400) < 0.2)
    }

    @Test("a one-shot kilometer request gets a Wi-Fi fix where Wi-Fi exists, a cell fix where it does not",
          arguments: [(false, Fix.Source.wifi), (true, .cell)])
    func coarseOneShot(noWifi: Bool, source: Fix.Source) throws {
        var sim = try Simulation(scenario: Fixture.opened(device: Fixture.existing(.authorizedWhenInUse),
                                                          world: noWifi ? Self.noWifi : nil, overrides: Fixture.noCache))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.requestLocation(.kilometer))
        sim.run(until: 60)
        #expect(sim.fixes.map(\.source) == [source])
    }

    @Test("switching from cell-level accuracy back to best turns the receiver on again: no GNSS fix for the reacquire time")
    func gnssHotStart() throws {
        var sim = try Self.started()
        sim.run(until: 120)                                   // GNSS acquired and delivering
        #expect(sim.fixes.last?.source == .gnss)
        sim.perform(.startUpdatingLocation(LocationConfiguration(desiredAccuracy: .threeKilometers)))
        sim.run(until: 300)                                   // receiver off (Wi-Fi positioning)
        #expect(sim.fixes.last?.source == .wifi)
        let switchedBack = sim.now
        sim.perform(.startUpdatingLocation(LocationConfiguration(desiredAccuracy: .best)))
        sim.run(until: 330)
        let firstGNSS = try #require(sim.fixes.first { $0.source == .gnss && $0.timestamp.timeIntervalSince(sim.epoch) > switchedBack })
        let wait = firstGNSS.timestamp.timeIntervalSince(sim.epoch) - switchedBack
        #expect(wait >= 3 - 1e-6 && wait <= 5, "first GNSS fix \(wait) s after switching back")
    }

    @Test("the distance filter saves callbacks, not GNSS power")
    func distanceFilter() throws {
        let route = Fixture.eastbound(speed: 2, seconds: 600)
        var plain = try Self.started(route: route)
        var filtered = try Self.started(LocationConfiguration(distanceFilterMeters: 50), route: route)
        plain.run(until: 600)
        filtered.run(until: 600)
        #expect(filtered.stats.locationDeliveries < plain.stats.locationDeliveries / 5)
        #expect(filtered.stats.fixesSuppressedByDistanceFilter > 0)
        #expect(filtered.energy[.gnss] == plain.energy[.gnss])
        #expect(filtered.energy[.cpuWake] < plain.energy[.cpuWake])
    }

    @Test("updates pause after 15 min still (5 min for fitness) and the app is told",
          arguments: [(ActivityType.other, 900.0), (.fitness, 300.0)])
    func autoPause(activity: ActivityType, after: Double) throws {
        var sim = try Self.started(LocationConfiguration(activityType: activity))
        sim.run(until: 2000)
        let paused = sim.times { $0 == .locationUpdatesPaused }
        #expect(paused.count == 1)
        #expect(abs((paused.first ?? 0) - after) <= 2)
        #expect(sim.fixes.last.map { $0.timestamp.timeIntervalSince(sim.epoch) } ?? 0 <= after + 1)
    }

    @Test("with automatic pausing off, updates keep flowing while still")
    func noAutoPause() throws {
        var sim = try Self.started(LocationConfiguration(pausesLocationUpdatesAutomatically: false))
        sim.run(until: 2000)
        #expect(sim.times { $0 == .locationUpdatesPaused }.isEmpty)
        #expect(sim.fixes.count >= 1990)
    }

    @Test("paused in the background: no resume on movement, and the app is suspended")
    func pauseInBackground() throws {
        let route = ScenarioRoute(start: Fixture.origin, legs: [.stop(1200), .travel([Fixture.east(3000)], speed: 5)])
        var sim = try Self.started(LocationConfiguration(allowsBackgroundLocationUpdates: true), route: route,
                                   modes: [.location], actions: [UserAction(at: 60, .background)])
        sim.run(until: 1800)
        #expect(sim.times { $0 == .locationUpdatesPaused }.count == 1)
        #expect(sim.times { $0 == .locationUpdatesResumed }.isEmpty)
        #expect(sim.appState == .suspended)
        #expect(sim.fixes.allSatisfy { $0.timestamp.timeIntervalSince(sim.epoch) < 1000 })
    }

    @Test("paused in the foreground: updates stay paused when the device moves, until the app starts them again")
    func pauseNeverResumesInForeground() throws {
        // Apple, locationManagerDidResumeLocationUpdates: "Core Location does not resume updates
        // automatically after it pauses them" [S23] (seed 003: the tracker stopped until reopened).
        let route = ScenarioRoute(start: Fixture.origin, legs: [.stop(1200), .travel([Fixture.east(3000)], speed: 5)])
        var sim = try Self.started(route: route)
        sim.run(until: 1500)
        #expect(sim.appState == .foreground)
        #expect(sim.times { $0 == .locationUpdatesPaused }.count == 1)
        #expect(sim.times { $0 == .locationUpdatesResumed }.isEmpty)
        #expect(!sim.fixes.contains { $0.timestamp.timeIntervalSince(sim.epoch) > 1000 }, "moving since 1200 s, still paused")
        sim.perform(.startUpdatingLocation(LocationConfiguration()))
        #expect(sim.times { $0 == .locationUpdatesResumed } == [1500], "the restart is reported as a resume")
        sim.run(until: 1560)
        #expect(sim.fixes.filter { $0.timestamp.timeIntervalSince(sim.epoch) > 1500 }.count >= 55)
    }

    @Test("without background location, fixes flow for the grace window, then stop when the app is suspended",
          arguments: [
              // (allowsBackgroundLocationUpdates, location background mode, backgroundSuspendSeconds override);
              // allows without the mode only with the crash turned off (crashOnBackgroundUpdatesWithoutMode)
              (true, false, nil), (false, true, nil), (false, false, nil), (true, false, 12.0),
          ] as [(Bool, Bool, Double?)])
    func backgroundWithoutMode(allows: Bool, mode: Bool, grace: Double?) throws {
        var overrides = Fixture.noCache
        if let grace { overrides["backgroundSuspendSeconds"] = .number(grace) }
        overrides["crashOnBackgroundUpdatesWithoutMode"] = .bool(false)
        let window = grace ?? 5
        var sim = try Self.started(LocationConfiguration(pausesLocationUpdatesAutomatically: false,
                                                         allowsBackgroundLocationUpdates: allows),
                                   route: Fixture.eastbound(speed: 5, seconds: 600), modes: mode ? [.location] : [],
                                   actions: [UserAction(at: 100, .background)], overrides: overrides)
        sim.run(until: 100 + window - 0.5)
        #expect(sim.appState == .background)
        sim.run(until: 300)
        #expect(sim.appState == .suspended)
        let times = sim.fixes.map { $0.timestamp.timeIntervalSince(sim.epoch) }
        let inGrace = times.filter { $0 > 100 }
        #expect(inGrace.count >= Int(window) - 1, "fixes keep coming until the suspension")
        #expect(inGrace.allSatisfy { $0 <= 100 + window }, "none after the suspension")
        #expect(sim.energy[.gnss] <= 100 + window + 0.5)
        #expect(sim.stats.crashes == 0)
    }

    @Test("allowsBackgroundLocationUpdates without the location background mode crashes the app (or, with the crash off, degrades)",
          arguments: [true, false])
    func backgroundFlagWithoutModeCrashes(crash: Bool) throws {
        // [S21]: NSInternalInconsistencyException "!stayUp || CLClientIsBackgroundable".
        var overrides = Fixture.noCache
        if !crash { overrides["crashOnBackgroundUpdatesWithoutMode"] = .bool(false) }
        var sim = try Self.started(LocationConfiguration(allowsBackgroundLocationUpdates: true),
                                   route: Fixture.eastbound(speed: 5, seconds: 600), overrides: overrides)
        sim.run(until: 60)
        if crash {
            #expect(sim.appState == .notRunning)
            #expect(sim.stats.crashes == 1 && sim.stats.terminations == 1)
            #expect(sim.fixes.isEmpty)
            #expect(sim.energy[.gnss] == 0)
            #expect(sim.log.systemNotes.contains { $0.hasPrefix("crashed: NSInternalInconsistencyException") })
        } else {
            #expect(sim.appState == .foreground)
            #expect(sim.stats.crashes == 0)
            #expect(sim.fixes.count >= 55)
        }
    }

    @Test("allowsBackgroundLocationUpdates false never crashes, whatever the background modes")
    func noFlagNoCrash() throws {
        var sim = try Self.started(LocationConfiguration(allowsBackgroundLocationUpdates: false))
        sim.run(until: 60)
        #expect(sim.stats.crashes == 0)
        #expect(sim.appState == .foreground)
    }

    @Test("with the background mode and allowsBackgroundLocationUpdates, updates continue in the background")
    func backgroundWithMode() throws {
        var sim = try Self.started(LocationConfiguration(pausesLocationUpdatesAutomatically: false,
                                                         allowsBackgroundLocationUpdates: true),
                                   modes: [.location], actions: [UserAction(at: 100, .background)])
        sim.run(until: 300)
        #expect(sim.appState == .background)
        #expect(sim.fixes.contains { $0.timestamp.timeIntervalSince(sim.epoch) > 290 })
    }

    @Test("from the background (a silent push's time): a when-in-use app cannot start standard updates, an Always app can",
          arguments: [LocationAuthorizationStatus.authorizedWhenInUse, .authorizedAlways])
    func startFromBackground(status: LocationAuthorizationStatus) throws {
        // When-in-use: "start the services while the app is in use" [S22]; Always: "things can be
        // started when the app is not in use" (WWDC19 705) [S5].
        var sim = try Simulation(scenario: Fixture.opened(device: Fixture.existing(status, modes: [.location]),
                                                          actions: [UserAction(at: 10, .background), UserAction(at: 20, .silentPush)],
                                                          overrides: Fixture.noCache))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.run(until: 19)
        #expect(sim.appState == .suspended)
        sim.run(until: 20)
        #expect(sim.appState == .background)
        sim.perform(.startUpdatingLocation(LocationConfiguration(pausesLocationUpdatesAutomatically: false,
                                                                 allowsBackgroundLocationUpdates: true)))
        sim.run(until: 120)
        if status == .authorizedAlways {
            #expect(sim.stats.startsIgnoredInBackground == 0)
            #expect(sim.fixes.contains { $0.timestamp.timeIntervalSince(sim.epoch) > 110 })
            #expect(sim.appState == .background, "background location keeps the app running past the push's 30 s")
        } else {
            #expect(sim.stats.startsIgnoredInBackground == 1)
            #expect(sim.fixes.isEmpty)
            #expect(sim.appState == .suspended)
            #expect(sim.received.contains { $0.event == .locationError(.denied) }, "forums 748098: CLError.denied")
        }
    }

    @Test("a when-in-use start from the background: CLError.denied, or silence with the setting off",
          arguments: [true, false])
    func backgroundStartDeniedSetting(denied: Bool) throws {
        var sim = try Simulation(scenario: Fixture.opened(device: Fixture.existing(.authorizedWhenInUse, modes: [.location]),
                                                          actions: [UserAction(at: 10, .background), UserAction(at: 20, .silentPush)],
                                                          overrides: Fixture.noCache.merging(["backgroundStartFailsWithDenied": .bool(denied)]) { $1 }))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.run(until: 20)
        sim.perform(.startUpdatingLocation(LocationConfiguration(allowsBackgroundLocationUpdates: true)))
        sim.run(until: 60)
        #expect(sim.stats.startsIgnoredInBackground == 1)
        #expect(sim.fixes.isEmpty)
        let errors = sim.received.filter { $0.event == .locationError(.denied) }
        #expect(errors.count == (denied ? 1 : 0))
    }

    @Test("a when-in-use app may still start updates in the few seconds' grace after leaving the foreground (still in use)")
    func whenInUseStartInGrace() throws {
        var sim = try Simulation(scenario: Fixture.opened(device: Fixture.existing(.authorizedWhenInUse, modes: [.location]),
                                                          actions: [UserAction(at: 10, .background)], overrides: Fixture.noCache))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.run(until: 12)
        sim.perform(.startUpdatingLocation(LocationConfiguration(pausesLocationUpdatesAutomatically: false,
                                                                 allowsBackgroundLocationUpdates: true)))
        sim.run(until: 100)
        #expect(sim.stats.startsIgnoredInBackground == 0)
        #expect(sim.appState == .background)
        #expect(sim.fixes.contains { $0.timestamp.timeIntervalSince(sim.epoch) > 90 })
    }

    @Test("a tunnel: no fixes inside the outage, fixes again after reacquiring")
    func tunnel() throws {
        let world = World(outages: [World.Outage(window: TimeWindow(from: 100, to: 160))])
        var sim = try Self.started(route: Fixture.eastbound(speed: 10, seconds: 300), world: world)
        sim.run(until: 300)
        let times = sim.fixes.map { $0.timestamp.timeIntervalSince(sim.epoch) }
        #expect(!times.contains { $0 >= 100 && $0 < 160 })
        #expect(times.contains { $0 >= 160 && $0 < 170 })
        #expect(times.contains { $0 < 100 })
        #expect(sim.times { $0 == .locationError(.locationUnknown) } == [100])   // transient; the service keeps trying
    }

    @Test("a tunnel with the network fall-back: locationUnknown, then Wi-Fi fixes at 1 Hz, or cell fixes every 60 s without Wi-Fi",
          arguments: [false, true])
    func tunnelFallback(noWifi: Bool) throws {
        // An inference from [S9] ("be prepared to use less accurate data"): a setting, off by default.
        var world = World(outages: [World.Outage(window: TimeWindow(from: 100, to: 280))])
        if noWifi { world.noWifiAreas = Self.noWifi.noWifiAreas }
        var overrides = Fixture.noCache
        overrides["gnssOutageFallsBackToNetwork"] = .bool(true)
        var sim = try Self.started(route: Fixture.eastbound(speed: 10, seconds: 400), world: world, overrides: overrides)
        sim.run(until: 300)
        #expect(sim.times { $0 == .locationError(.locationUnknown) } == [100])
        let inside = sim.fixes.filter { (100..<280).contains($0.timestamp.timeIntervalSince(sim.epoch)) }
        if noWifi {
            #expect(inside.map { $0.timestamp.timeIntervalSince(sim.epoch) } == [100, 160, 220])
            #expect(inside.allSatisfy { $0.source == .cell && (500...3000).contains($0.horizontalAccuracy ?? 0) })
        } else {
            #expect(inside.count == 180)
            #expect(inside.allSatisfy { $0.source == .wifi && (30...100).contains($0.horizontalAccuracy ?? 0) })
        }
        #expect(sim.fixes.contains { $0.timestamp.timeIntervalSince(sim.epoch) >= 280 && $0.source == .gnss })
    }

    @Test("GNSS selected again inside a tunnel: the restarting receiver reports the lost signal")
    func hotStartInTunnel() throws {
        let world = World(outages: [World.Outage(window: TimeWindow(from: 100, to: 160))])
        var sim = try Self.started(route: Fixture.eastbound(speed: 10, seconds: 300), world: world)
        sim.run(until: 90)                                    // GNSS tracking
        sim.perform(.startUpdatingLocation(LocationConfiguration(desiredAccuracy: .threeKilometers)))
        sim.run(until: 120)                                   // receiver off when the outage begins
        sim.perform(.startUpdatingLocation(LocationConfiguration(desiredAccuracy: .best)))
        sim.run(until: 200)
        #expect(sim.times { $0 == .locationError(.locationUnknown) } == [121])
        #expect(sim.log.systemNotes.contains("GNSS lost (outage)"))
    }

    @Test("no network (airplane mode, no SIM) does not stop GNSS")
    func offlineKeepsGNSS() throws {
        let world = World(network: World.Network(offline: [TimeWindow(from: 0)]))
        var sim = try Self.started(route: Fixture.eastbound(speed: 5, seconds: 600), world: world)
        sim.run(until: 120)
        let gnss = sim.fixes.filter { $0.source == .gnss }
        #expect(gnss.count >= 85)
        #expect(gnss.allSatisfy { (5...10).contains($0.horizontalAccuracy ?? 0) })
    }

    @Test("a one-shot request delivers one fix within 10 s")
    func oneShot() throws {
        var sim = try Simulation(scenario: Fixture.opened(device: Fixture.existing(.authorizedWhenInUse), overrides: Fixture.noCache))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.requestLocation(.best))
        sim.run(until: 60)
        #expect(sim.fixes.count == 1)
        #expect(sim.times { if case .locations = $0 { true } else { false } }.allSatisfy { $0 <= 10 })
    }

    @Test("a one-shot request without any signal fails with locationUnknown after about 10 s")
    func oneShotFails() throws {
        let world = World(outages: [World.Outage(window: TimeWindow(from: 0))])
        var sim = try Simulation(scenario: Fixture.opened(device: Fixture.existing(.authorizedWhenInUse), world: world,
                                                          overrides: ["gnssTimeToFirstFixMinSeconds": .number(20)]))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.requestLocation(.best))
        sim.run(until: 60)
        #expect(sim.fixes.isEmpty)
        #expect(sim.locationErrors == [.locationUnknown])
        #expect(sim.times { $0 == .locationError(.locationUnknown) } == [10])
    }

    @Test("a one-shot request before authorization fails at the timeout unless the grant comes first; with the setting off it waits",
          arguments: [true, false], [3.0, 30.0])
    func oneShotBeforeAuthorization(timesOut: Bool, think: Double) throws {
        // "May time out and produce an error if authorization has not yet been granted" (Apple, requestLocation() [S37]).
        var sim = try Simulation(scenario: Fixture.opened(prompts: [.locationWhenInUse: PromptResponse(.allow, thinkSeconds: think)],
                                                          overrides: Fixture.noCache.merging(["oneShotTimesOutBeforeAuthorization": .bool(timesOut)]) { $1 }))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.requestLocation(.hundredMeters))
        sim.perform(.requestWhenInUseAuthorization)
        sim.run(until: 60)
        let grantedInTime = think < 10
        if timesOut && !grantedInTime {
            #expect(sim.times { $0 == .locationError(.locationUnknown) } == [10])
            #expect(sim.fixes.isEmpty)
        } else {
            #expect(sim.locationErrors.isEmpty)
            #expect(sim.fixes.count == 1, "the request ran once the grant came")
        }
    }

    @Test("starting updates while notDetermined waits for the answer, then runs")
    func startBeforeAuthorization() throws {
        var sim = try Simulation(scenario: Fixture.opened(overrides: Fixture.noCache))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.startUpdatingLocation(LocationConfiguration()))
        sim.perform(.requestWhenInUseAuthorization)
        sim.run(until: 1.5)
        #expect(sim.fixes.isEmpty)
        sim.run(until: 10)
        #expect(!sim.fixes.isEmpty)
    }
}
