/// An iOS version whose documented behaviour the simulator reproduces.
public enum IOSProfile: String, Hashable, Sendable, Codable, CaseIterable {
    /// iOS 12: no "Allow Once", no reduced accuracy,
    /// no provisional Always (always requested from notDetermined and allowed reads when-in-use).
    case ios12
    /// iOS 13: "Allow Once".
    case ios13
    /// iOS 14: reduced ("approximate") accuracy.
    case ios14
    /// iOS 15: as iOS 14 for everything the simulator models.
    case ios15
    /// iOS 16: as iOS 14 for everything the simulator models.
    case ios16
    /// iOS 17: as iOS 14 for everything the simulator models.
    case ios17
    /// iOS 18: the current documented behaviour.
    case ios18

    /// The profile used when a scenario names none: current documented behaviour.
    public static let current = IOSProfile.ios18
}

extension PlatformConstants {
    /// The defaults of an iOS version.
    ///
    /// iOS 12 had neither "Allow Once" nor reduced accuracy; iOS 13 added "Allow Once"; iOS 14 added
    /// reduced accuracy.
    ///
    /// Force-quit relaunch (issue #14): every profile relaunches a force-quit app for significant
    /// changes and region events (``PlatformConstants/relaunchAfterForceQuit`` is true). iOS 7.0 alone
    /// stopped it and 7.1 restored it; field reports show it on iOS 17.2 and 18.1 [S25]. The first
    /// edition of PLATFORM.md claimed iOS 13+ no longer did; no evidence supports that. Override
    /// `relaunchAfterForceQuit` to false to test an engine against the iOS 7.0 behaviour.
    public static func profile(_ profile: IOSProfile) -> PlatformConstants {
        var c = PlatformConstants()
        switch profile {
        case .ios12:
            c.implicitServiceSessions = false
            c.allowOnceAvailable = false
            c.reducedAccuracyAvailable = false
            c.provisionalAlwaysAvailable = false   // issue #14: provisional Always came with iOS 13 [S5]
        case .ios13:
            c.implicitServiceSessions = false
            c.reducedAccuracyAvailable = false
        case .ios14, .ios15, .ios16, .ios17:
            c.implicitServiceSessions = false
        case .ios18:
            break
        }
        return c
    }
}
