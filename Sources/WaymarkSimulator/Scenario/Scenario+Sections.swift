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

    /// Makes a device setup.
    public init(install: Install? = nil, location: LocationAuthorizationStatus? = nil, preciseLocation: Bool? = nil,
                locationServicesEnabled: Bool? = nil, notifications: PermissionSetting? = nil,
                motion: PermissionSetting? = nil, alwaysUpgradeShown: Bool? = nil,
                monitoredRegions: [MonitoredRegion]? = nil, significantChangesActive: Bool? = nil,
                usageDescriptions: [UsageDescription]? = nil, backgroundModes: [BackgroundMode]? = nil) {
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
    }

    /// Fresh install or existing state.
    public enum Install: String, Hashable, Sendable, Codable, CaseIterable { case fresh, existing }
    /// A yes/no permission's state.
    public enum PermissionSetting: String, Hashable, Sendable, Codable, CaseIterable { case notDetermined, granted, denied }
    /// Usage-description keys.
    public enum UsageDescription: String, Hashable, Sendable, Codable, CaseIterable {
        case NSLocationWhenInUseUsageDescription, NSLocationAlwaysAndWhenInUseUsageDescription, NSMotionUsageDescription
    }
    /// Background modes.
    public enum BackgroundMode: String, Hashable, Sendable, Codable, CaseIterable {
        case location, fetch, processing
        case remoteNotification = "remote-notification"
    }
}

/// What the user does: prompt answers and actions at times.
public struct UserBehaviour: Hashable, Sendable, Codable {
    /// Answers per prompt kind; "allow" after the default think time when absent.
    public var prompts: [PromptKind: PromptResponse]?
    /// Actions in time order.
    public var actions: [UserAction]?

    /// Makes user behaviour.
    public init(prompts: [PromptKind: PromptResponse]? = nil, actions: [UserAction]? = nil) {
        self.prompts = prompts
        self.actions = actions
    }
}

/// The system prompts.
public enum PromptKind: String, Hashable, Sendable, Codable, CaseIterable, CodingKeyRepresentable {
    case notifications, locationWhenInUse, locationAlways, motion
}

/// How the user answers one prompt.
public struct PromptResponse: Hashable, Sendable, Codable {
    /// The answer.
    public var answer: Answer
    /// Seconds before answering; the platform's think time when absent.
    public var thinkSeconds: Double?
    /// Whether "Precise" stays on (location prompts); true when absent.
    public var preciseLocation: Bool?

    /// Makes a response.
    public init(_ answer: Answer, thinkSeconds: Double? = nil, preciseLocation: Bool? = nil) {
        self.answer = answer
        self.thinkSeconds = thinkSeconds
        self.preciseLocation = preciseLocation
    }

    /// Prompt answers; `allowOnce` applies to location when-in-use only.
    public enum Answer: String, Hashable, Sendable, Codable, CaseIterable { case allow, allowOnce, deny }
}

/// Something the user (or the system, for `systemTerminate`) does at a time.
public struct UserAction: Hashable, Sendable, Codable {
    /// Seconds since the start.
    public var at: Double
    /// What.
    public var `do`: Kind
    /// For `settings`: the new location authorization.
    public var location: LocationAuthorizationStatus?
    /// For `settings`: precise location on or off.
    public var preciseLocation: Bool?
    /// For `settings`: location services on or off system-wide.
    public var locationServicesEnabled: Bool?
    /// For `settings`: notifications.
    public var notifications: DeviceSetup.PermissionSetting?

    /// Makes an action.
    public init(at: Double, _ kind: Kind, location: LocationAuthorizationStatus? = nil, preciseLocation: Bool? = nil,
                locationServicesEnabled: Bool? = nil, notifications: DeviceSetup.PermissionSetting? = nil) {
        self.at = at
        self.do = kind
        self.location = location
        self.preciseLocation = preciseLocation
        self.locationServicesEnabled = locationServicesEnabled
        self.notifications = notifications
    }

    /// Action kinds.
    public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
        /// Open (launch or bring to the foreground) the app.
        case open
        /// Go to the home screen.
        case background
        /// Swipe the app away in the app switcher.
        case forceQuit
        /// The system terminates the app (memory pressure).
        case systemTerminate
        /// Change permissions in the Settings app.
        case settings
        /// A silent remote notification arrives (does not allow starting location updates).
        case silentPush
    }
}
