/// What an app declares in its Info.plist that location features depend on: usage descriptions,
/// background modes and permitted background-task identifiers.
///
/// A ``Device`` reports it (``Device/infoPlist()``): the live device reads the app bundle's
/// Info.plist, the simulator its scenario's declarations. ``Engine`` checks it against what the
/// app uses and publishes what is missing (``EngineDiagnostics``), and a permission request
/// whose usage description is missing ends as ``PermissionResult/misconfigured(missingUsageDescription:)``
/// at once instead of waiting for a prompt iOS never shows.
///
/// ```swift
/// let declared = InfoPlistDeclarations(infoDictionary: Bundle.main.infoDictionary ?? [:])
/// let problems = InfoPlistCheck.problems(in: declared, for: AppCapabilities(backgroundLocation: true))
/// ```
///
/// A `Sendable` value type.
public struct InfoPlistDeclarations: Hashable, Sendable {
    /// The usage-description keys present, each with its text (empty when the value is blank or
    /// not a string).
    public var usageDescriptions: [UsageDescriptionKey: String]
    /// The entries of `UIBackgroundModes` (`location`, `remote-notification`, `fetch`, `processing`).
    public var backgroundModes: Set<String>
    /// The entries of `BGTaskSchedulerPermittedIdentifiers`.
    public var permittedTaskIdentifiers: Set<String>
    /// `NSLocationRequireExplicitServiceSession` is `true` (iOS 18): iterating `CLMonitor` events or
    /// live updates creates no implicit service session, so it raises no prompt (Apple,
    /// `CLServiceSession`, "Explicit Service Session"; WWDC24 10212).
    public var requiresExplicitServiceSession: Bool
    /// The `NSLocationRequireExplicitServiceSession` key.
    public static let requireExplicitServiceSessionKey = "NSLocationRequireExplicitServiceSession"

    /// Makes declarations from their parts.
    public init(usageDescriptions: [UsageDescriptionKey: String] = [:], backgroundModes: Set<String> = [],
                permittedTaskIdentifiers: Set<String> = [], requiresExplicitServiceSession: Bool = false) {
        self.usageDescriptions = usageDescriptions
        self.backgroundModes = backgroundModes
        self.permittedTaskIdentifiers = permittedTaskIdentifiers
        self.requiresExplicitServiceSession = requiresExplicitServiceSession
    }

    /// Reads an Info.plist dictionary (as `Bundle.main.infoDictionary`); malformed entries count
    /// as absent, a usage description that is not a string as blank.
    public init(infoDictionary info: [String: Any]) {
        var usage: [UsageDescriptionKey: String] = [:]
        for key in UsageDescriptionKey.allCases {
            guard let value = info[key.rawValue] else { continue }
            usage[key] = (value as? String) ?? ""
        }
        self.init(usageDescriptions: usage,
                  backgroundModes: Set(info[InfoPlistCheck.backgroundModesKey] as? [String] ?? []),
                  permittedTaskIdentifiers: Set(info[InfoPlistCheck.permittedTaskIdentifiersKey] as? [String] ?? []),
                  requiresExplicitServiceSession: info[Self.requireExplicitServiceSessionKey] as? Bool ?? false)
    }

    /// The usage-description keys declared with a non-blank text, for
    /// ``PermissionSequencer/Configuration/declaredUsageDescriptions``.
    public var declaredUsageDescriptions: Set<UsageDescriptionKey> {
        Set(usageDescriptions.compactMap { key, text in text.allSatisfy(\.isWhitespace) ? nil : key })
    }
}
