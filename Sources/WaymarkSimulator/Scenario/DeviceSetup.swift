import Foundation
import WaymarkEngine
import WaymarkGeo

/// The device at the start of a scenario.
public struct DeviceSetup: Hashable, Sendable, Codable {
    /// `fresh` (every permission notDetermined, no regions) or `existing` (the fields below apply).
    public var install: Install?
    /// Location authorization at start (existing installs).
    public var location: LocationAuthorizationStatus?
    /// Precise (full) accuracy authorization; true when absent.
    public var preciseLocation: Bool?
    /// Location services on system-wide; true when absent.
    public var locationServicesEnabled: Bool?
    /// Notification permission at start.
    public var notifications: PermissionSetting?
    /// Motion permission at start.
    public var motion: PermissionSetting?
    /// Whether the always-upgrade prompt was already shown on this install.
    public var alwaysUpgradeShown: Bool?
    /// Regions already monitored (by this app or its host), persisted from earlier launches.
    public var monitoredRegions: [MonitoredRegion]?
    /// Whether significant-change monitoring is already on.
    public var significantChangesActive: Bool?
    /// Info.plist usage-description keys the app declares; all three when absent.
    public var usageDescriptions: [UsageDescription]?
    /// `UIBackgroundModes` the app declares; none when absent.
    public var backgroundModes: [BackgroundMode]?
    /// Purpose keys of `NSLocationTemporaryUsageDescriptionDictionary` the app declares; every key
    /// is declared when absent. A temporary-full-accuracy request with another key does nothing.
    public var temporaryUsagePurposeKeys: [String]?
    // Issue #14 (L4): Background App Refresh and Low Power Mode [S31].
    /// Background App Refresh on for the app (Settings); true when absent. Off, the system neither
    /// wakes nor relaunches the app for location events, and region monitoring is unavailable [S31].
    public var backgroundAppRefresh: Bool?
    /// Low Power Mode on; false when absent. It turns Background App Refresh off while on [S31].
    public var lowPowerMode: Bool?
    // Issue #14 (L2/L5): the UIScene life cycle.
    /// Whether the app uses the UIScene life cycle; true when absent. Under it `launchOptions` is nil
    /// (Apple, `application(_:didFinishLaunchingWithOptions:)`), so a location or silent-push relaunch
    /// reaches the app as `LaunchReason.background` [S14][S15]. True by default because apps built
    /// with the iOS 27 SDK (Xcode 27, September 2026) must adopt UIScene (Apple TN3187 [S16]).
    /// False: an app-delegate-only app, which still sees `location` and `remoteNotification`.
    public var sceneLifecycle: Bool?
    /// The Info.plist sets `NSLocationRequireExplicitServiceSession` to YES (iOS 18): iterating
    /// `CLMonitor` events or live updates creates no implicit service session, so raises no prompt
    /// (Apple, `CLServiceSession`; WWDC24 10212). False when absent.
    public var requiresExplicitServiceSession: Bool?
    /// The identifiers the Info.plist lists under `BGTaskSchedulerPermittedIdentifiers`; every
    /// identifier is permitted when absent. A request for another is refused as `notPermitted`.
    public var appRefreshIdentifiers: [String]?
    /// How often the user opens the app (default `daily`): iOS runs an app's refresh tasks from what
    /// it learnt of its use (Apple, WWDC20 10063 *Background execution demystified*), so the
    /// heartbeat's wakes are frequent for a daily app and rare for one opened now and then.
    public var appUsage: AppUsage?

    /// How often the user opens the app (``appUsage``).
    public enum AppUsage: String, Hashable, Sendable, Codable, CaseIterable {
        /// Several times a day.
        case daily
        /// About once a week.
        case weekly
        /// Rarely: iOS runs its refresh tasks seldom, if at all.
        case rarely
    }

    /// Makes a device setup.
    public init(install: Install? = nil, location: LocationAuthorizationStatus? = nil, preciseLocation: Bool? = nil,
                locationServicesEnabled: Bool? = nil, notifications: PermissionSetting? = nil,
                motion: PermissionSetting? = nil, alwaysUpgradeShown: Bool? = nil,
                monitoredRegions: [MonitoredRegion]? = nil, significantChangesActive: Bool? = nil,
                usageDescriptions: [UsageDescription]? = nil, backgroundModes: [BackgroundMode]? = nil,
                temporaryUsagePurposeKeys: [String]? = nil, backgroundAppRefresh: Bool? = nil, lowPowerMode: Bool? = nil,
                sceneLifecycle: Bool? = nil) {
        self.install = install
        self.location = location
        self.preciseLocation = preciseLocation
        self.locationServicesEnabled = locationServicesEnabled
        self.notifications = notifications
        self.motion = motion
        self.alwaysUpgradeShown = alwaysUpgradeShown
        self.monitoredRegions = monitoredRegions
        self.significantChangesActive = significantChangesActive
        self.usageDescriptions = usageDescriptions
        self.backgroundModes = backgroundModes
        self.temporaryUsagePurposeKeys = temporaryUsagePurposeKeys
        self.backgroundAppRefresh = backgroundAppRefresh
        self.lowPowerMode = lowPowerMode
        self.sceneLifecycle = sceneLifecycle
    }

    /// Fresh install or existing state.
    public enum Install: String, Hashable, Sendable, Codable, CaseIterable {
        /// Just installed: every permission not determined, nothing monitored.
        case fresh
        /// Installed earlier: the permissions and regions given in the setup.
        case existing
    }
    /// A yes/no permission's state.
    public enum PermissionSetting: String, Hashable, Sendable, Codable, CaseIterable {
        /// Never asked.
        case notDetermined
        /// Allowed.
        case granted
        /// Refused.
        case denied
    }
    /// Usage-description keys.
    public enum UsageDescription: String, Hashable, Sendable, Codable, CaseIterable {
        /// Needed for the when-in-use prompt.
        case NSLocationWhenInUseUsageDescription
        /// Needed for the always (upgrade) prompt.
        case NSLocationAlwaysAndWhenInUseUsageDescription
        /// Needed for the motion prompt.
        case NSMotionUsageDescription
    }
    /// Background modes.
    public enum BackgroundMode: String, Hashable, Sendable, Codable, CaseIterable {
        /// `location`: background location updates.
        case location
        /// `fetch`: background app refresh.
        case fetch
        /// `processing`: background processing tasks.
        case processing
        /// `remote-notification`: silent pushes.
        case remoteNotification = "remote-notification"
    }
}
