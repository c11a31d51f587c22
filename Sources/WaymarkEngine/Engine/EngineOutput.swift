import Foundation
import WaymarkGeo

/// What the core answers: commands for the device and updates to publish, each in order.
///
/// A `Sendable` value type.
public struct EngineOutput: Sendable {
    /// Commands to perform, in order.
    public var commands: [DeviceCommand] = []
    /// Updates to publish, in order.
    public var updates: [EngineUpdate] = []

    /// Makes an empty output.
    public init() {}

    mutating func absorb<U>(_ output: ComponentOutput<U>, as wrap: (U) -> EngineUpdate) {
        commands += output.commands
        updates += output.updates.map(wrap)
    }
}

/// A public update from one of the core's components.
public enum EngineUpdate: Hashable, Sendable {
    /// From the permission sequencer.
    case permission(PermissionSequencer.Update)
    /// The launch locator's new state.
    case launchLocation(LaunchLocationState)
    /// The map helper's new state.
    case map(MapLaunchState)
    /// From the geofence monitor: fence events, presence changes, monitored regions.
    case geofence(GeofenceMonitor.Update)
    /// From the ride tracker: state, recorded fixes, gap markers, statistics, checkpoints.
    case ride(RideUpdate)
    /// Why the process was launched, when the launch happens and when its cause is settled.
    case launch(LaunchAttribution)
    /// From on-demand location: a request answered, a fix for a stream.
    case location(LocationRequests.Update)
    /// From the heartbeat: a wake began, a beat ended, a refusal.
    case heartbeat(Heartbeat.Update)
}

/// A rider's tap on the ride controls, for ``EngineCore/rideCommand(_:at:)``.
///
/// A `Sendable` value type.
public enum RideCommand: Hashable, Sendable, Codable {
    /// Start a new ride with the app's identifier for it (ignored while a ride is active).
    case start(rideID: RideID)
    /// Pause the ride: nothing is recorded until resumed.
    case pause
    /// Resume a paused ride.
    case resume
    /// End the ride: location is released and the wake fence removed.
    case stop
}
