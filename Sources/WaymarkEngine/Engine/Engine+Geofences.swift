import Foundation
import WaymarkGeo

extension Engine {
    /// Changes the fence set at the device's time, publishes the updates and performs the commands.
    func changeFences(_ change: (inout GeofenceMonitor, Date) throws(GeoError) -> GeofenceMonitor.Output)
        async throws(GeoError) {
        let now = await appCallTime()
        let out = try core.changeFences { (monitor: inout GeofenceMonitor) throws(GeoError) in try change(&monitor, now) }
        fieldLog.record(notes.appCall("fences changed: \(core.geofences.fences.count) fences now", category: .geofence, at: now))
        await apply(out, at: now)
        let monitor = core.geofences
        await fenceStates.publish(monitor.fences.keys.reduce(into: [:]) { $0[$1] = monitor.presence(of: $1) ?? .unknown })
    }
}

/// The geofencing part of an ``Engine``: any number of fences, their events, presence and the
/// regions registered with the OS.
///
/// ```swift
/// try await engine.geofences.replace(with: [Fence(id: "cafe", shape: .circle(center: cafe, radiusMeters: 150))])
/// for await event in engine.geofences.events { notify(event) }
/// ```
///
/// A `Sendable` handle; use it from any task.
public struct EngineGeofences: Sendable {
    let engine: Engine

    /// Replaces the whole fence set.
    /// - throws: the `GeoError` of an invalid fence; nothing changes then.
    public func replace(with fences: [Fence]) async throws(GeoError) {
        try await engine.changeFences { (m: inout GeofenceMonitor, now: Date) throws(GeoError) in try m.replaceAll(with: fences, at: now) }
    }

    /// Adds fences (a fence with a known identifier replaces the old one).
    /// - throws: the `GeoError` of an invalid fence; nothing changes then.
    public func add(_ fences: [Fence]) async throws(GeoError) {
        try await engine.changeFences { (m: inout GeofenceMonitor, now: Date) throws(GeoError) in try m.add(fences, at: now) }
    }

    /// Removes fences by identifier; unknown identifiers are ignored.
    public func remove(_ ids: [String]) async {
        try? await engine.changeFences { (m: inout GeofenceMonitor, now: Date) throws(GeoError) in m.remove(ids, at: now) }
    }

    /// Every fence event from now on, in order, each delivered once (no replay: subscribe before
    /// events may happen, e.g. before ``Engine/run()``, with ``ReplaySequence/subscribe()``, which
    /// subscribes at once).
    public var events: ReplaySequence<FenceEvent> { engine.fenceEvents.values }

    /// The presence of every fence, by identifier, with replay: the current map first, then each change.
    public var states: ReplaySequence<[String: FencePresence]> { engine.fenceStates.values }

    /// The regions Waymark monitors with the OS (diagnostics), sorted by identifier, with replay.
    public var monitoredRegions: ReplaySequence<[MonitoredRegion]> { engine.regionStates.values }

    /// The state to store on the device whenever it changes, with replay; pass the last one to
    /// ``Engine/init(device:clock:configuration:memory:geofences:ride:log:)`` at the next launch.
    public var stored: ReplaySequence<GeofenceMonitor.PersistentState> { engine.fenceStore.values }
}
