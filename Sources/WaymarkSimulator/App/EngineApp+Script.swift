import Foundation
import WaymarkEngine
import WaymarkGeo

extension EngineApp {
    /// What the app does by itself: the permissions it asks for when the user opens it, whether
    /// it starts a ride then, the fences it installs on its first launch, and timed taps.
    ///
    /// ```swift
    /// let script = EngineApp.Script(permissions: [.locationWhenInUse, .locationAlwaysUpgrade],
    ///                               startsRide: true, fences: fences,
    ///                               actions: [.init(at: sim.date(3_600), .ride(.stop))])
    /// ```
    ///
    /// A `Sendable` value type.
    public struct Script: Hashable, Sendable {
        /// Requested as one batch on every launch by the user (already determined ones are skipped).
        public var permissions: [PermissionRequest]
        /// Whether the first launch by the user starts a ride (when no ride was stored).
        public var startsRide: Bool
        /// The identifier of the ride started by ``startsRide``.
        public var rideID: RideID
        /// Installed on the first launch, when no fence set was stored.
        public var fences: [Fence]
        /// Timed actions, performed at the first moment the app runs at or after their time.
        public var actions: [ScheduledAction]

        /// Makes a script; the default does nothing but run the engine.
        public init(permissions: [PermissionRequest] = [], startsRide: Bool = false, rideID: RideID = "ride-1",
                    fences: [Fence] = [], actions: [ScheduledAction] = []) {
            self.permissions = permissions
            self.startsRide = startsRide
            self.rideID = rideID
            self.fences = fences
            self.actions = actions.sorted { $0.at < $1.at }
        }
    }

    /// Something the app (or its user) does to the engine.
    ///
    /// A `Sendable` value type.
    public enum Action: Hashable, Sendable {
        /// A tap on the ride controls.
        case ride(RideCommand)
        /// Asks for permissions, one prompt at a time.
        case requestPermissions([PermissionRequest])
        /// Replaces the whole fence set.
        case replaceFences([Fence])
        /// Adds or replaces fences by identifier.
        case addFences([Fence])
        /// Removes fences by identifier.
        case removeFences([String])
    }

    /// An ``Action`` at a wall-clock time of the simulation (see ``Simulation/date(_:)``).
    ///
    /// A `Sendable` value type.
    public struct ScheduledAction: Hashable, Sendable {
        /// When.
        public var at: Date
        /// What.
        public var action: Action

        /// Makes a scheduled action.
        public init(at: Date, _ action: Action) {
            self.at = at
            self.action = action
        }
    }

    /// A value with the virtual wall-clock time it was observed at.
    ///
    /// A `Sendable` value type.
    public struct Timed<Value: Hashable & Sendable>: Hashable, Sendable {
        /// When.
        public var time: Date
        /// What.
        public var value: Value

        /// Makes a timed value.
        public init(time: Date, value: Value) {
            self.time = time
            self.value = value
        }
    }

    /// What the app keeps on disk: it survives kills and is what a relaunched process starts from.
    ///
    /// A `Sendable` value type.
    public struct Disk: Hashable, Sendable {
        /// The permission memory (UserDefaults on a device).
        public var memory = PermissionMemory()
        /// The geofences' persistent state, nil before the first fence set.
        public var geofences: GeofenceMonitor.PersistentState?
        /// The ride's last checkpoint.
        public var ride: RideSnapshot?
        /// Every recorded fix, in order (the ride store).
        public var recorded: [Fix] = []
        /// Every gap marker, in order.
        public var gaps: [GapMarker] = []
        /// Every fence event delivered (shown to the user), in order.
        public var fenceEvents: [FenceEvent] = []

        /// An empty disk (a fresh install).
        public init() {}
    }
}
