/// An iOS version whose documented behaviour the simulator reproduces.
public enum IOSProfile: String, Hashable, Sendable, Codable, CaseIterable {
    /// iOS 12: force-quit apps relaunched by location events; no "Allow Once", no reduced accuracy.
    case ios12
    /// iOS 13: "Allow Once"; force-quit apps no longer relaunched.
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
    /// iOS 12 relaunched apps after a force-quit and had neither "Allow Once" nor reduced accuracy;
    /// iOS 13 added "Allow Once" and stopped relaunching force-quit apps; iOS 14 added reduced accuracy.
    public static func profile(_ profile: IOSProfile) -> PlatformConstants {
        var c = PlatformConstants()
        switch profile {
        case .ios12:
            c.relaunchAfterForceQuit = true
            c.allowOnceAvailable = false
            c.reducedAccuracyAvailable = false
            c.provisionalAlwaysAvailable = false   // issue #14: provisional Always came with iOS 13 [S5]
        case .ios13:
            c.reducedAccuracyAvailable = false
        case .ios14, .ios15, .ios16, .ios17, .ios18:
            break
        }
        return c
    }
}
