import Foundation
import WaymarkGeo

/// Something the app asks of the OS. Outcomes arrive later as ``DeviceEvent``s.
public enum DeviceCommand: Hashable, Sendable, Codable {
    /// Create the location manager and set its delegate; iOS answers with the current authorization.
    case createLocationManager
    /// Ask for notification permission with these options.
    case requestNotificationAuthorization(NotificationOptions)
    /// Register with APNs for a device token.
    case registerForRemoteNotifications
    /// Ask for when-in-use location authorization.
    case requestWhenInUseAuthorization
    /// Ask for always location authorization (an upgrade prompt from when-in-use, once per install).
    case requestAlwaysAuthorization
    /// Ask for temporary full accuracy while the user chose approximate location
    /// (`requestTemporaryFullAccuracyAuthorization(withPurposeKey:)`); the key names an entry of
    /// `NSLocationTemporaryUsageDescriptionDictionary`. The answer arrives as an authorization callback.
    case requestTemporaryFullAccuracy(purposeKey: String)
    /// Ask for motion-activity permission.
    case requestMotionPermission
    /// Start (or reconfigure) standard location updates.
    case startUpdatingLocation(LocationConfiguration)
    /// Stop standard location updates.
    case stopUpdatingLocation
    /// Ask for one fix at this accuracy (`requestLocation`).
    case requestLocation(DesiredAccuracy)
    /// Start significant-change monitoring.
    case startSignificantChanges
    /// Stop significant-change monitoring.
    case stopSignificantChanges
    /// Start monitoring a circular region.
    case startMonitoring(MonitoredRegion)
    /// Stop monitoring the region with this identifier.
    case stopMonitoring(identifier: String)
    /// Ask for the current state of a monitored region.
    case requestRegionState(identifier: String)
    /// Start visit monitoring (`startMonitoringVisits()`).
    case startMonitoringVisits
    /// Stop visit monitoring.
    case stopMonitoringVisits
    /// Start motion-activity updates.
    case startMotionActivityUpdates
    /// Stop motion-activity updates.
    case stopMotionActivityUpdates
    /// Begin a background task (extra execution time in the background).
    case beginBackgroundTask(id: Int)
    /// End a background task.
    case endBackgroundTask(id: Int)
    /// Ask iOS to run the app-refresh task `identifier` no earlier than `earliestBegin`
    /// (`BGTaskScheduler.submit(_:)` with a `BGAppRefreshTaskRequest`). iOS keeps one pending request
    /// per identifier, so a new one replaces the old; it runs the task when it sees fit, possibly much
    /// later or never (see ``Heartbeat``). A refusal arrives as ``DeviceEvent/appRefreshRefused(identifier:reason:)``.
    case scheduleAppRefresh(identifier: String, earliestBegin: Date)
    /// Tell iOS the running app-refresh task `identifier` is done (`BGTask.setTaskCompleted(success:)`);
    /// the app may then be suspended.
    case completeAppRefresh(identifier: String, success: Bool)

    // The iOS 17 APIs (``LocationBackend/modern``) ------------------------------------------------
    /// Start iterating `CLLocationUpdate.liveUpdates(_:)`; updates arrive as ``DeviceEvent/liveUpdate(_:)``.
    case startLiveUpdates(LiveUpdateConfiguration)
    /// Stop iterating the live updates.
    case stopLiveUpdates
    /// Create a `CLBackgroundActivitySession`: a when-in-use app stays "in use" in the background
    /// (with the indicator). It must be created while the app is in use.
    case beginBackgroundActivitySession
    /// Invalidate the background activity session.
    case endBackgroundActivitySession
    /// Open the app's `CLMonitor` (at launch, so events that came while it was not running are delivered).
    case openMonitor
    /// Add a circular condition to the monitor; its events arrive as ``DeviceEvent/monitorEvent(identifier:state:)``.
    case addMonitorCondition(MonitoredRegion)
    /// Remove a condition from the monitor.
    case removeMonitorCondition(identifier: String)
    /// Ask for a condition's last state (the monitor's record); the answer is a monitor event.
    case requestMonitorState(identifier: String)
    /// Hold a `CLServiceSession` with this authorization goal (iOS 18; modelled, no live code yet).
    case beginServiceSession(ServiceSessionGoal)
    /// Invalidate the service session.
    case endServiceSession
}

/// Notification authorization options (`UNAuthorizationOptions`).
public struct NotificationOptions: OptionSet, Hashable, Sendable, Codable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Show alerts.
    public static let alert = NotificationOptions(rawValue: 1)
    /// Play sounds.
    public static let sound = NotificationOptions(rawValue: 2)
    /// Badge the icon.
    public static let badge = NotificationOptions(rawValue: 4)
    /// Provisional authorization: granted at once without a prompt; notifications are delivered
    /// quietly to the notification centre (`UNAuthorizationOptions.provisional`).
    public static let provisional = NotificationOptions(rawValue: 8)
}

/// Desired accuracy of a location request (`kCLLocationAccuracy…`); selects the positioning source.
public enum DesiredAccuracy: String, Hashable, Sendable, Codable, CaseIterable {
    case bestForNavigation, best, nearestTenMeters, hundredMeters, kilometer, threeKilometers, reduced
}

/// The kind of activity the app tracks (`CLActivityType`); affects automatic pausing.
public enum ActivityType: String, Hashable, Sendable, Codable, CaseIterable {
    case other, automotiveNavigation, fitness, otherNavigation, airborne
}

/// The configuration of standard location updates.
public struct LocationConfiguration: Hashable, Sendable, Codable {
    /// Which accuracy (and so which source and power) to use.
    public var desiredAccuracy: DesiredAccuracy
    /// Minimum movement in metres between deliveries; nil delivers every fix.
    public var distanceFilterMeters: Double?
    /// The activity type.
    public var activityType: ActivityType
    /// Whether iOS may pause updates when the device stays still (iOS default: true).
    public var pausesLocationUpdatesAutomatically: Bool
    /// Whether updates may continue in the background (also needs the `location` background mode).
    public var allowsBackgroundLocationUpdates: Bool

    /// Makes a configuration; defaults match a fresh `CLLocationManager`.
    public init(desiredAccuracy: DesiredAccuracy = .best, distanceFilterMeters: Double? = nil,
                activityType: ActivityType = .other, pausesLocationUpdatesAutomatically: Bool = true,
                allowsBackgroundLocationUpdates: Bool = false) {
        self.desiredAccuracy = desiredAccuracy
        self.distanceFilterMeters = distanceFilterMeters
        self.activityType = activityType
        self.pausesLocationUpdatesAutomatically = pausesLocationUpdatesAutomatically
        self.allowsBackgroundLocationUpdates = allowsBackgroundLocationUpdates
    }
}
