import Foundation
import WaymarkEngine
import WaymarkGeo

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
        SourceClass(accuracy, precise: permissions.precise || !constants.reducedAccuracyAvailable)
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
        guard rng.chance(constants.cachedFixProbability) else { return }
        let age = rng.uniform(constants.cachedFixAgeMinSeconds, constants.cachedFixAgeMaxSeconds)
        let accuracy = rng.uniform(constants.cachedFixAccuracyMinMeters, constants.cachedFixAccuracyMaxMeters)
        let sigma = accuracy / PositionError.radiusPerSigma
        let truth = trajectory.position(at: now - age)
        let where_ = PositionError.offset(truth, east: sigma * rng.normal(), north: sigma * rng.normal())
        let fix = Fix(coordinate: where_, horizontalAccuracy: accuracy, timestamp: date(now - age), source: .wifi)
        emit(.locations([fix]))
    }

    func isOutage(at t: Double, _ point: Coordinate) -> Bool {
        (scenario.world?.outages ?? []).contains { outage in
            (outage.window?.contains(t) ?? true) && (outage.area?.contains(point) ?? true)
        }
    }

    func isUrban(_ point: Coordinate) -> Bool {
        (scenario.world?.urbanAreas ?? []).contains { $0.contains(point) }
    }

    /// Whether Wi-Fi positioning works at a point: everywhere except in ``World/noWifiAreas``.
    func wifiAvailable(_ point: Coordinate) -> Bool {
        !(scenario.world?.noWifiAreas ?? []).contains { $0.contains(point) }
    }

    /// The source of a fix that does not come from GNSS (a coarse request, a receiver still
    /// acquiring, the outage fall-back): Wi-Fi where available, else cell towers.
    ///
    /// For kilometer and threeKilometers, Core Location "typically provides more accurate data than
    /// you have requested … you may receive accuracy within a hundred meters or so" (Apple, Energy
    /// Efficiency Guide [S37]): Wi-Fi-level fixes (a typical one is ±65 m, [S39]) at Wi-Fi cost;
    /// cell-only fixes of 500–3000 m only where no Wi-Fi is known.
    func networkSource(_ point: Coordinate) -> Fix.Source {
        wifiAvailable(point) ? .wifi : .cell
    }

    func accuracyRange(_ source: Fix.Source, urban: Bool) -> (Double, Double) {
        switch source {
        case .gnss where urban: (constants.gnssUrbanAccuracyMinMeters, constants.gnssUrbanAccuracyMaxMeters)
        case .gnss: (constants.gnssAccuracyMinMeters, constants.gnssAccuracyMaxMeters)
        case .wifi: (constants.wifiAccuracyMinMeters, constants.wifiAccuracyMaxMeters)
        default: (constants.cellAccuracyMinMeters, constants.cellAccuracyMaxMeters)
        }
    }

    /// A measured fix of the true state with correlated error of the source's size.
    mutating func measure(_ truth: Trajectory.State, source: Fix.Source, range: (Double, Double), quality: Double) -> Fix {
        let accuracy = range.0 + (range.1 - range.0) * quality
        let sigma = accuracy / PositionError.radiusPerSigma
        let (east, north) = errorModel.sample(at: now, sigma: sigma, rng: &rng)
        let coordinate = PositionError.offset(truth.coordinate, east: east, north: north)
        let precise = source == .gnss
        // Doppler velocity noise (about 0.3 m/s) is the same across and along the track: the
        // speed is off by it, the course by its angle at the current speed.
        let speedNoise = 0.3 * rng.normal(), crossNoise = 0.3 * rng.normal()
        let course = (truth.course + atan2(crossNoise, max(truth.speed, 0.5)) * 180 / .pi + 360)
            .truncatingRemainder(dividingBy: 360)
        return Fix(coordinate: coordinate, horizontalAccuracy: accuracy,
                   verticalAccuracy: precise ? accuracy * 1.5 : nil,
                   speed: precise ? max(0, truth.speed + speedNoise) : nil,
                   course: precise && truth.speed > 0.5 ? course : nil,
                   timestamp: date(now), source: source)
    }

    mutating func stepStandardUpdates(_ truth: Trajectory.State) {
        guard var s = standard, !s.waitingForAuthorization else { return }
        defer { locationService.commitStandardStep(s) }
        // Paused updates stay paused, in the foreground as in the background, until the app starts
        // them again: "Core Location does not resume updates automatically after it pauses them" [S23].
        if s.live {
            if !stepLiveStationary(&s, truth) { return }
        } else if s.paused {
            return
        }
        guard standardProducing else { s.wasProducing = false; return }
        if !s.wasProducing {
            s.wasProducing = true
            s.receiverStartedAt = now
            s.acquired = false
            s.quality = rng.unit()
            s.timeToFix = s.everAcquired ? constants.gnssReacquireSeconds
                : rng.uniform(constants.gnssTimeToFirstFixMinSeconds, constants.gnssTimeToFirstFixMaxSeconds)
            errorModel.reset()
        }
        if s.config.pausesLocationUpdatesAutomatically {
            if truth.speed < constants.stillSpeedMetersPerSecond {
                let since = s.stillSince ?? now
                s.stillSince = since
                let limit = [.fitness, .otherNavigation, .automotiveNavigation].contains(s.config.activityType)
                    ? constants.autoPauseFitnessSeconds : constants.autoPauseSeconds
                if now - since >= limit {
                    s.paused = true
                    s.wasProducing = false
                    note("standard updates paused automatically after \(Int(limit)) s still")
                    emit(.locationUpdatesPaused)
                    if process.state == .background {
                        schedule(.suspendCheck(process.generation), in: constants.backgroundSuspendSeconds)
                    }
                    return
                }
            } else {
                s.stillSince = nil
            }
        }
        guard let fix = nextStandardFix(&s, truth) else { return }
        locationService.record(fix)
        if s.live {
            emit(.liveUpdate(LiveUpdate(fix: fix)))
            return
        }
        if let filter = s.config.distanceFilterMeters, let last = s.lastDelivered,
           Geodesy.haversineDistance(last, fix.coordinate) < filter {
            stats.fixesSuppressedByDistanceFilter += 1
            return
        }
        s.lastDelivered = fix.coordinate
        emit(.locations([fix]))
    }

    private mutating func nextStandardFix(_ s: inout StandardUpdates, _ truth: Trajectory.State) -> Fix? {
        let source = sourceClass(s.config.desiredAccuracy)
        let interval: Double = switch source {
        case .gnss, .wifi: constants.updateIntervalSeconds
        case .cell: constants.cellUpdateIntervalSeconds
        case .reduced: constants.reducedUpdateIntervalSeconds
        }
        if source != .gnss { s.gnssOff = true }   // even before the first coarse fix: the receiver is off
        guard now - s.lastFixTime >= interval - 1e-9 else { return nil }
        switch source {
        case .gnss:
            if s.gnssOff {
                // Back from Wi-Fi or cell: the receiver was off and starts again (a hot start once it has had a fix).
                s.gnssOff = false
                s.acquired = false
                s.hotStarting = s.everAcquired
                s.receiverStartedAt = now
                s.timeToFix = s.everAcquired ? constants.gnssReacquireSeconds
                    : rng.uniform(constants.gnssTimeToFirstFixMinSeconds, constants.gnssTimeToFirstFixMaxSeconds)
            }
            if isOutage(at: now, truth.coordinate) {
                if s.acquired || s.hotStarting {
                    note("GNSS lost (outage)")
                    emit(s.live ? .liveUpdate(LiveUpdate(fix: nil)) : .locationError(.locationUnknown))
                }
                s.acquired = false
                s.hotStarting = false
                s.receiverStartedAt = now
                s.timeToFix = constants.gnssReacquireSeconds
                return outageFallbackFix(&s, truth)
            }
            if !s.acquired, now - s.receiverStartedAt >= s.timeToFix {
                s.acquired = true
                s.hotStarting = false
                s.everAcquired = true
            }
            s.lastFixTime = now
            let fallback = networkSource(truth.coordinate)
            return s.acquired
                ? measure(truth, source: .gnss, range: accuracyRange(.gnss, urban: isUrban(truth.coordinate)), quality: s.quality)
                : measure(truth, source: fallback, range: accuracyRange(fallback, urban: false), quality: s.quality)
        case .wifi:
            s.lastFixTime = now
            return measure(truth, source: .wifi, range: accuracyRange(.wifi, urban: false), quality: s.quality)
        case .cell:
            // kilometer / threeKilometers: Wi-Fi where available, else cell ([S37], networkSource).
            s.lastFixTime = now
            let source = networkSource(truth.coordinate)
            return measure(truth, source: source, range: accuracyRange(source, urban: false), quality: s.quality)
        case .reduced:
            s.lastFixTime = now
            return measure(truth, source: .cell, range: (constants.reducedAccuracyMinMeters,
                                                         constants.reducedAccuracyMaxMeters), quality: s.quality)
        }
    }

    /// A fix during a GNSS outage under a GNSS accuracy.
    ///
    /// By default none: the app hears `locationUnknown` and then nothing until GNSS returns. With
    /// ``PlatformConstants/gnssOutageFallsBackToNetwork``, Core Location hands out what Wi-Fi or the
    /// cell towers give (Wi-Fi at about 1 Hz, cell every ``PlatformConstants/cellUpdateIntervalSeconds``).
    /// Apple: `locationUnknown` is transient and apps "must be prepared to use less accurate data"
    /// (`desiredAccuracy` [S9]) — an inference; no field measurement was found, hence the setting.
    private mutating func outageFallbackFix(_ s: inout StandardUpdates, _ truth: Trajectory.State) -> Fix? {
        guard constants.gnssOutageFallsBackToNetwork else { return nil }
        let source = networkSource(truth.coordinate)
        let interval = source == .wifi ? constants.updateIntervalSeconds : constants.cellUpdateIntervalSeconds
        guard now - s.lastOutageFallbackTime >= interval - 1e-9 else { return nil }
        s.lastOutageFallbackTime = now
        s.lastFixTime = now
        return measure(truth, source: source, range: accuracyRange(source, urban: false), quality: s.quality)
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
        guard let request = locationService.oneShot(id) else { return }
        let timeout = constants.oneShotTimeoutSeconds
        var delay = 2.0
        if sourceClass(request.accuracy) == .gnss {
            let timeToFix = rng.uniform(constants.gnssTimeToFirstFixMinSeconds, constants.gnssTimeToFirstFixMaxSeconds)
            locationService.setOneShotAccurate(id, timeToFix <= timeout)
            delay = min(timeout, timeToFix)
        }
        schedule(.oneShotDue(id), in: delay)
    }

    mutating func completeOneShot(id: Int) {
        guard let request = locationService.completeOneShot(id) else { return }
        if request.waitingForAuthorization {
            note("one-shot location request timed out: authorization not granted yet")
            emit(.locationError(.locationUnknown))
            return
        }
        let truth = trajectory.state(at: now)
        let source = sourceClass(request.accuracy)
        if source == .gnss, isOutage(at: now, truth.coordinate) {
            emit(.locationError(.locationUnknown))
            return
        }
        let quality = rng.unit()
        let fix: Fix = switch source {
        case .gnss where request.accurate:
            measure(truth, source: .gnss, range: accuracyRange(.gnss, urban: isUrban(truth.coordinate)), quality: quality)
        case .gnss, .wifi: measure(truth, source: .wifi, range: accuracyRange(.wifi, urban: false), quality: quality)
        case .cell:
            measure(truth, source: networkSource(truth.coordinate),
                    range: accuracyRange(networkSource(truth.coordinate), urban: false), quality: quality)
        case .reduced: measure(truth, source: .cell, range: (constants.reducedAccuracyMinMeters,
                                                             constants.reducedAccuracyMaxMeters), quality: quality)
        }
        locationService.record(fix)
        emit(.locations([fix]))
    }
}
