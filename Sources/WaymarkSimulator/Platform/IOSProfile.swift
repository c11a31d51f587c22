/// An iOS version whose documented behaviour the simulator reproduces.
public enum IOSProfile: String, Hashable, Sendable, Codable, CaseIterable {
    case ios12, ios13, ios14, ios15, ios16, ios17, ios18

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
        case .ios13:
            c.reducedAccuracyAvailable = false
        case .ios14, .ios15, .ios16, .ios17, .ios18:
            break
        }
        return c
    }
}
