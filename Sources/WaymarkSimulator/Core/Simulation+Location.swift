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
        return backgroundAllowed(s.config)
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

    mutating func startStandardUpdates(_ config: LocationConfiguration) {
        guard permissions.servicesEnabled, permissions.location != .denied, permissions.location != .restricted else {
            emit(.locationError(.denied))
            return
        }
        if var s = standard, !s.paused {
            s.config = config
            standard = s
            return
        }
        if process.state == .background, !(process.locationWakeUntil.map { now < $0 } ?? false) {
            stats.startsIgnoredInBackground += 1
            note("start of standard updates ignored: app in the background without a location launch")
            return
        }
        if var s = standard {
            // After an automatic pause only a new start resumes delivery (in the background, the
            // system never resumes on its own). The receiver starts again; the pause timer restarts.
            s.config = config
            s.paused = false
            s.stillSince = nil
            s.wasProducing = false
            standard = s
            note("standard updates restarted after an automatic pause")
            return
        }
        standard = StandardUpdates(config: config, waitingForAuthorization: !permissions.locationAuthorized)
        if permissions.locationAuthorized { deliverCachedFix() }
    }

    mutating func stopStandardUpdates() {
        standard = nil
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
        defer { if standard != nil { standard = s } }
        if s.paused {
            if process.state == .foreground, truth.speed >= 2 * constants.stillSpeedMetersPerSecond {
                s.paused = false
                s.stillSince = nil
                emit(.locationUpdatesResumed)
            }
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
        lastKnownFix = fix
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
                    emit(.locationError(.locationUnknown))
                }
                s.acquired = false
                s.hotStarting = false
                s.receiverStartedAt = now
                s.timeToFix = constants.gnssReacquireSeconds
                return nil
            }
            if !s.acquired, now - s.receiverStartedAt >= s.timeToFix {
                s.acquired = true
                s.hotStarting = false
                s.everAcquired = true
            }
            s.lastFixTime = now
            return s.acquired
                ? measure(truth, source: .gnss, range: accuracyRange(.gnss, urban: isUrban(truth.coordinate)), quality: s.quality)
                : measure(truth, source: .wifi, range: accuracyRange(.wifi, urban: false), quality: s.quality)
        case .wifi:
            s.lastFixTime = now
            return measure(truth, source: .wifi, range: accuracyRange(.wifi, urban: false), quality: s.quality)
        case .cell:
            s.lastFixTime = now
            return measure(truth, source: .cell, range: accuracyRange(.cell, urban: false), quality: s.quality)
        case .reduced:
            s.lastFixTime = now
            return measure(truth, source: .cell, range: (constants.reducedAccuracyMinMeters,
                                                         constants.reducedAccuracyMaxMeters), quality: s.quality)
        }
    }

    mutating func requestOneShot(_ accuracy: DesiredAccuracy) {
        guard permissions.servicesEnabled, permissions.location != .denied, permissions.location != .restricted else {
            emit(.locationError(.denied))
            return
        }
        nextOneShotID += 1
        oneShots.append(OneShot(id: nextOneShotID, accuracy: accuracy, waitingForAuthorization: !permissions.locationAuthorized))
        if permissions.locationAuthorized { scheduleOneShot(index: oneShots.count - 1) }
    }

    mutating func scheduleOneShot(index: Int) {
        let timeout = constants.oneShotTimeoutSeconds
        var delay = 2.0
        if sourceClass(oneShots[index].accuracy) == .gnss {
            let timeToFix = rng.uniform(constants.gnssTimeToFirstFixMinSeconds, constants.gnssTimeToFirstFixMaxSeconds)
            oneShots[index].accurate = timeToFix <= timeout
            delay = min(timeout, timeToFix)
        }
        schedule(.oneShotDue(oneShots[index].id), in: delay)
    }

    mutating func completeOneShot(id: Int) {
        guard let i = oneShots.firstIndex(where: { $0.id == id }) else { return }
        let request = oneShots.remove(at: i)
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
        case .cell: measure(truth, source: .cell, range: accuracyRange(.cell, urban: false), quality: quality)
        case .reduced: measure(truth, source: .cell, range: (constants.reducedAccuracyMinMeters,
                                                             constants.reducedAccuracyMaxMeters), quality: quality)
        }
        lastKnownFix = fix
        emit(.locations([fix]))
    }
}
