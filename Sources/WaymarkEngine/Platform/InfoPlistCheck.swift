/// What an app uses of the OS, so ``InfoPlistCheck`` can tell which Info.plist keys it needs.
///
/// ```swift
/// let uses = AppCapabilities(locationAlways: true, backgroundLocation: true, motion: true)
/// let problems = InfoPlistCheck.problems(in: Bundle.main.infoDictionary ?? [:], for: uses)
/// ```
///
/// A `Sendable` value type.
public struct AppCapabilities: Hashable, Sendable {
    /// Asks for the upgrade to Always (``PermissionRequest/locationAlwaysUpgrade``).
    public var locationAlways: Bool
    /// Keeps standard updates running in the background (a ride recorded with the screen off).
    public var backgroundLocation: Bool
    /// Queries motion activity (a ride's accuracy policy with ``RideTracker/Configuration/usesMotion``).
    public var motion: Bool
    /// Wakes on silent pushes.
    public var remoteNotifications: Bool
    /// `BGTaskScheduler` identifiers of app-refresh tasks (need the `fetch` mode).
    public var appRefreshTaskIdentifiers: [String]
    /// `BGTaskScheduler` identifiers of processing tasks (need the `processing` mode).
    public var processingTaskIdentifiers: [String]
    /// Runs on the iOS 17/18 location APIs (`LocationBackend.modern`): `CLMonitor`, live updates
    /// and explicit `CLServiceSession`s (needs `NSLocationRequireExplicitServiceSession`).
    public var iOS17LocationBackend = false

    /// Makes a set of capabilities; the default is a when-in-use app in the foreground only.
    public init(locationAlways: Bool = false, backgroundLocation: Bool = false, motion: Bool = false,
                remoteNotifications: Bool = false, appRefreshTaskIdentifiers: [String] = [],
                processingTaskIdentifiers: [String] = []) {
        self.locationAlways = locationAlways
        self.backgroundLocation = backgroundLocation
        self.motion = motion
        self.remoteNotifications = remoteNotifications
        self.appRefreshTaskIdentifiers = appRefreshTaskIdentifiers
        self.processingTaskIdentifiers = processingTaskIdentifiers
    }

    /// Everything either set of capabilities uses.
    public func union(_ other: AppCapabilities) -> AppCapabilities {
        func merged(_ a: [String], _ b: [String]) -> [String] { a + b.filter { !a.contains($0) } }
        return AppCapabilities(locationAlways: locationAlways || other.locationAlways,
                               backgroundLocation: backgroundLocation || other.backgroundLocation,
                               motion: motion || other.motion,
                               remoteNotifications: remoteNotifications || other.remoteNotifications,
                               appRefreshTaskIdentifiers: merged(appRefreshTaskIdentifiers, other.appRefreshTaskIdentifiers),
                               processingTaskIdentifiers: merged(processingTaskIdentifiers, other.processingTaskIdentifiers))
            .with(iOS17LocationBackend: iOS17LocationBackend || other.iOS17LocationBackend)
    }

    private func with(iOS17LocationBackend: Bool) -> AppCapabilities {
        var copy = self
        copy.iOS17LocationBackend = iOS17LocationBackend
        return copy
    }
}

/// One thing missing from the app's Info.plist, with a message a developer can act on.
///
/// A `Sendable` value type.
public struct ConfigurationProblem: Hashable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public enum Kind: Hashable, Sendable {
        /// The usage-description key is absent: iOS shows no prompt and never calls back
        /// (for motion, the app crashes on the first query).
        case missingUsageDescription(UsageDescriptionKey)
        /// The usage-description key is present but empty or not a string (App Review rejects it).
        case emptyUsageDescription(UsageDescriptionKey)
        /// `UIBackgroundModes` lacks this mode (`location`, `remote-notification`, `fetch`, `processing`).
        case missingBackgroundMode(String)
        /// `BGTaskSchedulerPermittedIdentifiers` lacks this task identifier.
        case missingPermittedTaskIdentifier(String)
        /// `NSLocationRequireExplicitServiceSession` is not `true` on the iOS 17/18 backend.
        case missingExplicitServiceSessionKey
        /// A device setting, not the Info.plist: Background App Refresh is off for the app, or
        /// Low Power Mode is on (``Device/backgroundAppRefreshAvailable()``).
        case backgroundAppRefreshOff
    }

    /// What is wrong.
    public var kind: Kind
    /// What to add to the Info.plist, and what happens without it.
    public var message: String

    /// Makes a problem.
    public init(_ kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

extension ConfigurationProblem {
    /// Background App Refresh is off or Low Power Mode is on, with what it breaks and where the
    /// user turns it back on.
    public static let backgroundAppRefreshOff = ConfigurationProblem(.backgroundAppRefreshOff, message:
        "Background App Refresh is off for this app, or Low Power Mode is on: iOS does not relaunch or wake the app for "
        + "region crossings or significant changes, and region monitoring fails, so geofence events wait until the app "
        + "is opened. Ask the user to turn on Settings > General > Background App Refresh (and this app in its list).")
}

/// Reads an app's Info.plist (as `Bundle.main.infoDictionary`) and says what the live device
/// needs that is missing. Pure: it runs on any platform, so tests and tools can call it.
public enum InfoPlistCheck {
    /// The `UIBackgroundModes` key.
    public static let backgroundModesKey = "UIBackgroundModes"
    /// The `BGTaskSchedulerPermittedIdentifiers` key.
    public static let permittedTaskIdentifiersKey = "BGTaskSchedulerPermittedIdentifiers"

    /// The entries of `UIBackgroundModes` (empty when the key is absent or malformed).
    public static func backgroundModes(in info: [String: Any]) -> Set<String> {
        InfoPlistDeclarations(infoDictionary: info).backgroundModes
    }

    /// The usage-description keys present with a non-empty string, for
    /// ``PermissionSequencer/Configuration/declaredUsageDescriptions``.
    public static func declaredUsageDescriptions(in info: [String: Any]) -> Set<UsageDescriptionKey> {
        InfoPlistDeclarations(infoDictionary: info).declaredUsageDescriptions
    }

    /// Whether `allowsBackgroundLocationUpdates` may be set to `requested`: true only when the
    /// `location` background mode is declared. Setting it to true without that mode raises an
    /// exception and crashes the app (Apple, `CLLocationManager.allowsBackgroundLocationUpdates`).
    public static func allowsBackgroundLocationUpdates(requested: Bool, info: [String: Any]) -> Bool {
        requested && backgroundModes(in: info).contains("location")
    }

    /// Every problem, in a stable order: usage descriptions first, then background modes, then task identifiers.
    public static func problems(in info: [String: Any], for uses: AppCapabilities) -> [ConfigurationProblem] {
        problems(in: InfoPlistDeclarations(infoDictionary: info), for: uses)
    }

    /// Every problem of `declared` for `uses`, in the same stable order.
    public static func problems(in declared: InfoPlistDeclarations, for uses: AppCapabilities) -> [ConfigurationProblem] {
        var problems: [ConfigurationProblem] = []
        func usage(_ key: UsageDescriptionKey, _ consequence: String) {
            guard let value = declared.usageDescriptions[key] else {
                problems.append(ConfigurationProblem(.missingUsageDescription(key), message:
                    "Info.plist lacks \(key.rawValue): \(consequence) Add it with a sentence telling the user why the app needs it."))
                return
            }
            if value.allSatisfy(\.isWhitespace) {
                problems.append(ConfigurationProblem(.emptyUsageDescription(key), message:
                    "Info.plist's \(key.rawValue) is empty or not a string: App Review rejects it, and the prompt explains nothing. Write a sentence telling the user why the app needs it."))
            }
        }
        usage(.locationWhenInUse,
              "iOS shows no location prompt and never answers the request, so every location feature stays off.")
        if uses.locationAlways {
            usage(.locationAlwaysAndWhenInUse,
                  "iOS shows no upgrade to Always, so geofences and ride recovery do not relaunch the app.")
        }
        if uses.motion {
            usage(.motion, "the app crashes on its first motion-activity query.")
        }
        let modes = declared.backgroundModes
        func mode(_ name: String, _ consequence: String) {
            guard !modes.contains(name) else { return }
            problems.append(ConfigurationProblem(.missingBackgroundMode(name), message:
                "UIBackgroundModes lacks \"\(name)\": \(consequence) Add it under Signing & Capabilities → Background Modes, or to UIBackgroundModes in Info.plist."))
        }
        if uses.backgroundLocation {
            mode("location", "location updates stop a few seconds after the app leaves the foreground (Waymark then leaves allowsBackgroundLocationUpdates off rather than crash).")
        }
        if uses.remoteNotifications {
            mode("remote-notification", "silent pushes do not wake the app.")
        }
        if !uses.appRefreshTaskIdentifiers.isEmpty {
            mode("fetch", "BGTaskScheduler refuses to schedule app-refresh tasks.")
        }
        if !uses.processingTaskIdentifiers.isEmpty {
            mode("processing", "BGTaskScheduler refuses to schedule processing tasks.")
        }
        if uses.iOS17LocationBackend, !declared.requiresExplicitServiceSession {
            problems.append(ConfigurationProblem(.missingExplicitServiceSessionKey, message:
                "Info.plist lacks \(InfoPlistDeclarations.requireExplicitServiceSessionKey) = YES: on iOS 18 the iOS 17 backend's "
                + "CLMonitor and live updates create implicit service sessions, which can raise the location prompt outside the "
                + "permission sequencer (WWDC24 10212). Waymark holds explicit CLServiceSessions; add the key (Boolean, YES) so "
                + "iOS creates no implicit ones."))
        }
        let permitted = declared.permittedTaskIdentifiers
        for id in uses.appRefreshTaskIdentifiers + uses.processingTaskIdentifiers where !permitted.contains(id) {
            problems.append(ConfigurationProblem(.missingPermittedTaskIdentifier(id), message:
                "BGTaskSchedulerPermittedIdentifiers lacks \"\(id)\": registering that task fails. Add the identifier to the array in Info.plist."))
        }
        return problems
    }
}
