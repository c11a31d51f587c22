import Foundation
import WaymarkGeo

/// Which Core Location API a device runs the engine's location work on.
///
/// The engine's components speak the `CLLocationManager` vocabulary (standard updates, regions);
/// with ``modern`` the core translates it to the iOS 17 APIs through ``ModernBackendAdapter``,
/// so the behaviour on top stays the same.
public enum LocationBackend: String, Hashable, Sendable, Codable, CaseIterable {
    /// `CLLocationManager` with its delegate: standard updates, legacy region monitoring.
    case locationManager
    /// The iOS 17 APIs: `CLLocationUpdate.liveUpdates`, `CLBackgroundActivitySession`, `CLMonitor`.
    /// Significant changes, visits, one-shot requests and authorization still use a `CLLocationManager`.
    case modern
}

/// `CLLocationUpdate.LiveConfiguration` (iOS 17): what the updates are for. There is no desired
/// accuracy or distance filter; iOS picks the accuracy.
public enum LiveUpdateConfiguration: String, Hashable, Sendable, Codable, CaseIterable {
    /// General use (`CLActivityType.other`).
    case `default`
    /// Driving navigation.
    case automotiveNavigation
    /// Other vehicular navigation (boats, trains).
    case otherNavigation
    /// Walking, running, cycling: a ride.
    case fitness
    /// Flight.
    case airborne

    /// The live configuration for a `CLLocationManager` activity type.
    public init(activityType: ActivityType) {
        switch activityType {
        case .other: self = .default
        case .automotiveNavigation: self = .automotiveNavigation
        case .otherNavigation: self = .otherNavigation
        case .fitness: self = .fitness
        case .airborne: self = .airborne
        }
    }
}

/// One element of `CLLocationUpdate.liveUpdates` (iOS 17): a fix or none, and whether the device
/// is stationary. While stationary, iOS pauses the updates by itself and resumes them when the
/// device moves again (Apple, WWDC23 10180 "Discover streamlined location updates").
public struct LiveUpdate: Hashable, Sendable, Codable {
    /// The fix, when the update carries one.
    public var fix: Fix?
    /// Whether iOS considers the device stationary (updates paused until it moves).
    public var isStationary: Bool

    /// Makes an update.
    public init(fix: Fix?, isStationary: Bool = false) {
        self.fix = fix
        self.isStationary = isStationary
    }
}

/// The state of a `CLMonitor` condition in an event (`CLMonitor.Event.state`, iOS 17).
public enum MonitorConditionState: String, Hashable, Sendable, Codable, CaseIterable {
    /// Inside the circle.
    case satisfied
    /// Outside the circle.
    case unsatisfied
    /// Not determined yet.
    case unknown
    /// The condition is not monitored (for example, removed, or monitoring is not possible).
    case unmonitored
}

/// A `CLServiceSession` authorization goal (iOS 18, not in the iOS 17.4 SDK: modelled in the
/// seam and the simulator only).
public enum ServiceSessionGoal: String, Hashable, Sendable, Codable, CaseIterable {
    /// No authorization goal: the session only marks interest.
    case none
    /// When-in-use authorization.
    case whenInUse
    /// Always authorization.
    case always
}
