import Foundation

/// Why this process was launched, as far as the app can tell: the launch reason iOS gave, refined
/// by the first Core Location event that follows it.
///
/// iOS has one launch key for every location relaunch (`UIApplication.LaunchOptionsKey.location`:
/// a significant change, a region crossing or a visit), and under the UIScene life cycle it
/// delivers no launch options at all (Apple, `application(_:didFinishLaunchingWithOptions:)`:
/// `launchOptions` is nil for scene-based apps), so a location relaunch then looks like any other
/// background launch (``LaunchReason/background``, from `applicationState == .background`). Apple
/// says what tells them apart: after a location launch the app creates a location manager, and
/// the event that caused the launch is delivered to its delegate (Apple,
/// `UIApplication.LaunchOptionsKey.location`). So the attribution starts from the reason and
/// settles ``cause`` on the first location event of the process:
///
/// | first event after the launch | cause |
/// |---|---|
/// | `regionEntered`, `regionExited`, `monitorEvent` | ``LaunchCause/region(identifier:)`` |
/// | `significantChange` | ``LaunchCause/significantChange`` |
/// | `visit` | ``LaunchCause/visit`` |
/// | `locations`, `liveUpdate` (a background session or live updates resumed) | ``LaunchCause/locationUpdates`` |
///
/// A user launch is settled at once (``LaunchCause/userOpened``); so is a remote-notification
/// launch whose key was delivered. A background launch whose ``cause`` stays nil had no location
/// event: a background task, a background URL session, a fetch, or a push under UIScene. The
/// engine treats all background launches alike; this value is for the app's logs and analytics.
///
/// A region state is not a cause: the engine asks for states itself at launch. On the iOS 17
/// backend the app opens its monitor at launch to receive the events waiting for it (WWDC23 10180;
/// PLATFORM.md §9), and opening it re-delivers each condition's current state, so there
/// ``LaunchCause/region(identifier:)`` means a monitor event came first: after a launch for other
/// work it names a condition rather than a crossing.
///
/// ```swift
/// for await launch in engine.diagnostics.launches {
///     logger.info("launched: \(launch.reason.rawValue), cause \(String(describing: launch.cause))")
/// }
/// ```
///
/// A `Sendable` value type.
public struct LaunchAttribution: Hashable, Sendable, Codable {
    /// The launch reason the device reported.
    public private(set) var reason: LaunchReason
    /// What caused the launch, once known; nil until a location event settles a background or
    /// location launch (and for good when none comes).
    public private(set) var cause: LaunchCause?
    /// When the process launched.
    public private(set) var launchedAt: Date
    /// When ``cause`` was settled (the launch time for user and push launches).
    public private(set) var settledAt: Date?

    /// The attribution of a launch that just happened.
    public init(reason: LaunchReason, at time: Date) {
        self.reason = reason
        self.launchedAt = time
        switch reason {
        case .user: cause = .userOpened
        case .remoteNotification: cause = .remoteNotification
        case .location, .background: cause = nil
        }
        settledAt = cause == nil ? nil : time
    }

    /// Settles ``cause`` from `event` when it is the first location event since the launch;
    /// returns whether anything changed.
    public mutating func handle(_ event: DeviceEvent, at time: Date) -> Bool {
        guard cause == nil, let settled = Self.cause(of: event) else { return false }
        cause = settled
        settledAt = time
        return true
    }

    /// The launch cause a location event stands for, or nil for an event that is not one.
    static func cause(of event: DeviceEvent) -> LaunchCause? {
        switch event {
        case .regionEntered(let id), .regionExited(let id), .monitorEvent(let id, _):
            return .region(identifier: id)
        case .significantChange: return .significantChange
        case .visit: return .visit
        case .locations, .liveUpdate: return .locationUpdates
        default: return nil
        }
    }
}

/// What caused a launch (see ``LaunchAttribution``).
public enum LaunchCause: Hashable, Sendable, Codable {
    /// The user opened the app.
    case userOpened
    /// A remote notification, from its launch key.
    case remoteNotification
    /// A region (or iOS 17 monitor condition) event; the identifier is the first one delivered.
    case region(identifier: String)
    /// A significant location change.
    case significantChange
    /// A visit.
    case visit
    /// Location updates delivered to the new process (standard or live updates iOS resumed, for
    /// example under a background activity session).
    case locationUpdates
}
