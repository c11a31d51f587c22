import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkEngine

/// At each launch the engine reads the regions iOS monitors for the app and reconciles its stored
/// regions with them (audit §3.1 155–160): iOS keeps regions across launches, while the app's
/// stored state can be lost or restored from an older copy.
@Suite("Engine reconciles stored regions with the OS's at launch")
struct EngineRegionReconcileTests {
    static func east(_ m: Double) -> Coordinate { Geodesy.destination(from: T.place, bearing: 90, distance: m) }

    /// Two fences whose regions the stored state believes registered.
    static func storedState() throws -> GeofenceMonitor.PersistentState {
        var monitor = GeofenceMonitor(configuration: EngineCore.Configuration().effectiveGeofencing)
        // Region-mode fences: the test is about iOS's regions (a balanced fence keeps hundred-metre
        // updates on after the launch fix, and adds the stationary region).
        _ = try monitor.add([Fence(id: "a", shape: .circle(center: east(1_000), radiusMeters: 200), mode: .regions),
                             Fence(id: "b", shape: .circle(center: east(2_000), radiusMeters: 200), mode: .regions)], at: T.origin)
        _ = monitor.handle(.locations([Fix(coordinate: T.place, horizontalAccuracy: 5, timestamp: T.origin, source: .gnss)]), at: T.origin)
        #expect(monitor.monitoredRegions.count == 2)
        return monitor.persistentState
    }

    static let regionA = "waymark.fence.a", regionB = "waymark.fence.b"

    /// Launches with `osRegions`, grants Always, sends a fix; returns the region commands.
    static func launch(osRegions: Set<String>?) async throws -> [DeviceCommand] {
        let rig = EngineTests.Rig(geofences: try storedState())
        await rig.device.setOSRegions(osRegions)
        rig.device.send(.launched(reason: .user))
        rig.device.send(T.auth(.authorizedAlways))
        rig.device.send(.locations([Fix(coordinate: T.place, horizontalAccuracy: 5, timestamp: rig.clock.date, source: .gnss)]))
        #expect(await rig.device.nextCommand() == .createLocationManager)
        // Wait until the fix was handled (the launch locator stops its updates after it).
        while await rig.device.nextCommand() != .stopUpdatingLocation {}
        let commands = await rig.device.performed.filter {
            switch $0 { case .startMonitoring, .stopMonitoring: true; default: false }
        }
        await rig.stop()
        return commands
    }

    @Test("a Waymark region iOS lost is registered again, an unknown Waymark region is stopped, the host's is untouched")
    func reconciles() async throws {
        let commands = try await Self.launch(osRegions: [Self.regionA, "waymark.fence.zombie", "host.office"])
        #expect(commands.contains(.stopMonitoring(identifier: "waymark.fence.zombie")))
        #expect(commands.contains { if case .startMonitoring(let r) = $0 { r.identifier == Self.regionB } else { false } })
        #expect(!commands.contains { if case .startMonitoring(let r) = $0 { r.identifier == Self.regionA } else { false } },
                "a region iOS still monitors is not registered twice")
        #expect(!commands.contains(.stopMonitoring(identifier: "host.office")))
        #expect(commands.count == 2, "\(commands)")
    }

    @Test("control: a device that cannot tell leaves the stored regions as they are")
    func unknownLeavesStoredRegions() async throws {
        let commands = try await Self.launch(osRegions: nil)
        #expect(commands.isEmpty, "\(commands)")
    }
}
