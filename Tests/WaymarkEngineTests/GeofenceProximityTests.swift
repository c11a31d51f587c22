import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkEngine

/// ``ProximityTracking``: standard updates while fences are near, best accuracy at a boundary,
/// hundred-metre accuracy on the approach, nothing far away; paused by iOS until the device moves.
@Suite("GeofenceMonitor proximity tracking")
struct GeofenceProximityTests {
    typealias M = GeofencingMonitorTests
    static let always = LocationAuthorization(status: .authorizedAlways)

    /// The shop as a precise fence.
    static let preciseShop = GeofenceModeTests.fence(M.shop, .precise)

    /// A monitor for the precise shop (boundary 1000 m east) with proximity tracking on and Always granted.
    static func tracking(_ proximity: ProximityTracking = .on,
                         authorization: LocationAuthorization = always) throws -> GeofenceMonitor {
        var configuration = GeofenceMonitor.Configuration()
        configuration.proximity = proximity
        var m = try M.monitor([preciseShop], configuration)
        _ = m.handle(.authorizationChanged(authorization), at: M.t0)
        return m
    }

    static func standard(_ m: GeofenceMonitor) -> StandardDemand? {
        m.demands.lazy.compactMap { if case .standard(let s) = $0 { s } else { nil } }.first
    }

    @Test("far: no updates; approaching: hundred metres; at the boundary: best; in the background, pausable")
    func tiers() throws {
        var m = try Self.tracking()
        _ = M.walk(&m, [-2_000])                                    // 3 km from the boundary
        #expect(Self.standard(m) == nil)
        _ = M.walk(&m, [0], from: 10)                               // 1 km: approaching
        #expect(Self.standard(m)?.accuracy == .hundredMeters)
        _ = M.walk(&m, [800], from: 20)                             // 200 m: near
        let near = try #require(Self.standard(m))
        #expect(near.accuracy == .best)
        #expect(near.background && near.pausesAutomatically)
    }

    @Test("the near tier is left only at one and a half times its distance, so it does not flap")
    func hysteresis() throws {
        var m = try Self.tracking(ProximityTracking(enabled: true, restsGNSS: false))
        _ = M.walk(&m, [800], from: 0)                              // 200 m: near
        #expect(Self.standard(m)?.accuracy == .best)
        _ = M.walk(&m, [650], from: 10)                             // 350 m: still near (limit 450)
        #expect(Self.standard(m)?.accuracy == .best)
        _ = M.walk(&m, [500], from: 20)                             // 500 m: approach
        #expect(Self.standard(m)?.accuracy == .hundredMeters)
        _ = M.walk(&m, [650], from: 30)                             // 350 m: not near again until 300 m
        #expect(Self.standard(m)?.accuracy == .hundredMeters)
    }

    @Test("only for precise fences, and without Always authorization with full accuracy it asks for nothing",
          arguments: [LocationAuthorization(status: .authorizedWhenInUse), LocationAuthorization(status: .authorizedAlways, accuracy: .reduced)])
    func needsAlways(authorization: LocationAuthorization) throws {
        var off = try M.monitor([GeofenceModeTests.fence(M.shop, .regions)])
        _ = off.handle(.authorizationChanged(Self.always), at: M.t0)
        _ = M.walk(&off, [800])
        #expect(Self.standard(off) == nil, "a regions fence asks for no updates")
        var m = try Self.tracking(authorization: authorization)
        _ = M.walk(&m, [800])
        #expect(Self.standard(m) == nil)
    }

    @Test("paused by iOS: nothing until the device moves; an idle significant change where it paused does not count")
    func pausedUntilMoved() throws {
        var m = try Self.tracking()
        _ = M.walk(&m, [800])
        #expect(Self.standard(m) != nil)
        _ = m.handle(.locationUpdatesPaused, at: M.t0.addingTimeInterval(900))
        #expect(Self.standard(m) == nil)
        _ = m.handle(.significantChange(M.fix(850, at: 1_800, accuracy: 100)), at: M.t0.addingTimeInterval(1_800))
        #expect(Self.standard(m) == nil, "the idle wake is 50 m from where the updates paused")
        _ = m.deadlineReached(at: M.t0.addingTimeInterval(1_861))   // its catch-up (the shop is 150 m away) gets no fix
        _ = m.handle(.significantChange(M.fix(400, at: 2_700, accuracy: 100)), at: M.t0.addingTimeInterval(2_700))
        #expect(Self.standard(m)?.accuracy == .hundredMeters, "450 m from where it paused: moving again, 600 m from the shop")
    }

    @Test("a region exit or the app opening ends the pause", arguments: [
        DeviceEvent.regionExited(identifier: GeofenceMonitor.Configuration().refreshRegionIdentifier), .willEnterForeground,
    ])
    func pauseEndsOn(event: DeviceEvent) throws {
        var m = try Self.tracking()
        _ = M.walk(&m, [800])
        _ = m.handle(.locationUpdatesPaused, at: M.t0.addingTimeInterval(900))
        #expect(Self.standard(m) == nil)
        _ = m.handle(event, at: M.t0.addingTimeInterval(1_000))
        #expect(Self.standard(m) != nil)
    }
}

/// GNSS rests near fences for as long as the device cannot reach the nearest boundary.
@Suite("GeofenceMonitor proximity tracking: GNSS rests")
struct GeofenceProximityRestTests {
    typealias M = GeofencingMonitorTests
    typealias P = GeofenceProximityTests

    static func gnss(_ east: Double, at t: Double, speed: Double) -> Fix {
        Fix(coordinate: M.east(east), horizontalAccuracy: 5, speed: speed, timestamp: M.t0.addingTimeInterval(t), source: .gnss)
    }

    /// Proximity tracking without a latency budget: every rest ends before the device could reach a boundary.
    static let strict = ProximityTracking(latencyBudgetSeconds: 0)

    @Test("250 m from the shop at 5 m/s: GNSS rests (hundred metres) until the rest ends, then best again; the latency budget lengthens the rest by 30 s")
    func restsAndWakes() throws {
        // reach 9.5 m/s, margin 20 + 5 + 47.5 m: (249 - 72.5) / 9.5 ≈ 18.6 s from t = 1; with the
        // budget 30 s more (passing through the shop, 360 m at 9.5 m/s, takes longer).
        for (proximity, end) in [(Self.strict, 19.6), (ProximityTracking.on, 49.6)] {
            var m = try P.tracking(proximity)
            _ = m.handle(.locations([Self.gnss(750, at: 0, speed: 5)]), at: M.t0)               // tier becomes near
            _ = m.handle(.locations([Self.gnss(751, at: 1, speed: 5)]), at: M.t0.addingTimeInterval(1))
            #expect(P.standard(m)?.accuracy == .hundredMeters, "resting")
            #expect(P.standard(m)?.distanceFilterMeters == ProximityTracker.restDistanceFilterMeters)
            let due = try #require(m.nextDeadline)
            #expect(abs(due.timeIntervalSince(M.t0) - end) < 0.5, "\(due.timeIntervalSince(M.t0))")
            _ = m.deadlineReached(at: due.addingTimeInterval(-1))
            #expect(P.standard(m)?.accuracy == .hundredMeters, "still resting a second before its end")
            _ = m.deadlineReached(at: due)
            #expect(P.standard(m)?.accuracy == .best, "awake at the end of the rest")
        }
    }

    @Test("without a budget, near the boundary or moving fast, no rest is taken", arguments: [(960.0, 5.0), (700.0, 30.0)])
    func noRest(east: Double, speed: Double) throws {
        var m = try P.tracking(Self.strict)
        _ = m.handle(.locations([Self.gnss(east, at: 0, speed: speed)]), at: M.t0)
        _ = m.handle(.locations([Self.gnss(east + 1, at: 1, speed: speed)]), at: M.t0.addingTimeInterval(1))
        #expect(P.standard(m)?.accuracy == .best)
    }

    @Test("with the budget, 40 m from the boundary at 5 m/s GNSS rests; at 30 m/s the shop could be passed through, so it does not")
    func budgetRests() throws {
        var slow = try P.tracking()
        _ = slow.handle(.locations([Self.gnss(960, at: 0, speed: 5)]), at: M.t0)
        _ = slow.handle(.locations([Self.gnss(961, at: 1, speed: 5)]), at: M.t0.addingTimeInterval(1))
        // (39 - 72.5) / 9.5 + 30 ≈ 26.5 s.
        #expect(P.standard(slow)?.accuracy == .hundredMeters)
        let due = try #require(slow.nextDeadline)
        #expect(abs(due.timeIntervalSince(M.t0) - 27.5) < 0.5, "\(due.timeIntervalSince(M.t0))")
        // reach 47 m/s: (299 - 260) / 47 + 360 / 47 ≈ 8.5 s, under the 15 s minimum.
        var fast = try P.tracking()
        _ = fast.handle(.locations([Self.gnss(700, at: 0, speed: 30)]), at: M.t0)
        _ = fast.handle(.locations([Self.gnss(701, at: 1, speed: 30)]), at: M.t0.addingTimeInterval(1))
        #expect(P.standard(fast)?.accuracy == .best)
    }

    @Test("resting with the budget: a Wi-Fi position inside the shop by more than its accuracy ends the rest; by less it does not; neither decides, nor does Wi-Fi before GNSS is back")
    func wifiAcrossEndsRest() throws {
        func resting() throws -> GeofenceMonitor {
            var m = try P.tracking()
            _ = m.handle(.locations([Self.gnss(960, at: 0, speed: 5)]), at: M.t0)
            _ = m.handle(.locations([Self.gnss(961, at: 1, speed: 5)]), at: M.t0.addingTimeInterval(1))
            return m
        }
        func wifi(_ east: Double, at t: Double) -> Fix {
            Fix(coordinate: M.east(east), horizontalAccuracy: 40, timestamp: M.t0.addingTimeInterval(t), source: .wifi)
        }
        var shallow = try resting()
        _ = shallow.handle(.locations([wifi(1_039, at: 5)]), at: M.t0.addingTimeInterval(5))     // 39 m inside
        #expect(P.standard(shallow)?.accuracy == .hundredMeters, "within its accuracy: noise")
        var deep = try resting()
        _ = deep.handle(.locations([wifi(1_041, at: 5)]), at: M.t0.addingTimeInterval(5))        // 41 m inside
        #expect(P.standard(deep)?.accuracy == .best, "the rest ends")
        #expect(deep.presence(of: "shop") == .outside, "a Wi-Fi position decides nothing")
        func decisionGrade(at t: Double) -> Fix {       // 100 m inside, beyond 2.5 times its 30 m accuracy
            Fix(coordinate: M.east(1_100), horizontalAccuracy: 30, timestamp: M.t0.addingTimeInterval(t), source: .wifi)
        }
        var gnssBack = deep
        _ = deep.handle(.locations([decisionGrade(at: 6)]), at: M.t0.addingTimeInterval(6))
        #expect(deep.presence(of: "shop") == .outside, "nor a decision-grade one while GNSS comes back")
        _ = deep.handle(.locations([decisionGrade(at: 20)]), at: M.t0.addingTimeInterval(20))
        #expect(deep.presence(of: "shop") == .outside, "15 s after the rest ended (3 times gnssReacquireSeconds) it still waits")
        _ = deep.handle(.locations([decisionGrade(at: 20.5)]), at: M.t0.addingTimeInterval(20.5))
        #expect(deep.presence(of: "shop") == .inside, "no GNSS after that: Wi-Fi decides again")
        _ = gnssBack.handle(.locations([Self.gnss(1_060, at: 8, speed: 5)]), at: M.t0.addingTimeInterval(8))
        #expect(gnssBack.presence(of: "shop") == .inside, "GNSS decides")
    }

    @Test("resting: a coarse fix across the boundary and an iOS event decide nothing; rests off, the same fix decides")
    func restIgnoresNoise() throws {
        var m = try P.tracking(Self.strict)
        _ = m.handle(.locations([Self.gnss(750, at: 0, speed: 5)]), at: M.t0)
        _ = m.handle(.locations([Self.gnss(751, at: 1, speed: 5)]), at: M.t0.addingTimeInterval(1))
        #expect(m.presence(of: "shop") == .outside)
        let wifi = Fix(coordinate: M.east(1_100), horizontalAccuracy: 40, timestamp: M.t0.addingTimeInterval(5), source: .wifi)
        _ = m.handle(.locations([wifi]), at: M.t0.addingTimeInterval(5))
        _ = m.handle(.regionEntered(identifier: GeofenceMonitor.Configuration().regionIdentifier(forFence: "shop")),
                     at: M.t0.addingTimeInterval(6))
        #expect(m.presence(of: "shop") == .outside, "the rest's guarantee: the device cannot be in the shop yet")

        var noRest = try P.tracking(ProximityTracking(enabled: true, restsGNSS: false))
        _ = noRest.handle(.locations([Self.gnss(750, at: 0, speed: 5)]), at: M.t0)
        _ = noRest.handle(.locations([Self.gnss(751, at: 1, speed: 5)]), at: M.t0.addingTimeInterval(1))
        _ = noRest.handle(.locations([wifi]), at: M.t0.addingTimeInterval(5))
        #expect(noRest.presence(of: "shop") == .inside, "without a rest the 40 m fix 100 m inside decides")
    }
}
