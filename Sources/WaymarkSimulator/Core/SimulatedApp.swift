import Foundation
import WaymarkEngine

/// An app under test that a ``Simulation`` drives synchronously: it sees each event as iOS would
/// deliver it and answers with the commands it issues in response.
///
/// Commands are performed at the same virtual time, after the handler returns (as on iOS, where
/// callbacks arrive on a later run-loop turn). A `Sendable` value type.
public protocol SimulatedApp: Sendable {
    /// Handles one event and returns the commands the app issues, in order.
    mutating func handle(_ event: DeviceEvent, at time: Date) -> [DeviceCommand]
}
