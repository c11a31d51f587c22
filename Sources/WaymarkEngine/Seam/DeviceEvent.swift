import Foundation
import WaymarkGeo

/// Something the OS reports to the app, as an iOS app would observe it.
///
/// Only what the app can see is here: suspension, for instance, is invisible to an app on iOS
/// (it simply stops running), so it is not an event; a simulator logs it separately.
public enum DeviceEvent: Hashable, Sendable, Codable {
    /// The location authorization callback (also sent once when a location manager is created).
    case authorizationChanged(LocationAuthorization)
    /// One or more fixes, oldest first; after a suspension or relaunch they may be old and batched.
    case locations([Fix])
    /// A location service failed.
    case locationError(LocationError)
    /// Automatic pausing stopped standard updates (`locationManagerDidPauseLocationUpdates`).
    case locationUpdatesPaused
    /// Paused standard updates resumed.
    case locationUpdatesResumed
    /// The answer to a region-state request, or a state determined on start of monitoring.
    case regionState(identifier: String, state: RegionState)
    /// The device entered a monitored region.
    case regionEntered(identifier: String)
    /// The device left a monitored region.
    case regionExited(identifier: String)
    /// Monitoring a region could not start or stopped (slot limit, no authorization...).
    case regionMonitoringFailed(identifier: String, reason: RegionFailure)
    /// A fix delivered to the significant-change service's own location manager.
    ///
    /// iOS delivers significant-change fixes through the same `didUpdateLocations` callback as
    /// standard updates, unmarked (Apple, `startMonitoringSignificantLocationChanges()`); a device
    /// can attribute them only because the service runs on a dedicated manager, which `LiveDevice`
    /// does. The first one after a start is usually the cached location: check its timestamp.
    case significantChange(Fix)
    /// A visit (`locationManager(_:didVisit:)`): an arrival, or a departure with its arrival, at a
    /// place the device stayed. Delivered late; it relaunches a terminated app with always
    /// authorization, but not one the user force-quit.
    case visit(Visit)
    /// The motion coprocessor's classification changed.
    case motionActivity(MotionActivity)
    /// The answer to a motion-permission request.
    case motionAuthorization(granted: Bool)
    /// The answer to a notification-authorization request.
    case notificationAuthorization(granted: Bool)
    /// The outcome of registering for remote notifications.
    case remoteRegistration(RemoteRegistration)
    /// The process started, and why.
    case launched(reason: LaunchReason)
    /// The app left the foreground.
    case didEnterBackground
    /// The app is about to return to the foreground.
    case willEnterForeground
    /// A background task ran out of time; the app must end it now.
    case backgroundTaskExpired(id: Int)
    /// The network became reachable or unreachable.
    case networkReachability(online: Bool)
    /// One live update (iOS 17 `CLLocationUpdate`): a fix, or a report that the device is stationary.
    case liveUpdate(LiveUpdate)
    /// A `CLMonitor` event (iOS 17): a condition's state, delivered on every change and again when
    /// the app opens the monitor.
    case monitorEvent(identifier: String, state: MonitorConditionState)
    /// A `CLBackgroundActivitySession` could not be begun (iOS 17): a when-in-use app asked for it
    /// while not in use (in the background, outside a location relaunch's first moments), so its
    /// updates stop when the app leaves the foreground (Apple, `CLBackgroundActivitySession`; WWDC23
    /// 10180; review 2, M5). `LiveDevice` reports what iOS would refuse; the session is asked for
    /// again when the app is next in use.
    case backgroundActivitySessionRefused
    /// iOS runs the app-refresh task `identifier` (the launch handler registered with
    /// `BGTaskScheduler.register(forTaskWithIdentifier:using:launchHandler:)` was called), in a
    /// process it woke or launched in the background. The app has about 30 s and must answer with
    /// ``DeviceCommand/completeAppRefresh(identifier:success:)``.
    case appRefresh(identifier: String)
    /// The running app-refresh task's time is up (its `expirationHandler`): complete it at once, or iOS
    /// terminates the app.
    case appRefreshExpired(identifier: String)
    /// iOS refused to schedule the app-refresh task (`BGTaskScheduler.submit(_:)` threw).
    case appRefreshRefused(identifier: String, reason: AppRefreshRefusal)
}

/// Why iOS refused an app-refresh request (`BGTaskScheduler.Error.Code`).
public enum AppRefreshRefusal: String, Hashable, Sendable, Codable, CaseIterable {
    /// Background work is unavailable to the app (`.unavailable`): Background App Refresh is off
    /// for it, or the app runs where background tasks do not (the Simulator, an extension).
    case unavailable
    /// The identifier is not in the Info.plist's `BGTaskSchedulerPermittedIdentifiers`, or the app
    /// lacks the `fetch` background mode (`.notPermitted`).
    case notPermitted
    /// Too many requests of this kind are pending (`.tooManyPendingTaskRequests`; one app-refresh
    /// request per identifier).
    case tooManyPending
}

/// Location authorization as iOS reports it: status plus accuracy authorization.
public struct LocationAuthorization: Hashable, Sendable, Codable {
    /// The authorization status.
    public var status: LocationAuthorizationStatus
    /// Full or reduced (approximate) accuracy.
    public var accuracy: AccuracyAuthorization
    /// False when location services are off system-wide (status is then `denied`).
    public var servicesEnabled: Bool

    /// Makes an authorization value.
    public init(status: LocationAuthorizationStatus, accuracy: AccuracyAuthorization = .full,
                servicesEnabled: Bool = true) {
        self.status = status
        self.accuracy = accuracy
        self.servicesEnabled = servicesEnabled
    }
}

/// Location authorization status (`CLAuthorizationStatus`).
public enum LocationAuthorizationStatus: String, Hashable, Sendable, Codable, CaseIterable {
    case notDetermined, restricted, denied, authorizedWhenInUse, authorizedAlways
}

/// Accuracy authorization (`CLAccuracyAuthorization`).
public enum AccuracyAuthorization: String, Hashable, Sendable, Codable, CaseIterable {
    case full, reduced
}

/// Location errors the app can receive.
public enum LocationError: String, Hashable, Sendable, Codable, CaseIterable {
    /// No fix could be obtained right now; transient, the service keeps trying.
    case locationUnknown
    /// The user denied location access, or location services are off.
    case denied
}

/// Whether the device is in a region.
public enum RegionState: String, Hashable, Sendable, Codable, CaseIterable {
    case unknown, inside, outside
}

/// Why region monitoring failed.
public enum RegionFailure: String, Hashable, Sendable, Codable, CaseIterable {
    /// The app already monitors the maximum number of regions.
    case tooManyRegions
    /// Location authorization does not allow monitoring.
    case denied
    /// Monitoring is unavailable: the device cannot monitor regions, Precise Location is off
    /// (reduced accuracy rules out region monitoring), or Background App Refresh is off.
    case unavailable
    /// The radius exceeds `maximumRegionMonitoringDistance`; iOS fails such a region rather than
    /// clamping it.
    case radiusTooLarge
    /// This region alone could not be monitored: Core Location's generic
    /// `regionMonitoringFailure` ("a registered region cannot be monitored", Apple `CLError`) while
    /// monitoring is available, or a `CLMonitor` condition reported `unmonitored`. The other regions
    /// keep working; the engine retries this one at its next reselection.
    case failed
}

/// Why the process was launched.
public enum LaunchReason: String, Hashable, Sendable, Codable, CaseIterable {
    /// The user opened the app.
    case user
    /// A location event (significant change, region crossing or visit) relaunched the app in the
    /// background. iOS has one launch key for all three (`UIApplication.LaunchOptionsKey.location`);
    /// which one it was is learnt from the first Core Location event after the manager is created.
    case location
    /// A remote notification launched the app in the background.
    case remoteNotification
    /// The app launched in the background with no launch key: a background task, a background
    /// URL session or fetch, or a location event under the UIScene life cycle, which delivers
    /// no launch options. The engine treats it like the other background launches.
    case background
}

/// A visit iOS reports (`CLVisit`): where the device stayed, from when, until when.
public struct Visit: Hashable, Sendable, Codable {
    /// The place.
    public var coordinate: Coordinate
    /// Radius of uncertainty of the place, metres.
    public var horizontalAccuracy: Double
    /// When the device arrived; nil when iOS does not know (`Date.distantPast` on a device).
    public var arrival: Date?
    /// When the device left; nil while it is still there (`Date.distantFuture` on a device).
    public var departure: Date?

    /// Makes a visit.
    public init(coordinate: Coordinate, horizontalAccuracy: Double, arrival: Date?, departure: Date?) {
        self.coordinate = coordinate
        self.horizontalAccuracy = horizontalAccuracy
        self.arrival = arrival
        self.departure = departure
    }
}

/// The outcome of registering for remote notifications.
public enum RemoteRegistration: Hashable, Sendable, Codable {
    /// The APNs device token, hex encoded.
    case token(String)
    /// Registration failed (no network, simulator, entitlement missing...).
    case failed(reason: String)
}
