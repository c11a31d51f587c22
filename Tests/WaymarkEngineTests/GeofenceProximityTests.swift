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

    /// A monitor for the shop (boundary 1000 m east) with proximity tracking on and Always granted.
    static func tracking(_ proximity: ProximityTracking = .on,
                         authorization: LocationAuthorization = always) throws -> GeofenceMonitor {
        var configuration = GeofenceMonitor.Configuration()
        configuration.proximity = proximity
        var m = try M.monitor([M.shop], configuration)
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
        var m = try Self.tracking()
        _ = M.walk(&m, [800], from: 0)                              // 200 m: near
        #expect(Self.standard(m)?.accuracy == .best)
        _ = M.walk(&m, [650], from: 10)                             // 350 m: still near (limit 450)
        #expect(Self.standard(m)?.accuracy == .best)
        _ = M.walk(&m, [500], from: 20)                             // 500 m: approach
        #expect(Self.standard(m)?.accuracy == .hundredMeters)
        _ = M.walk(&m, [650], from: 30)                             // 350 m: not near again until 300 m
        #expect(Self.standard(m)?.accuracy == .hundredMeters)
    }

    @Test("off by default, and without Always authorization with full accuracy it asks for nothing",
          arguments: [LocationAuthorization(status: .authorizedWhenInUse), LocationAuthorization(status: .authorizedAlways, accuracy: .reduced)])
    func needsAlways(authorization: LocationAuthorization) throws {
        var off = try M.monitor()
        _ = off.handle(.authorizationChanged(Self.always), at: M.t0)
        _ = M.walk(&off, [800])
        #expect(Self.standard(off) == nil, "off by default")
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
