import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkEngine

/// Review 2, M2 and M3: a failure of one region (Core Location's generic failure, a `CLMonitor`
/// condition's `unmonitored`) drops that region alone; only denied and unavailable monitoring block
/// every fence until authorization changes.
@Suite("Geofencing: a region's failure is that region's")
struct GeofenceRegionFailureTests {
    typealias T = GeofencingMonitorTests

    static func started(_ out: GeofenceMonitor.Output) -> [String] {
        out.commands.compactMap { if case .startMonitoring(let r) = $0 { r.identifier } else { nil } }
    }

    static func monitoring() throws -> (GeofenceMonitor, [String]) {
        let fences = (0..<5).map { Fence(id: "f\($0)", shape: .circle(center: T.east(Double($0) * 500 + 1000), radiusMeters: 100)) }
        var m = try T.monitor(fences)
        let out = m.handle(.locations([T.fix(0, at: 0)]), at: T.t0)
        return (m, Self.started(out))
    }

    @Test("a generic failure (.failed) keeps the budget and the other regions; the region is retried after the next move",
          arguments: [RegionFailure.failed, .radiusTooLarge])
    func perRegion(reason: RegionFailure) throws {
        var (m, started) = try Self.monitoring()
        #expect(started.contains("waymark.fence.f0"))
        let budget = m.slotBudget
        _ = m.handle(.regionMonitoringFailed(identifier: "waymark.fence.f0", reason: reason), at: T.t0.addingTimeInterval(1))
        #expect(m.slotBudget == budget, "no global block, no slot penalty")
        #expect(!m.budget.blocked)
        // The device moves on by more than half the refresh radius: a reselection retries the region.
        let out = m.handle(.locations([T.fix(3_000, at: 600)]), at: T.t0.addingTimeInterval(600))
        #expect(Self.started(out).contains("waymark.fence.f0") || m.stored.regions["waymark.fence.f0"] != nil,
                "the failed region is registered again at the next reselection")
    }

    @Test("denied and unavailable still block every fence until authorization comes back", arguments: [RegionFailure.denied, .unavailable])
    func global(reason: RegionFailure) throws {
        var (m, _) = try Self.monitoring()
        _ = m.handle(.regionMonitoringFailed(identifier: "waymark.fence.f0", reason: reason), at: T.t0.addingTimeInterval(1))
        #expect(m.slotBudget == 0)
        _ = m.handle(.authorizationChanged(LocationAuthorization(status: .authorizedAlways)), at: T.t0.addingTimeInterval(2))
        #expect(m.slotBudget > 0)
    }
}

/// Review 2, H3/M4: the iOS 17/18 backend needs `NSLocationRequireExplicitServiceSession`.
@Suite("Info.plist check: the explicit service session key on the iOS 17/18 backend")
struct ExplicitServiceSessionKeyTests {
    static var declared: [String: Any] { ["NSLocationWhenInUseUsageDescription": "Shows where you are."] }

    @Test("the modern backend's configuration asks for the key; it is a problem only when absent or not YES, and only on that backend")
    func explicitKey() {
        let modern = EngineCore.Configuration(backend: .modern).capabilities
        #expect(modern.iOS17LocationBackend)
        #expect(!EngineCore.Configuration().capabilities.iOS17LocationBackend)
        let missing = InfoPlistCheck.problems(in: Self.declared, for: modern).map(\.kind)
        #expect(missing == [.missingExplicitServiceSessionKey])
        var info = Self.declared
        info["NSLocationRequireExplicitServiceSession"] = false
        #expect(InfoPlistCheck.problems(in: info, for: modern).map(\.kind) == [.missingExplicitServiceSessionKey])
        info["NSLocationRequireExplicitServiceSession"] = true
        #expect(InfoPlistCheck.problems(in: info, for: modern).isEmpty)
        #expect(InfoPlistCheck.problems(in: Self.declared, for: AppCapabilities()).isEmpty)
    }
}
