import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkEngine

@Suite("EngineCore runs the geofence monitor")
struct GeofencingEngineCoreTests {
    @Test("fences added through the core register regions, decide on fixes and survive a second launch")
    func coreCarriesGeofences() throws {
        let t0 = GeofencingMonitorTests.t0
        var core = EngineCore()
        _ = core.handle(.launched(reason: .user), at: t0)
        let added = try core.changeFences { (m: inout GeofenceMonitor) throws(GeoError) in try m.add([GeofencingMonitorTests.shop], at: t0) }
        #expect(added.commands.contains(.startSignificantChanges))   // merged by the demand resolver
        var out = core.handle(.locations([GeofencingMonitorTests.fix(0, at: 1)]), at: t0.addingTimeInterval(1))
        #expect(out.commands.contains { if case .startMonitoring = $0 { true } else { false } })
        out = core.handle(.locations([GeofencingMonitorTests.fix(1100, at: 2)]), at: t0.addingTimeInterval(2))
        #expect(out.updates.contains { if case .geofence(.event(let e)) = $0 { e.kind == .enter } else { false } })
        _ = core.handle(.launched(reason: .location), at: t0.addingTimeInterval(3))
        #expect(core.geofences.presence(of: "shop") == .inside)
    }

    @Test("a background relaunch makes the core ask for one fix, which catches up the missed exit (issue #14)")
    func coreCatchesUpAfterRelaunch() throws {
        let t0 = GeofencingMonitorTests.t0
        var core = EngineCore()
        _ = core.handle(.launched(reason: .user), at: t0)
        _ = try core.changeFences { (m: inout GeofenceMonitor) throws(GeoError) in try m.add([GeofencingMonitorTests.shop], at: t0) }
        _ = core.handle(.locations([GeofencingMonitorTests.fix(1100, at: 1)]), at: t0.addingTimeInterval(1))
        #expect(core.geofences.presence(of: "shop") == .inside)
        // A new process, woken in the background (no location launch key under UIScene).
        var out = core.handle(.launched(reason: .background), at: t0.addingTimeInterval(900))
        #expect(out.commands.contains(.requestLocation(.best)))
        out = core.handle(.locations([GeofencingMonitorTests.fix(0, at: 903)]), at: t0.addingTimeInterval(903))
        let events = out.updates.compactMap { if case .geofence(.event(let e)) = $0 { e } else { nil } }
        #expect(events.map(\.kind) == [.exit])
        #expect(events.first?.timing == .caughtUp)
        #expect(events.first?.earliest == t0.addingTimeInterval(1))
        #expect(!core.geofences.wantsFix)
        // A visit reaches the monitor too: its departure asks for a fix.
        out = core.handle(.visit(Visit(coordinate: GeofencingMonitorTests.east(0), horizontalAccuracy: 40,
                                       arrival: t0.addingTimeInterval(910), departure: t0.addingTimeInterval(1500))),
                          at: t0.addingTimeInterval(1600))
        #expect(out.commands.contains(.requestLocation(.best)))
    }
}
