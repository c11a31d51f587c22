import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkEngine

/// Per-fence modes (issue #34): `regions` asks for no updates, `balanced` for nothing while still
/// and for updates only while a balanced boundary can be reached before the next wake, `precise` for
/// GNSS near its boundary; each fence's mode changes only what that fence costs.
@Suite("GeofenceMonitor fence modes")
struct GeofenceModeTests {
    typealias M = GeofencingMonitorTests
    static let always = LocationAuthorization(status: .authorizedAlways)

    static func fence(_ fence: Fence, _ mode: GeofenceMode) -> Fence {
        var fence = fence
        fence.mode = mode
        return fence
    }

    /// A boundary 21 km west of the origin: beyond every approach distance.
    static let lake = Fence(id: "lake", shape: .circle(center: M.east(-21_000), radiusMeters: 1000), triggers: .all)

    static func monitor(_ fences: [Fence], _ configuration: GeofenceMonitor.Configuration = .init()) throws -> GeofenceMonitor {
        var m = try M.monitor(fences, configuration)
        _ = m.handle(.authorizationChanged(always), at: M.t0)
        return m
    }

    /// A GNSS fix `east` metres east of the origin with a speed.
    static func gnss(_ east: Double, at t: Double, speed: Double = 1) -> Fix {
        Fix(coordinate: M.east(east), horizontalAccuracy: 5, speed: speed, timestamp: M.t0.addingTimeInterval(t), source: .gnss)
    }

    static func accuracy(_ m: GeofenceMonitor) -> DesiredAccuracy? { GeofenceProximityTests.standard(m)?.accuracy }

    @Test("a coarse position decides a regions fence beyond 1.5 times its accuracy; a balanced or precise one only beyond 2.5 times, and asks for a fix meanwhile")
    func coarseMarginsByMode() throws {
        // The shop's west boundary is 1,000 m east of the origin; the device is inside it, then a 1,000 m
        // cell fix comes long after the last fix, its boundary 2,000 m (between 1.5 and 2.5 times) or 2,600 m away.
        for (mode, decidesAt2000) in [(GeofenceMode.regions, true), (.balanced, false), (.precise, false)] {
            var m = try Self.monitor([Self.fence(M.shop, mode)])
            _ = M.walk(&m, [1200])
            #expect(m.presence(of: "shop") == .inside, "\(mode)")
            let between = m.handle(.significantChange(M.fix(-1000, at: 600, accuracy: 1000)), at: M.t0.addingTimeInterval(600))
            let decided = GeofencingCatchUpTests.events(between).map(\.kind)
            #expect(decided == (decidesAt2000 ? [.exit] : []), "\(mode): \(decided)")
            #expect(m.wantsFix == !decidesAt2000, "\(mode)")
            var far = try Self.monitor([Self.fence(M.shop, mode)])
            _ = M.walk(&far, [1200])
            let beyond = far.handle(.significantChange(M.fix(-1600, at: 600, accuracy: 1000)), at: M.t0.addingTimeInterval(600))
            #expect(GeofencingCatchUpTests.events(beyond).map(\.kind) == [.exit], "\(mode)")
        }
        // The factor is the configuration's, for the tracked modes only.
        var lenient = try Self.monitor([Self.fence(M.shop, .balanced)], .init(trackedCoarseMarginFactor: 1.5))
        _ = M.walk(&lenient, [1200])
        let out = lenient.handle(.significantChange(M.fix(-1000, at: 600, accuracy: 1000)), at: M.t0.addingTimeInterval(600))
        #expect(GeofencingCatchUpTests.events(out).map(\.kind) == [.exit])
    }

    @Test("a Wi-Fi fix (40 m) decides a regions fence 41 m past its boundary; a balanced or precise one only beyond 2.5 times its accuracy")
    func wifiMarginsByMode() throws {
        var configuration = GeofenceMonitor.Configuration()
        configuration.proximity.restsGNSS = false                  // no GNSS rest: the margin alone decides
        func wifi(_ east: Double, at t: Double) -> Fix {
            Fix(coordinate: M.east(east), horizontalAccuracy: 40, timestamp: M.t0.addingTimeInterval(t), source: .wifi)
        }
        for (mode, decidesAt41) in [(GeofenceMode.regions, true), (.balanced, false), (.precise, false)] {
            var m = try Self.monitor([Self.fence(M.shop, mode)], configuration)
            _ = M.walk(&m, [900])                                   // outside, 100 m from the boundary
            #expect(m.presence(of: "shop") == .outside, "\(mode)")
            _ = m.handle(.locations([wifi(1_041, at: 2)]), at: M.t0.addingTimeInterval(2))
            #expect(m.presence(of: "shop") == (decidesAt41 ? .inside : .outside), "\(mode) at 41 m")
            _ = m.handle(.locations([wifi(1_099, at: 3)]), at: M.t0.addingTimeInterval(3))
            #expect(m.presence(of: "shop") == (decidesAt41 ? .inside : .outside), "\(mode) at 99 m")
            _ = m.handle(.locations([wifi(1_101, at: 4)]), at: M.t0.addingTimeInterval(4))
            #expect(m.presence(of: "shop") == .inside, "\(mode) at 101 m")
        }
    }

    @Test("a fence decodes without a mode as balanced, and round-trips its mode")
    func coding() throws {
        let old = #"{"id":"a","shape":{"circle":{"center":{"latitude":46.05,"longitude":14.5},"radiusMeters":150}},"triggers":3,"loiteringDelay":300,"userData":{}}"#
        let decoded = try JSONDecoder().decode(Fence.self, from: Data(old.utf8))
        #expect(decoded.mode == .balanced)
        let precise = Self.fence(M.shop, .precise)
        #expect(try JSONDecoder().decode(Fence.self, from: JSONEncoder().encode(precise)) == precise)
        #expect(Fence(id: "x", shape: M.shop.shape).mode == .balanced, "balanced is the default")
    }

    @Test("each mode's demand 200 m from the shop's boundary, moving: regions nothing, balanced hundred metres, precise best")
    func demandByMode() throws {
        let expected: [GeofenceMode: DesiredAccuracy?] = [.regions: nil, .balanced: .hundredMeters, .precise: .best]
        for (mode, accuracy) in expected {
            var m = try Self.monitor([Self.fence(M.shop, mode)])
            _ = m.handle(.locations([Self.gnss(800, at: 0)]), at: M.t0)
            #expect(Self.accuracy(m) == accuracy, "\(mode)")
        }
    }

    @Test("a fence's mode changes only that fence's cost: the far lake's mode never changes the demand near the shop")
    func modeChangesOnlyItsFence() throws {
        for shopMode in GeofenceMode.allCases {
            var demands: [DesiredAccuracy?] = []
            for lakeMode in GeofenceMode.allCases {
                var m = try Self.monitor([Self.fence(M.shop, shopMode), Self.fence(Self.lake, lakeMode)])
                _ = m.handle(.locations([Self.gnss(800, at: 0)]), at: M.t0)
                demands.append(Self.accuracy(m))
            }
            #expect(Set(demands.map { "\(String(describing: $0))" }).count == 1, "shop \(shopMode): \(demands)")
        }
        // And the shop's own mode does change it (demandByMode).
    }

    @Test("balanced, moving at 1 m/s (reach 4 m/s): hundred metres while a boundary is within the reach before the next wake, at most 1000 m; GNSS within 60 m",
          arguments: [(0.0, 300.0, DesiredAccuracy?.some(.hundredMeters)), (-10.0, 300.0, nil),      // the 1000 m cap
                      (595.0, 100.0, .hundredMeters), (590.0, 100.0, nil),                          // 100 s × 4 m/s = 400 m
                      (935.0, 300.0, .best), (930.0, 300.0, .hundredMeters)])                       // the 60 m near distance
    func balancedThresholds(east: Double, wakeInterval: Double, expected: DesiredAccuracy?) throws {
        // Boundary at 1000 m east; accuracy 5 m: distance − 5 against the limits.
        var configuration = GeofenceMonitor.Configuration()
        configuration.balanced.wakeIntervalSeconds = wakeInterval
        var m = try Self.monitor([M.shop], configuration)
        _ = m.handle(.locations([Self.gnss(east, at: 0)]), at: M.t0)
        #expect(Self.accuracy(m) == expected, "at \(east) m")
    }

    @Test("balanced, still (motion: stationary with medium confidence): no updates, a stationary region; its exit brings them back")
    func stillThenMoving() throws {
        var m = try Self.monitor([M.shop])
        _ = m.handle(.locations([Self.gnss(800, at: 0)]), at: M.t0)
        #expect(Self.accuracy(m) == .hundredMeters)
        var out = m.handle(.motionActivity(MotionActivity(.stationary, confidence: .low)), at: M.t0.addingTimeInterval(5))
        #expect(Self.accuracy(m) == .hundredMeters, "low confidence is not enough")
        out = m.handle(.motionActivity(MotionActivity(.stationary, confidence: .medium)), at: M.t0.addingTimeInterval(10))
        #expect(Self.accuracy(m) == nil)
        let still = GeofenceMonitor.Configuration().stillRegionIdentifier
        #expect(out.commands.contains { if case .startMonitoring(let r) = $0 { r.identifier == still && r.radiusMeters == 150 } else { false } })
        #expect(m.persistentState.restingPlace != nil)
        out = m.handle(.regionExited(identifier: still), at: M.t0.addingTimeInterval(900))
        #expect(Self.accuracy(m) == .hundredMeters)
        #expect(out.commands.contains(DeviceCommand.stopMonitoring(identifier: still)))
        #expect(m.persistentState.restingPlace == nil)
    }

    @Test("balanced services: motion and visits start once, with the first balanced fence under Always")
    func services() throws {
        var m = try M.monitor([M.shop])
        let out = m.handle(.authorizationChanged(Self.always), at: M.t0)
        #expect(out.commands.contains(.startMotionActivityUpdates) && out.commands.contains(.startMonitoringVisits))
        let again = m.handle(.locations([Self.gnss(0, at: 1)]), at: M.t0.addingTimeInterval(1))
        #expect(!again.commands.contains(.startMotionActivityUpdates))
        var regions = try M.monitor([Self.fence(M.shop, .regions)])
        let none = regions.handle(.authorizationChanged(Self.always), at: M.t0)
        #expect(!none.commands.contains(.startMotionActivityUpdates))
    }

    @Test("a balanced fence keeps one slot for the stationary region; a regions fence does not")
    func slot() throws {
        #expect(try Self.monitor([M.shop]).slotBudget == 19)
        #expect(try Self.monitor([Self.fence(M.shop, .regions)]).slotBudget == 20)
    }

    @Test("balanced: a crossing iOS reports first waits for a fix; the fix decides it")
    func iosFirstConfirmed() throws {
        var m = try Self.monitor([M.shop])
        _ = m.handle(.locations([Self.gnss(-3_000, at: 0)]), at: M.t0)
        #expect(m.presence(of: "shop") == .outside)
        let region = GeofenceMonitor.Configuration().regionIdentifier(forFence: "shop")
        var out = m.handle(.regionEntered(identifier: region), at: M.t0.addingTimeInterval(600))
        #expect(!out.updates.contains { if case .event = $0 { true } else { false } })
        #expect(m.wantsFix)
        #expect(m.demands.contains(.oneFix(.best)), "4 km from the boundary: no updates, one fix")
        out = m.handle(.locations([Self.gnss(1_150, at: 605)]), at: M.t0.addingTimeInterval(605))
        let events = out.updates.compactMap { if case .event(let e) = $0 { e } else { nil } }
        #expect(events.map(\.kind) == [.enter])
        #expect(events.first?.timing == .caughtUp, "found late: marked so, with its bounds")
        #expect(events.first?.earliest != nil)
    }

    @Test("balanced: a crossing iOS reports first stands when no fix comes in time (marked osDelayed); regions: delivered at once")
    func iosFirstFallsBack() throws {
        let region = GeofenceMonitor.Configuration().regionIdentifier(forFence: "shop")
        var m = try Self.monitor([M.shop])
        _ = m.handle(.locations([Self.gnss(-3_000, at: 0)]), at: M.t0)
        _ = m.handle(.regionEntered(identifier: region), at: M.t0.addingTimeInterval(600))
        let due = try #require(m.nextDeadline)
        let out = m.deadlineReached(at: due)
        let events = out.updates.compactMap { if case .event(let e) = $0 { e } else { nil } }
        #expect(events.map(\.kind) == [.enter])
        #expect(events.first?.timing == .osDelayed)

        var regions = try Self.monitor([Self.fence(M.shop, .regions)])
        _ = regions.handle(.locations([Self.gnss(-3_000, at: 0)]), at: M.t0)
        let at = regions.handle(.regionEntered(identifier: region), at: M.t0.addingTimeInterval(600))
        #expect(at.updates.contains { if case .event(let e) = $0 { e.kind == .enter && e.timing == .osDelayed } else { false } })
    }

    @Test("without Always with full accuracy every fence is monitored as regions")
    func needsAlways() throws {
        var m = try M.monitor([M.shop])
        _ = m.handle(.authorizationChanged(LocationAuthorization(status: .authorizedWhenInUse)), at: M.t0)
        _ = m.handle(.locations([Self.gnss(800, at: 0)]), at: M.t0)
        #expect(Self.accuracy(m) == nil)
        #expect(m.slotBudget == 20)
    }

    @Test("proximity tracking off: precise fences are monitored as balanced")
    func preciseOff() throws {
        var configuration = GeofenceMonitor.Configuration()
        configuration.proximity = .off
        var m = try Self.monitor([Self.fence(M.shop, .precise)], configuration)
        _ = m.handle(.locations([Self.gnss(800, at: 0)]), at: M.t0)
        #expect(Self.accuracy(m) == .hundredMeters)
    }

    @Test("a bad balanced or proximity setting is named")
    func contract() {
        var c = GeofenceMonitor.Configuration()
        c.balanced.nearMeters = 0
        c.balanced.restSeconds = 0...10
        c.balanced.latencyBudgetSeconds = -1
        c.proximity.latencyBudgetSeconds = -.infinity
        let v = c.contractViolations
        #expect(v.contains { $0.contains("balanced.nearMeters") }, "\(v)")
        #expect(v.contains { $0.contains("balanced.restSeconds") }, "\(v)")
        #expect(v.contains { $0.contains("balanced.latencyBudgetSeconds") }, "\(v)")
        #expect(v.contains { $0.contains("proximity.latencyBudgetSeconds") }, "\(v)")
        #expect(GeofenceMonitor.Configuration().contractViolations.isEmpty)
    }
}

/// ``MotionGate``: still or moving, on both sides of each threshold.
@Suite("MotionGate")
struct MotionGateTests {
    typealias M = GeofencingMonitorTests
    static let still = "waymark.still"

    static func fix(_ east: Double, at t: Double, speed: Double?, accuracy: Double = 5) -> Fix {
        Fix(coordinate: M.east(east), horizontalAccuracy: accuracy, speed: speed, timestamp: M.t0.addingTimeInterval(t), source: .gnss)
    }

    static func gate(_ events: [DeviceEvent]) -> MotionGate {
        var g = MotionGate(settings: BalancedTracking())
        for (i, e) in events.enumerated() { g.handle(e, at: M.t0.addingTimeInterval(Double(i)), stillRegion: still) }
        return g
    }

    @Test("motion: stationary needs medium confidence; any moving kind counts at low; unknown counts for nothing")
    func motion() {
        #expect(Self.gate([.motionActivity(MotionActivity(.stationary, confidence: .low))]).verdict == .unknown)
        #expect(Self.gate([.motionActivity(MotionActivity(.stationary, confidence: .medium))]).verdict == .still)
        #expect(Self.gate([.motionActivity(MotionActivity(.stationary, confidence: .high)),
                           .motionActivity(MotionActivity(.walking, confidence: .low))]).verdict == .moving)
        #expect(Self.gate([.motionActivity(MotionActivity(.stationary, confidence: .high)),
                           .motionActivity(MotionActivity(.unknown, confidence: .high))]).verdict == .still)
    }

    @Test("a GNSS speed of 1 m/s is moving, 0.9 m/s is not")
    func speed() {
        let base: [DeviceEvent] = [.motionActivity(MotionActivity(.stationary, confidence: .high))]
        #expect(Self.gate(base + [.locations([Self.fix(0, at: 1, speed: 1.0)])]).verdict == .moving)
        #expect(Self.gate(base + [.locations([Self.fix(0, at: 1, speed: 0.9)])]).verdict == .still)
    }

    @Test("positions within their accuracy make the device still after 120 s, not at 119 s")
    func positions() {
        var g = MotionGate(settings: BalancedTracking())
        g.handle(.locations([Self.fix(0, at: 0, speed: 0)]), at: M.t0, stillRegion: Self.still)
        g.handle(.locations([Self.fix(3, at: 119, speed: 0.2)]), at: M.t0.addingTimeInterval(119), stillRegion: Self.still)
        #expect(g.verdict != .still)
        g.handle(.locations([Self.fix(2, at: 120, speed: 0.2)]), at: M.t0.addingTimeInterval(120), stillRegion: Self.still)
        #expect(g.verdict == .still)
    }

    @Test("still: a significant change near the place keeps it still; one clearly away, a stationary-region exit or a visit departure moves it")
    func wakes() {
        let base: [DeviceEvent] = [.locations([Self.fix(0, at: 0, speed: 0)]),
                                   .motionActivity(MotionActivity(.stationary, confidence: .high))]
        // Away means beyond 150 m + twice the accuracy + the place's accuracy (5 m): 100 m accuracy → 355 m.
        #expect(Self.gate(base + [.significantChange(Self.fix(350, at: 900, speed: nil, accuracy: 100))]).verdict == .still)
        #expect(Self.gate(base + [.significantChange(Self.fix(360, at: 900, speed: nil, accuracy: 100))]).verdict == .moving)
        #expect(Self.gate(base + [.regionExited(identifier: Self.still)]).verdict == .moving)
        let departure = Visit(coordinate: M.east(0), horizontalAccuracy: 50, arrival: M.t0, departure: M.t0.addingTimeInterval(600))
        #expect(Self.gate(base + [.visit(departure)]).verdict == .moving)
        let arrival = Visit(coordinate: M.east(0), horizontalAccuracy: 50, arrival: M.t0, departure: nil)
        #expect(Self.gate([.visit(arrival)]).verdict == .still)
        #expect(Self.gate([.locationUpdatesPaused]).verdict == .still)
    }

    @Test("the reach speed: 1.5 times a GNSS speed from the last two minutes plus 2 m/s, at least 4; else the assumed 20 m/s")
    func reach() {
        var g = MotionGate(settings: BalancedTracking())
        #expect(g.reachSpeed(at: M.t0) == 20)
        g.handle(.locations([Self.fix(0, at: 0, speed: 10)]), at: M.t0, stillRegion: Self.still)
        #expect(g.reachSpeed(at: M.t0.addingTimeInterval(120)) == 17)
        #expect(g.reachSpeed(at: M.t0.addingTimeInterval(121)) == 20)
        g.handle(.locations([Self.fix(1, at: 1, speed: 1)]), at: M.t0.addingTimeInterval(1), stillRegion: Self.still)
        #expect(g.reachSpeed(at: M.t0.addingTimeInterval(1)) == 4)
    }
}

/// ``ProximityTracker``: tiers and rests on both sides of each threshold.
@Suite("ProximityTracker")
struct ProximityTrackerTests {
    static let settings = ProximityTracker.Settings(nearMeters: 300, restsGNSS: true, restSeconds: 15...120,
                                                    gnssReacquireSeconds: 5, pausesAutomatically: true)
    static let here = GeofencingMonitorTests.origin

    static func tier(_ distance: Double, accuracy: Double = 10, approach: Double = 1500, active: Bool = true,
                     from previous: Double? = nil) -> ProximityTracker.Tier {
        var t = ProximityTracker(settings: settings)
        if let previous {
            t.note(here, accuracy: accuracy)
            t.updateTier(active: true, approachMeters: approach) { _, h in previous <= h ? previous : nil }
        }
        t.note(here, accuracy: accuracy)
        t.updateTier(active: active, approachMeters: approach) { _, h in distance <= h ? distance : nil }
        return t.tier
    }

    @Test("near within 300 m beyond the accuracy, approach within 1500 m, far beyond; inactive is far")
    func tiers() {
        #expect(Self.tier(310) == .near)
        #expect(Self.tier(311) == .approach)
        #expect(Self.tier(1510) == .approach)
        #expect(Self.tier(1511) == .far)
        #expect(Self.tier(100, active: false) == .far)
    }

    @Test("the near tier is left only beyond 1.5 times its distance")
    func hysteresis() {
        #expect(Self.tier(460, from: 100) == .near)
        #expect(Self.tier(461, from: 100) == .approach)
    }

    static func rest(_ settings: ProximityTracker.Settings, _ boundaries: [(Double, Double)]) -> Double? {
        ProximityTracker.restSeconds(speed: 0, accuracy: 5, enterDepth: 20, settings: settings) { _ in
            boundaries.map { ProximityTracker.Boundary(distance: $0.0, passMeters: $0.1) }
        }
    }

    @Test("a rest is taken when it lasts at least 15 s and is cut at 120 s")
    func rests() {
        let s = Self.settings
        // speed 0 → reach 4 m/s; margin 20 + 5 + 20 = 45 m: a boundary 105 m away gives 15 s.
        #expect(Self.rest(s, [(105, .infinity)]) == 15)
        #expect(Self.rest(s, [(104, .infinity)]) == nil)
        #expect(Self.rest(s, []) == 120)
        #expect(Self.rest(s, [(105, .infinity), (104, .infinity)]) == nil, "the nearest boundary counts")
    }

    @Test("the latency budget: the rest runs past the earliest arrival by the budget or the time to pass through, whichever is shorter")
    func latencyBudget() {
        var s = Self.settings
        s.latencyBudgetSeconds = 10
        // (65 - 45) / 4 + 10 = 15: taken; 64 m gives 14.75: not.
        #expect(Self.rest(s, [(65, .infinity)]) == 15)
        #expect(Self.rest(s, [(64, .infinity)]) == nil)
        s.latencyBudgetSeconds = 30
        // From inside (no limit) 50 m away: 1.25 + 30 s.
        #expect(Self.rest(s, [(50, .infinity)]) == 31.25)
        // From outside a circle the overrun is at most its pass: 80 m at 4 m/s is 20 s; 160 m is 40, cut to 30.
        #expect(Self.rest(s, [(50, 80)]) == 21.25)
        #expect(Self.rest(s, [(50, 160)]) == 31.25)
        // From outside a polygon, none: 1.25 s is no rest.
        #expect(Self.rest(s, [(50, 0)]) == nil)
        #expect(Self.rest(s, [(50, .infinity), (50, 0)]) == nil, "each boundary's own limit; the least counts")
    }

    @Test("paused by iOS: far until a sign of movement")
    func paused() {
        var t = ProximityTracker(settings: Self.settings)
        t.note(Self.here, accuracy: 10)
        t.handle(.locationUpdatesPaused)
        t.updateTier(active: true, approachMeters: 1500) { _, _ in 100 }
        #expect(t.tier == .far)
        t.handle(.willEnterForeground)
        t.updateTier(active: true, approachMeters: 1500) { _, _ in 100 }
        #expect(t.tier == .near)
    }
}

/// ``FixWait`` and ``RegionBudget``, the monitor's other owned parts.
@Suite("GeofenceMonitor owned parts: FixWait, RegionBudget")
struct GeofenceMonitorPartsTests {
    typealias M = GeofencingMonitorTests

    @Test("a wait answers fixes from its start less the freshness, keeps its start when extended, and expires at its deadline")
    func wait() {
        var w = FixWait()
        #expect(!w.answers(M.fix(0, at: 100), freshness: 20))
        w.beginCatchUp(at: M.t0.addingTimeInterval(100), timeout: 60)
        #expect(w.wantsFix && w.holdsTimers)
        #expect(w.answers(M.fix(0, at: 80), freshness: 20))
        #expect(!w.answers(M.fix(0, at: 79), freshness: 20))
        w.beginCatchUp(at: M.t0.addingTimeInterval(130), timeout: 60)
        #expect(w.catchUpSince == M.t0.addingTimeInterval(100) && w.deadline == M.t0.addingTimeInterval(190))
        #expect(!w.expired(at: M.t0.addingTimeInterval(189)) && w.expired(at: M.t0.addingTimeInterval(190)))
        w.end()
        #expect(!w.wantsFix && w.deadline == nil)
        w.awaitPosition(at: M.t0, timeout: 60)
        #expect(w.wantsFix && !w.holdsTimers)
        w.positionCame()
        #expect(!w.wantsFix)
        w.settle(wanted: false)
        #expect(w.since == nil)
    }

    @Test("the budget: granted less host, reserved, the stationary slot and refusals; blocked by denied until authorization allows")
    func budget() {
        var c = GeofenceMonitor.Configuration(regionSlots: 20, hostRegionIdentifiers: ["a", "b"], hostRegionCount: 1, reservedRegionSlots: 1)
        var b = RegionBudget(configuration: c)
        #expect(b.available(penalty: 0, keepsStillSlot: false) == 17)
        #expect(b.available(penalty: 2, keepsStillSlot: true) == 14)
        #expect(b.refused(.tooManyRegions) == 1)
        #expect(b.refused(.failed) == 0 && !b.blocked)
        #expect(b.refused(.denied) == 0 && b.blocked)
        #expect(b.available(penalty: 0, keepsStillSlot: false) == 0)
        let lifted = b.authorizationAllows()
        #expect(lifted && !b.blocked)
        let again = b.authorizationAllows()
        #expect(!again)
        c.regionSlots = 2
        #expect(RegionBudget(configuration: c).available(penalty: 5, keepsStillSlot: true) == 0)
    }
}
