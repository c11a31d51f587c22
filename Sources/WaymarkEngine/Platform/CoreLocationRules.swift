/// The decisions the live device makes when it translates Core Location and UIKit into the seam,
/// as pure functions: they run on any platform, so Linux tests pin them down.
///
/// `WaymarkApple`'s `LiveDevice` calls these with the raw values it reads from the OS
/// (`CLError.Code.rawValue`, `maximumRegionMonitoringDistance`, the launch options and
/// `applicationState`).
public enum CoreLocationRules {
    /// Core Location's error codes (`CLError.Code`, raw values as in `CLError.h`).
    public enum ErrorCode: Int, Sendable, CaseIterable {
        case locationUnknown = 0, denied, network, headingFailure
        case regionMonitoringDenied, regionMonitoringFailure, regionMonitoringSetupDelayed, regionMonitoringResponseDelayed
        case geocodeFoundNoResult, geocodeFoundPartialResult, geocodeCanceled
        case deferredFailed, deferredNotUpdatingLocation, deferredAccuracyTooLow, deferredDistanceFiltered, deferredCanceled
        case rangingUnavailable, rangingFailure, promptDeclined, historicalLocationError
    }

    /// iOS's per-app limit on monitored regions, shared by every location manager in the app
    /// (Apple, "Monitoring the user's proximity to geographic regions").
    public static let regionLimit = 20

    /// The seam's error for a `locationManager(_:didFailWithError:)` code, or nil when the error
    /// is not a failure of the location service itself.
    ///
    /// `denied` ends the service. `locationUnknown` and `network` are transient: the service keeps
    /// trying (Apple, `CLError.Code.locationUnknown`). Heading, geocoding, ranging, deferred-update
    /// and prompt-declined errors are about services Waymark does not drive through this callback.
    /// An unknown future code is reported as transient rather than dropped, so nothing waits for ever.
    public static func locationError(code: Int) -> LocationError? {
        switch ErrorCode(rawValue: code) {
        case .denied: .denied
        case .locationUnknown, .network, nil: .locationUnknown
        default: nil
        }
    }

    /// The seam's failure for a `locationManager(_:monitoringDidFailFor:withError:)` code, or nil
    /// when the error is not fatal and the region stays monitored.
    ///
    /// - `regionMonitoringSetupDelayed` ("could not initialize region monitoring immediately") and
    ///   `regionMonitoringResponseDelayed` ("events will be delivered, but not immediately") are
    ///   not failures: the region keeps working, later (Apple, `CLError.Code`). Reporting them
    ///   would make the engine stop all monitoring.
    /// - `regionMonitoringFailure` is Core Location's generic "a registered region cannot be
    ///   monitored". It means the slot limit only when the app already monitors
    ///   ``regionLimit`` regions (a ``RegionFailure/tooManyRegions`` costs the engine a slot for
    ///   good). Monitoring unavailable on this device, or reduced accuracy (read from
    ///   `accuracyAuthorization`, not inferred: approximate location rules out region monitoring),
    ///   is ``RegionFailure/unavailable``: the engine pauses monitoring until the next
    ///   authorization callback, which iOS also sends when the user turns Precise Location back on
    ///   (Apple, `locationManagerDidChangeAuthorization(_:)`). Any other cause is that region's
    ///   (``RegionFailure/failed``, review 2 M3): transient or about that region, it must not
    ///   block every fence for hours in a process kept alive by background location.
    ///
    /// - Parameters:
    ///   - code: the `CLError.Code` raw value of the error (see ``ErrorCode``).
    ///   - monitoredRegionCount: `monitoredRegions.count` when the error arrived (the refused
    ///     region is not in it).
    ///   - monitoringAvailable: `CLLocationManager.isMonitoringAvailable(for: CLCircularRegion.self)`.
    ///   - reducedAccuracy: `accuracyAuthorization == .reducedAccuracy`.
    public static func regionFailure(code: Int, monitoredRegionCount: Int, monitoringAvailable: Bool,
                                     reducedAccuracy: Bool = false) -> RegionFailure? {
        switch ErrorCode(rawValue: code) {
        case .denied, .regionMonitoringDenied: return .denied
        case .regionMonitoringSetupDelayed, .regionMonitoringResponseDelayed: return nil
        default:
            if !monitoringAvailable || reducedAccuracy { return .unavailable }
            return monitoredRegionCount >= regionLimit ? .tooManyRegions : .failed
        }
    }

    /// The radius to register for a requested radius, or nil when the device cannot monitor
    /// regions at all.
    ///
    /// `maximumRegionMonitoringDistance` is -1 when region monitoring is unavailable (Apple,
    /// `CLLocationManager.maximumRegionMonitoringDistance`), and iOS fails a region whose radius
    /// exceeds it rather than clamping, so Waymark clamps. The result is never negative: a
    /// negative or NaN request becomes 0 (iOS monitors small regions with its own minimum).
    public static func regionRadius(requested: Double, maximum: Double) -> Double? {
        guard maximum >= 0, !maximum.isNaN else { return nil }
        guard !requested.isNaN else { return 0 }
        return Swift.min(Swift.max(requested, 0), maximum)
    }

    /// Why the process started, from what `application(_:didFinishLaunchingWithOptions:)` sees.
    ///
    /// - A `.location` launch key means a location event relaunched the app; a
    ///   `.remoteNotification` key, a push.
    /// - Without a key, `applicationState == .background` means a background launch. This is how
    ///   a location relaunch looks under the UIScene life cycle, which delivers no launch options
    ///   (Apple, `UIApplication.LaunchOptionsKey.location`), and how background tasks, background
    ///   URL sessions and fetch launch the app. It is ``LaunchReason/background``, never `.user`,
    ///   so the engine does not locate for the user or record a ride gap as "not running until opened".
    /// - Otherwise the user opened the app.
    ///
    /// `launchedInBackground` must be the settled state: read inside `didFinishLaunching` of a
    /// UIScene app it is `.background` at every launch, user launches included, so a live device
    /// decides through ``LaunchReasonResolver``, which waits for the first scene or run-loop turn.
    public static func launchReason(hasLocationKey: Bool, hasRemoteNotificationKey: Bool,
                                    launchedInBackground: Bool) -> LaunchReason {
        if hasLocationKey { return .location }
        if hasRemoteNotificationKey { return .remoteNotification }
        return launchedInBackground ? .background : .user
    }
}
