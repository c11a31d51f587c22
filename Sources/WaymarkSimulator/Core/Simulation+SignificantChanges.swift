import Foundation
import WaymarkEngine
import WaymarkGeo

/// Significant location changes, and how every system location event (significant change, region
/// crossing, visit) reaches an app that is not running in the foreground (PLATFORM.md §4, issue #14).
///
/// **Relaunch policy.** A running app gets the event at once. A suspended app is woken, and a
/// terminated one relaunched into the background with the ``LaunchReason/location`` launch reason
/// (about ``PlatformConstants/locationLaunchSeconds`` to act), only with always authorization,
/// Background App Refresh on and Low Power Mode off [S22][S31]. After a user force-quit,
/// significant changes and region events still relaunch the app once the device has moved
/// ``PlatformConstants/forceQuitRelaunchMinMeters`` (field reports on iOS 17.2 and 18.1;
/// ``PlatformConstants/relaunchAfterForceQuit``); visits never do [S25].
///
/// **Significant changes.** The first event after a start is usually the cached location, old and
/// coarse [S34]: with ``PlatformConstants/cachedFixProbability`` it is the device's last fix, or a
/// cached fix drawn from the cached-fix constants when it has none; otherwise a fresh fix. Later
/// events follow cell-tower changes: each fires once the device is a distance drawn per event from
/// the last one, between ``PlatformConstants/significantChangeUrbanMinMeters`` and its max inside
/// a scenario's urban area (``World/urbanAreas``), between the rural bounds elsewhere; never sooner
/// than ``PlatformConstants/significantChangeIntervalSeconds`` after the previous event; and, without
/// movement, at least every ``PlatformConstants/significantChangeIdleWakeSeconds`` [S34]. A fix is
/// better than cell level with ``PlatformConstants/significantChangeWifiProbability`` [S37].
extension Simulation {
    // MARK: delivery and relaunch policy

    /// Whether Background App Refresh is usable for the app: on in Settings
    /// (``DeviceSetup/backgroundAppRefresh``) and not switched off by Low Power Mode
    /// (``DeviceSetup/lowPowerMode``) [S31]. Region monitoring is unavailable without it.
    public var backgroundRefreshAvailable: Bool {
        (scenario.device?.backgroundAppRefresh ?? true) && !(scenario.device?.lowPowerMode ?? false)
    }

    /// Why the system may not wake or relaunch the app in the background for a location event, or nil.
    var locationLaunchRefusal: String? {
        if !permissions.always { return "needs always authorization" }
        if scenario.device?.lowPowerMode == true { return "Low Power Mode is on" }
        if !backgroundRefreshAvailable { return "Background App Refresh is off" }
        return nil
    }

    /// Delivers a significant change, region event or visit: to a running app directly, waking a
    /// suspended one, or relaunching a terminated one (see the policy above).
    ///
    /// A significant-change fix the app may not be woken for is held while the app is suspended
    /// (it arrives late when the app runs again) and lost if the app is not running.
    mutating func deliverSystemLocationEvent(_ event: DeviceEvent, reason: LaunchReason = .location) {
        switch process.state {
        case .foreground, .background:
            emit(event)
        case .suspended:
            if let refusal = locationLaunchRefusal {
                note("not delivered: \(event.logName) \(refusal)")
                if case .significantChange(let fix) = event { hold([fix]) }
                return
            }
            wake()
            emit(event)
        case .notRunning:
            if let refusal = locationLaunchRefusal {
                note("no relaunch: \(event.logName) \(refusal); dropped")
                return
            }
            if process.forceQuitBlocked, let refusal = forceQuitRelaunchRefusal(event) {
                note("no relaunch after force-quit: \(event.logName) dropped (\(refusal))")
                return
            }
            launch(reason)
            emit(event)
        }
    }

    /// Why an event may not relaunch an app the user force-quit, or nil [S25].
    func forceQuitRelaunchRefusal(_ event: DeviceEvent) -> String? {
        if case .visit = event { return "visits never relaunch a force-quit app" }
        guard constants.relaunchAfterForceQuit else { return "relaunchAfterForceQuit is off" }
        let here = trajectory.position(at: now)
        let moved = process.forceQuitPosition.map { Geodesy.haversineDistance($0, here) } ?? 0
        guard moved >= constants.forceQuitRelaunchMinMeters else {
            return "the device moved \(Int(moved)) m since, under \(Int(constants.forceQuitRelaunchMinMeters)) m"
        }
        return nil
    }

    /// Remembers where the device was when the user force-quit the app (on the tick after it), for
    /// the movement a force-quit relaunch needs; forgets it once the user opens the app again.
    mutating func trackForceQuitPosition(_ truth: Trajectory.State) {
        process.trackForceQuitPosition(truth.coordinate)
    }

    // MARK: significant changes

    mutating func startSignificantChanges() {
        guard permissions.locationAuthorized else {
            emit(.locationError(.denied))
            return
        }
        let fix = locationService.beginSignificantChanges(locationStep(trajectory.state(at: now)), positioning: positioning, rng: &rng)
        emit(.significantChange(fix))
    }

    /// One tick of significant-change monitoring; an event that fires goes through the delivery policy above.
    mutating func stepSignificantChanges(_ truth: Trajectory.State) {
        trackForceQuitPosition(truth)
        guard let fired = locationService.stepSignificant(locationStep(truth), positioning: positioning, rng: &rng) else { return }
        if let text = fired.note { note(text) }
        deliverSystemLocationEvent(.significantChange(fired.fix), reason: .location)
    }
}
