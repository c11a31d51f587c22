import WaymarkGeo

/// Where the launch locator stands; published with replay, so a late subscriber still learns the fix.
///
/// ```swift
/// for await state in engine.launchLocation.states {
///     if case .located(let fix) = state { center(on: fix.coordinate) }
/// }
/// ```
///
/// A `Sendable` value type.
public enum LaunchLocationState: Hashable, Sendable, Codable {
    /// Not started (a background launch, or before the process launched).
    case idle
    /// Waiting for the location authorization callback or the user's answer.
    case waitingForPermission
    /// Location updates are on; waiting for a fresh, accurate fix.
    case locating
    /// The launch fix. Location updates are already released.
    case located(Fix)
    /// No launch fix this time, for the reason given.
    case unavailable(LaunchLocationUnavailable)

    /// Whether the locator has finished for this launch.
    public var isFinal: Bool {
        switch self {
        case .located, .unavailable: true
        case .idle, .waitingForPermission, .locating: false
        }
    }

    /// The located fix, if any.
    public var fix: Fix? {
        if case .located(let fix) = self { fix } else { nil }
    }
}

/// Why there is no launch fix.
public enum LaunchLocationUnavailable: String, Hashable, Sendable, Codable, CaseIterable {
    /// The user denied location access.
    case denied
    /// Location access is restricted (parental controls, profile).
    case restricted
    /// Location services are off system-wide.
    case servicesDisabled
    /// No acceptable fix arrived within the timeout.
    case timeout
}
