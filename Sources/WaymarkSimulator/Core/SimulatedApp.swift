import Foundation
import WaymarkEngine

/// An app under test that a ``Simulation`` drives synchronously: it sees each event as iOS would
/// deliver it and answers with the commands it issues in response.
///
/// Commands are performed at the same virtual time, after the handler returns (as on iOS, where
/// callbacks arrive on a later run-loop turn). An app that needs timeouts states its next
/// ``nextDeadline``; the simulation calls ``handleDeadline(at:)`` then, but only while the process
/// is running, as a real timer would (a suspended app's timer fires when it runs again; a
/// terminated app's timer is gone). Both have defaults, so apps without timers ignore them.
/// A `Sendable` value type.
public protocol SimulatedApp: Sendable {
    /// Handles one event and returns the commands the app issues, in order.
    mutating func handle(_ event: DeviceEvent, at time: Date) -> [DeviceCommand]

    /// When the app wants to be woken (a timer), or nil; read after every event and deadline. Default nil.
    var nextDeadline: Date? { get }

    /// The timer for ``nextDeadline`` fired at `time`; returns the commands the app issues. Default none.
    mutating func handleDeadline(at time: Date) -> [DeviceCommand]

    /// A new process starts: the regions the simulated iOS monitors for the app (they persist across
    /// launches, with their centres), given just before the `.launched` event. Default: ignored.
    mutating func willLaunch(monitoredRegions: [MonitoredRegion])
}

extension SimulatedApp {
    /// No timers.
    public var nextDeadline: Date? { nil }

    /// No timers, no commands.
    public mutating func handleDeadline(at time: Date) -> [DeviceCommand] { [] }

    /// Ignores the monitored regions.
    public mutating func willLaunch(monitoredRegions: [MonitoredRegion]) {}
}
