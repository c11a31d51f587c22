/// One permission the app wants, as queued in the ``PermissionSequencer``.
///
/// ```swift
/// let requests: [PermissionRequest] = [.notifications([.alert, .sound]), .locationWhenInUse]
/// ```
///
/// A `Sendable` value type.
public enum PermissionRequest: Hashable, Sendable, Codable {
    /// Notification permission with these options; once granted, remote-notification registration follows.
    case notifications(NotificationOptions)
    /// Location while the app is in use.
    case locationWhenInUse
    /// Motion-activity access.
    case motion
    /// The upgrade from when-in-use to always: asked only after when-in-use was granted, at most once per install.
    case locationAlwaysUpgrade

    /// The Info.plist key iOS needs before it shows this prompt, if any.
    public var usageDescription: UsageDescriptionKey? {
        switch self {
        case .notifications: nil
        case .locationWhenInUse: .locationWhenInUse
        case .motion: .motion
        case .locationAlwaysUpgrade: .locationAlwaysAndWhenInUse
        }
    }
}

/// An Info.plist usage-description key; without it iOS shows no prompt and sends no callback.
public enum UsageDescriptionKey: String, Hashable, Sendable, Codable, CaseIterable {
    /// `NSLocationWhenInUseUsageDescription`.
    case locationWhenInUse = "NSLocationWhenInUseUsageDescription"
    /// `NSLocationAlwaysAndWhenInUseUsageDescription`.
    case locationAlwaysAndWhenInUse = "NSLocationAlwaysAndWhenInUseUsageDescription"
    /// `NSMotionUsageDescription`.
    case motion = "NSMotionUsageDescription"
}

/// How one permission request ended.
///
/// A `Sendable` value type.
public enum PermissionResult: Hashable, Sendable, Codable {
    /// The permission is granted (now, or it already was).
    case granted
    /// The user denied it (now, or earlier).
    case denied
    /// Parental controls or a profile forbid it (location).
    case restricted
    /// Location services are off system-wide.
    case servicesDisabled
    /// The request was not made, for the reason given.
    case notAsked(NotAskedReason)
    /// No answer within the timeout, and nothing suggests a misconfiguration.
    case timedOut
    /// No prompt could appear: the app's Info.plist lacks this key.
    case misconfigured(missingUsageDescription: UsageDescriptionKey)

    /// Why a request was not made.
    public enum NotAskedReason: String, Hashable, Sendable, Codable {
        /// The always-upgrade needs when-in-use to be granted first.
        case whenInUseNotGranted
        /// The always-upgrade was already asked on this install (iOS would show nothing).
        case alreadyAskedOnThisInstall
    }
}

/// The outcome of one request: the request, its result, and whether a system prompt was shown.
///
/// A `Sendable` value type.
public struct PermissionOutcome: Hashable, Sendable, Codable {
    /// What was asked.
    public var request: PermissionRequest
    /// How it ended.
    public var result: PermissionResult
    /// Whether the sequencer issued a request that could show a system prompt (false when skipped).
    public var prompted: Bool
    /// For granted notifications: the remote-registration outcome, or nil if it did not come in time.
    public var remoteRegistration: RemoteRegistration?

    /// Makes an outcome.
    public init(request: PermissionRequest, result: PermissionResult, prompted: Bool,
                remoteRegistration: RemoteRegistration? = nil) {
        self.request = request
        self.result = result
        self.prompted = prompted
        self.remoteRegistration = remoteRegistration
    }
}
