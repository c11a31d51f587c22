import Foundation
import WaymarkEngine
import WaymarkGeo

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
