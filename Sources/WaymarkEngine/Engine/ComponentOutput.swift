import Foundation

/// What a pure component answers to an event or a deadline: commands for the device, public
/// updates to publish, and its location demand after the step.
///
/// A `Sendable` value type.
public struct ComponentOutput<Update: Sendable>: Sendable {
    /// Commands to perform, in order.
    public var commands: [DeviceCommand]
    /// Public updates to publish, in order.
    public var updates: [Update]
    /// The component's location demand after this step.
    public var demand: LocationDemand

    /// Makes an output.
    public init(commands: [DeviceCommand] = [], updates: [Update] = [], demand: LocationDemand = .none) {
        self.commands = commands
        self.updates = updates
        self.demand = demand
    }
}
