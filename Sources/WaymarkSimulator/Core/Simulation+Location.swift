import Foundation
import WaymarkEngine
import WaymarkGeo

/// Standard updates and one-shot requests as the app meets them: who may start them (permissions,
/// the background, the missing background mode), and delivering what the location service
/// measures (`LocationService+Fixes`) to the app.
extension Simulation {
    /// Whether standard updates may run while the app is in the background.
    func backgroundAllowed(_ config: LocationConfiguration) -> Bool {
        config.allowsBackgroundLocationUpdates && backgroundModes.contains(.location) && permissions.locationAuthorized
    }

    /// Standard updates that keep a background app running.
    var backgroundLocationActive: Bool {
        guard let s = standard, !s.waitingForAuthorization, !s.paused else { return false }
        return s.live ? liveBackgroundAllowed : backgroundAllowed(s.config)
    }

    /// Whether the receiver is producing fixes for standard updates right now.
    ///
    /// Updates flow while the process runs, in the foreground or the background (PLATFORM.md §4).
    /// Without background location (``backgroundAllowed(_:)``) they do not keep the app running:
    /// they stop when the app is suspended, ``PlatformConstants/backgroundSuspendSeconds`` after
    /// leaving the foreground (later only while a background task or a launch window holds it).
    var standardProducing: Bool {
        guard let s = standard, !s.waitingForAuthorization, !s.paused, permissions.locationAuthorized else { return false }
        return process.isRunning
    }

    func sourceClass(_ accuracy: DesiredAccuracy) -> SourceClass {
        positioning.sourceClass(accuracy, precise: permissions.precise)
    }

    /// What the location service needs to know about this instant.
    func locationStep(_ truth: Trajectory.State) -> LocationStep {
        LocationStep(now: now, truth: truth, precise: permissions.precise, authorized: permissions.locationAuthorized)
    }

    /// Whether the app may start standard updates from the background now (PLATFORM.md §3).
    ///
    /// With Always, "things can be started when the app is not in use" (WWDC19 705 [S5]): from any
    /// background wake — a silent push, a background task's time, a location event. With
    /// when-in-use, services must be started "while the app is in use" (Apple,
    /// `CLAuthorizationStatus.authorizedWhenInUse` [S22]): in the foreground, within the grace
    /// after leaving it (``appInUse``), or in the window of a location launch or wake-up; a start
    /// from a Bluetooth or push wake fails with `CLError.denied` (forums 748098 [S22]; setting
    /// ``PlatformConstants/backgroundStartFailsWithDenied``).
    var mayStartStandardUpdatesInBackground: Bool {
        if permissions.always { return true }
        if appInUse { return true }
        return process.locationWakeUntil.map { now < $0 } ?? false
    }

    /// `startUpdatingLocation` with `config`.
    ///
    /// Setting `allowsBackgroundLocationUpdates` to true without `location` in `UIBackgroundModes`
    /// raises `NSInternalInconsistencyException` ("!stayUp || CLClientIsBackgroundable") and crashes
    /// the app (Apple, `CLLocationManager.allowsBackgroundLocationUpdates`; mapbox-events-ios #10,
    /// AtB-AS/mittatb-app #4129 [S21]). The crash is field evidence, so it is a setting
    /// (``PlatformConstants/crashOnBackgroundUpdatesWithoutMode``, default true); false gives the old
    /// graceful behaviour, where the updates stop with the suspension.
    ///
    /// After an automatic pause only a new start resumes delivery — Core Location never resumes by
    /// itself — and it then tells the app (`locationManagerDidResumeLocationUpdates`: "When you
    /// restart location services after an automatic pause, Core Location calls this method" [S23]).
    mutating func startStandardUpdates(_ config: LocationConfiguration) {
        if config.allowsBackgroundLocationUpdates, !backgroundModes.contains(.location),
           constants.crashOnBackgroundUpdatesWithoutMode {
            crashApp("NSInternalInconsistencyException: allowsBackgroundLocationUpdates set without the location background mode")
            return
        }
        guard permissions.servicesEnabled, permissions.location != .denied, permissions.location != .restricted else {
            emit(.locationError(.denied))
            return
        }
        if let s = standard, !s.paused {
            locationService.reconfigureStandard(config)
            return
        }
        if process.state == .background, !mayStartStandardUpdatesInBackground {
            stats.startsIgnoredInBackground += 1
            if constants.backgroundStartFailsWithDenied {
                note("start of standard updates refused: when-in-use app not in use (background, no location launch)")
                emit(.locationError(.denied))
            } else {
                note("start of standard updates ignored: when-in-use app not in use (background, no location launch)")
            }
            return
        }
        if standard != nil {
            // The receiver starts again; the pause timer restarts.
            locationService.restartStandardAfterPause(config)
            note("standard updates restarted after an automatic pause")
            emit(.locationUpdatesResumed)
            return
        }
        locationService.startStandard(config, waitingForAuthorization: !permissions.locationAuthorized)
        if permissions.locationAuthorized { deliverCachedFix() }
    }

    mutating func stopStandardUpdates() {
        locationService.stopStandard()
        if process.state == .background { schedule(.suspendCheck(process.generation), in: constants.backgroundSuspendSeconds) }
    }

    /// The cached (stale, coarse) fix iOS often hands out at once when updates start.
    mutating func deliverCachedFix() {
        if let fix = locationService.cachedFix(at: now, positioning: positioning, rng: &rng) { emit(.locations([fix])) }
    }

    /// One tick of standard (or live) updates: the location service measures, the simulation
    /// delivers what it says (``LocationOutput``).
    mutating func stepStandardUpdates(_ truth: Trajectory.State) {
        let outputs = locationService.stepStandard(locationStep(truth), processRunning: process.isRunning,
                                                   positioning: positioning, rng: &rng)
        for output in outputs {
            switch output {
            case .event(let event): emit(event)
            case .note(let text): note(text)
            case .paused:
                if process.state == .background { schedule(.suspendCheck(process.generation), in: constants.backgroundSuspendSeconds) }
            case .resumedByMovement:
                if process.state == .suspended, liveBackgroundAllowed { wake() }
            case .suppressedByDistanceFilter: stats.fixesSuppressedByDistanceFilter += 1
            }
        }
    }

    mutating func requestOneShot(_ accuracy: DesiredAccuracy) {
        guard permissions.servicesEnabled, permissions.location != .denied, permissions.location != .restricted else {
            emit(.locationError(.denied))
            return
        }
        let id = locationService.addOneShot(accuracy, waitingForAuthorization: !permissions.locationAuthorized)
        if permissions.locationAuthorized {
            scheduleOneShot(id)
        } else if constants.oneShotTimesOutBeforeAuthorization {
            // "May time out and produce an error if authorization has not yet been granted" (Apple,
            // `requestLocation()` [S37]): unless a grant comes first (which reschedules it under a
            // new id), the request fails at the timeout.
            schedule(.oneShotDue(id), in: constants.oneShotTimeoutSeconds)
        }
    }

    mutating func scheduleOneShot(_ id: Int) {
        guard let delay = locationService.armOneShot(id, precise: permissions.precise, positioning: positioning, rng: &rng) else { return }
        schedule(.oneShotDue(id), in: delay)
    }

    mutating func completeOneShot(id: Int) {
        switch locationService.finishOneShot(id, locationStep(trajectory.state(at: now)), positioning: positioning, rng: &rng) {
        case nil: return
        case .timedOutWaitingForAuthorization?:
            note("one-shot location request timed out: authorization not granted yet")
            emit(.locationError(.locationUnknown))
        case .unknown?: emit(.locationError(.locationUnknown))
        case .fix(let fix)?: emit(.locations([fix]))
        }
    }
}
