import Foundation

/// The engine's pure heart: the components in their fixed order plus the ``DemandResolver``.
///
/// Each device event goes to the ``PermissionSequencer``, then the ``LaunchLocator``, then the
/// ``MapLaunchHelper``; the resolver then merges the components' location demands into the fewest
/// commands. On the first `launched` event the core creates the location manager (iOS answers with
/// the authorization callback the components need). A second `launched` means a new process: the
/// core starts over, keeping only the ``PermissionMemory``.
///
/// ```swift
/// var core = EngineCore()
/// var out = core.handle(.launched(reason: .user), at: t0)          // [.createLocationManager]
/// out = core.requestPermissions([.locationWhenInUse], batch: 1, at: t0)
/// ```
///
/// No clock, no OS: wake it with ``deadlineReached(at:)`` at ``nextDeadline``. A `Sendable`
/// value type owned by one task (the ``Engine`` actor, or a simulated app).
public struct EngineCore: Sendable {
    /// The components' configurations.
    public struct Configuration: Hashable, Sendable {
        /// Permission timeouts and declared usage descriptions.
        public var permissions: PermissionSequencer.Configuration
        /// Launch-fix freshness, accuracy and timeout.
        public var launchLocation: LaunchLocator.Configuration

        /// Makes a configuration.
        public init(permissions: PermissionSequencer.Configuration = .init(),
                    launchLocation: LaunchLocator.Configuration = .init()) {
            self.permissions = permissions
            self.launchLocation = launchLocation
        }
    }

    /// The configuration in force.
    public let configuration: Configuration
    /// The permission sequencer.
    public private(set) var permissions: PermissionSequencer
    /// The launch locator.
    public private(set) var launchLocator: LaunchLocator
    /// The map helper.
    public private(set) var map = MapLaunchHelper()
    /// The demand resolver.
    public private(set) var resolver = DemandResolver()
    private var launched = false

    /// Makes a core with the app's stored permission memory.
    public init(configuration: Configuration = Configuration(), memory: PermissionMemory = PermissionMemory()) {
        self.configuration = configuration
        permissions = PermissionSequencer(configuration: configuration.permissions, memory: memory)
        launchLocator = LaunchLocator(configuration: configuration.launchLocation)
    }

    /// The earliest time a component must be woken with ``deadlineReached(at:)``.
    public var nextDeadline: Date? {
        [permissions.nextDeadline, launchLocator.nextDeadline].compactMap { $0 }.min()
    }

    /// Queues permission requests as one batch (see ``PermissionSequencer/enqueue(_:batch:at:)``).
    public mutating func requestPermissions(_ requests: [PermissionRequest], batch: Int, at now: Date) -> EngineOutput {
        var out = EngineOutput()
        out.absorb(permissions.enqueue(requests, batch: batch, at: now), as: EngineUpdate.permission)
        finishStep(into: &out)
        return out
    }

    /// Handles one device event.
    public mutating func handle(_ event: DeviceEvent, at now: Date) -> EngineOutput {
        var out = EngineOutput()
        switch event {
        case .launched:
            if launched { self = EngineCore(configuration: configuration, memory: permissions.memory) }
            launched = true
            out.commands.append(.createLocationManager)
        case .locationError(.denied):
            resolver.deviceStoppedStandardUpdates()
        default:
            break
        }
        out.absorb(permissions.handle(event, at: now), as: EngineUpdate.permission)
        out.absorb(launchLocator.handle(event, at: now), as: EngineUpdate.launchLocation)
        finishStep(into: &out)
        return out
    }

    /// Handles a wake-up: every component whose deadline has come acts on it.
    public mutating func deadlineReached(at now: Date) -> EngineOutput {
        var out = EngineOutput()
        out.absorb(permissions.deadlineReached(at: now), as: EngineUpdate.permission)
        out.absorb(launchLocator.deadlineReached(at: now), as: EngineUpdate.launchLocation)
        finishStep(into: &out)
        return out
    }

    private mutating func finishStep(into out: inout EngineOutput) {
        if let change = map.update(launch: launchLocator.state, authorization: permissions.authorization) {
            out.updates.append(.map(change))
        }
        out.commands += resolver.resolve([launchLocator.demand])
    }
}

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
}
