import Foundation
import WaymarkEngine
import WaymarkGeo

/// How the location service measures fixes: standard and live updates on each tick (receiver
/// start, time to fix, GNSS outages, automatic and stationary pauses, the distance filter),
/// one-shot requests, and the cached fix handed out when updates start (PLATFORM.md §3, §9).
///
/// Each step takes what it needs from the rest of the simulation (``LocationStep``, ``Positioning``,
/// the random stream) and returns what the app should hear, in order (``LocationOutput``); the
/// simulation decides whether the app can take it. Random numbers are drawn in a fixed order, so a
/// seed gives the same run.
extension LocationService {
    // MARK: the cached fix

    /// The cached (stale, coarse) fix iOS often hands out at once when updates start, or nil.
    func cachedFix(at now: Double, positioning: Positioning, rng: inout SeededRandom) -> Fix? {
        guard rng.chance(positioning.constants.cachedFixProbability) else { return nil }
        return staleFix(at: now, positioning: positioning, rng: &rng) { _ in .wifi }
    }

    /// A cached fix: minutes old and coarse (the cached-fix constants), its source chosen from its accuracy.
    func staleFix(at now: Double, positioning p: Positioning, rng: inout SeededRandom,
                  source: (_ accuracy: Double) -> Fix.Source) -> Fix {
        let c = p.constants
        let age = rng.uniform(c.cachedFixAgeMinSeconds, c.cachedFixAgeMaxSeconds)
        let accuracy = rng.uniform(c.cachedFixAccuracyMinMeters, c.cachedFixAccuracyMaxMeters)
        let sigma = accuracy / PositionError.radiusPerSigma
        let position = PositionError.offset(p.trajectory.position(at: now - age),
                                            east: sigma * rng.normal(), north: sigma * rng.normal())
        return Fix(coordinate: position, horizontalAccuracy: accuracy, timestamp: p.date(now - age), source: source(accuracy),
                   sourceInformation: p.world?.locationSource?.information(at: now - age))
    }

    // MARK: standard and live updates

    /// One tick of standard (or live) updates: pauses, the receiver, and the fix the app gets.
    ///
    /// `processRunning` is whether the app's process runs (fixes flow only then, PLATFORM.md §4).
    /// The tick on which iOS resumes paused live updates produces no fix; the next one does.
    mutating func stepStandard(_ step: LocationStep, processRunning: Bool, positioning: Positioning,
                               rng: inout SeededRandom) -> [LocationOutput] {
        guard var s = standard, !s.waitingForAuthorization else { return [] }
        var out: [LocationOutput] = []
        defer { commitStandardStep(s) }
        let c = positioning.constants
        let now = step.now
        let pausedBefore = s.paused
        // Paused updates stay paused, in the foreground as in the background, until the app starts
        // them again: "Core Location does not resume updates automatically after it pauses them" [S23].
        if s.live {
            if !stepLiveStationary(&s, step, constants: c, into: &out) { return out }
        } else if s.paused {
            return out
        }
        guard !pausedBefore, step.authorized, processRunning else { s.wasProducing = false; return out }
        if !s.wasProducing {
            s.wasProducing = true
            s.receiverStartedAt = now
            s.acquired = false
            s.quality = rng.unit()
            s.timeToFix = s.everAcquired ? c.gnssReacquireSeconds
                : rng.uniform(c.gnssTimeToFirstFixMinSeconds, c.gnssTimeToFirstFixMaxSeconds)
            forgetPositionError()
        }
        if s.config.pausesLocationUpdatesAutomatically {
            if step.truth.speed < c.stillSpeedMetersPerSecond {
                let since = s.stillSince ?? now
                s.stillSince = since
                let limit = [.fitness, .otherNavigation, .automotiveNavigation].contains(s.config.activityType)
                    ? c.autoPauseFitnessSeconds : c.autoPauseSeconds
                if now - since >= limit {
                    s.paused = true
                    s.wasProducing = false
                    out += [.note("standard updates paused automatically after \(Int(limit)) s still"),
                            .event(.locationUpdatesPaused), .paused]
                    return out
                }
            } else {
                s.stillSince = nil
            }
        }
        guard let fix = nextStandardFix(&s, step, positioning: positioning, rng: &rng, into: &out) else { return out }
        record(fix)
        if s.live {
            out.append(.event(.liveUpdate(LiveUpdate(fix: fix))))
            return out
        }
        if let filter = s.config.distanceFilterMeters, let last = s.lastDelivered,
           Geodesy.haversineDistance(last, fix.coordinate) < filter {
            out.append(.suppressedByDistanceFilter)
            return out
        }
        s.lastDelivered = fix.coordinate
        out.append(.event(.locations([fix])))
        return out
    }

    /// The stationary pause of live updates; false while paused (nothing is produced).
    private func stepLiveStationary(_ s: inout StandardUpdates, _ step: LocationStep, constants c: PlatformConstants,
                                    into out: inout [LocationOutput]) -> Bool {
        let still = step.truth.speed < c.stillSpeedMetersPerSecond
        if s.paused {
            guard !still else { return false }
            s.paused = false
            s.stillSince = nil
            s.wasProducing = false
            out += [.note("live updates resumed by iOS: the device moves"), .resumedByMovement]
            return true
        }
        guard still else {
            s.stillSince = nil
            return true
        }
        let since = s.stillSince ?? step.now
        s.stillSince = since
        guard step.now - since >= c.liveStationarySeconds else { return true }
        s.paused = true
        s.wasProducing = false
        out += [.note("live updates paused: the device is stationary"),
                .event(.liveUpdate(LiveUpdate(fix: lastKnownFix, isStationary: true))), .paused]
        return false
    }

    private mutating func nextStandardFix(_ s: inout StandardUpdates, _ step: LocationStep, positioning p: Positioning,
                                          rng: inout SeededRandom, into out: inout [LocationOutput]) -> Fix? {
        let c = p.constants, now = step.now, truth = step.truth
        let source = p.sourceClass(s.config.desiredAccuracy, precise: step.precise)
        let interval: Double = switch source {
        case .gnss, .wifi: c.updateIntervalSeconds
        case .cell: c.cellUpdateIntervalSeconds
        case .reduced: c.reducedUpdateIntervalSeconds
        }
        if source != .gnss { s.gnssOff = true }   // even before the first coarse fix: the receiver is off
        guard now - s.lastFixTime >= interval - 1e-9 else { return nil }
        func measured(_ source: Fix.Source, _ range: (Double, Double)) -> Fix {
            measure(truth, source: source, range: range, quality: s.quality, at: now, positioning: p, rng: &rng)
        }
        switch source {
        case .gnss:
            if s.gnssOff {
                // Back from Wi-Fi or cell: the receiver was off and starts again (a hot start once it has had a fix).
                s.gnssOff = false
                s.acquired = false
                s.hotStarting = s.everAcquired
                s.receiverStartedAt = now
                s.timeToFix = s.everAcquired ? c.gnssReacquireSeconds
                    : rng.uniform(c.gnssTimeToFirstFixMinSeconds, c.gnssTimeToFirstFixMaxSeconds)
            }
            if p.isOutage(at: now, truth.coordinate) {
                if s.acquired || s.hotStarting {
                    out += [.note("GNSS lost (outage)"),
                            .event(s.live ? .liveUpdate(LiveUpdate(fix: nil)) : .locationError(.locationUnknown))]
                }
                s.acquired = false
                s.hotStarting = false
                s.receiverStartedAt = now
                s.timeToFix = c.gnssReacquireSeconds
                return outageFallbackFix(&s, step, positioning: p, rng: &rng)
            }
            if !s.acquired, now - s.receiverStartedAt >= s.timeToFix {
                s.acquired = true
                s.hotStarting = false
                s.everAcquired = true
            }
            s.lastFixTime = now
            let fallback = p.networkSource(truth.coordinate)
            return s.acquired
                ? measured(.gnss, p.accuracyRange(.gnss, urban: p.isUrban(truth.coordinate)))
                : measured(fallback, p.accuracyRange(fallback, urban: false))
        case .wifi:
            s.lastFixTime = now
            return measured(.wifi, p.accuracyRange(.wifi, urban: false))
        case .cell:
            // kilometer / threeKilometers: Wi-Fi where available, else cell ([S37], networkSource).
            s.lastFixTime = now
            let source = p.networkSource(truth.coordinate)
            return measured(source, p.accuracyRange(source, urban: false))
        case .reduced:
            s.lastFixTime = now
            return measured(.cell, p.reducedRange)
        }
    }

    /// A fix during a GNSS outage under a GNSS accuracy.
    ///
    /// By default none: the app hears `locationUnknown` and then nothing until GNSS returns. With
    /// ``PlatformConstants/gnssOutageFallsBackToNetwork``, Core Location hands out what Wi-Fi or the
    /// cell towers give (Wi-Fi at about 1 Hz, cell every ``PlatformConstants/cellUpdateIntervalSeconds``).
    /// Apple: `locationUnknown` is transient and apps "must be prepared to use less accurate data"
    /// (`desiredAccuracy` [S9]) — an inference; no field measurement was found, hence the setting.
    private mutating func outageFallbackFix(_ s: inout StandardUpdates, _ step: LocationStep, positioning p: Positioning,
                                            rng: inout SeededRandom) -> Fix? {
        let c = p.constants
        guard c.gnssOutageFallsBackToNetwork else { return nil }
        let source = p.networkSource(step.truth.coordinate)
        let interval = source == .wifi ? c.updateIntervalSeconds : c.cellUpdateIntervalSeconds
        guard step.now - s.lastOutageFallbackTime >= interval - 1e-9 else { return nil }
        s.lastOutageFallbackTime = step.now
        s.lastFixTime = step.now
        return measure(step.truth, source: source, range: p.accuracyRange(source, urban: false), quality: s.quality,
                       at: step.now, positioning: p, rng: &rng)
    }

    // MARK: one-shot requests

    /// How a one-shot request ended.
    enum OneShotResult: Sendable, Equatable {
        /// It was made before authorization and timed out still waiting.
        case timedOutWaitingForAuthorization
        /// No fix could be had (a GNSS request in an outage).
        case unknown
        /// The fix the app gets.
        case fix(Fix)
    }

    /// Arms a pending request: the delay until it completes, or nil when it is no longer pending.
    /// A GNSS request draws its time to fix; it gets a GNSS fix only if that comes before the timeout.
    mutating func armOneShot(_ id: Int, precise: Bool, positioning p: Positioning, rng: inout SeededRandom) -> Double? {
        guard let request = oneShot(id) else { return nil }
        let timeout = p.constants.oneShotTimeoutSeconds
        guard p.sourceClass(request.accuracy, precise: precise) == .gnss else { return 2.0 }
        let timeToFix = rng.uniform(p.constants.gnssTimeToFirstFixMinSeconds, p.constants.gnssTimeToFirstFixMaxSeconds)
        setOneShotAccurate(id, timeToFix <= timeout)
        return min(timeout, timeToFix)
    }

    /// Completes the request with `id`: nil when it is no longer pending.
    mutating func finishOneShot(_ id: Int, _ step: LocationStep, positioning p: Positioning,
                                rng: inout SeededRandom) -> OneShotResult? {
        guard let request = completeOneShot(id) else { return nil }
        if request.waitingForAuthorization { return .timedOutWaitingForAuthorization }
        let truth = step.truth, now = step.now
        let source = p.sourceClass(request.accuracy, precise: step.precise)
        if source == .gnss, p.isOutage(at: now, truth.coordinate) { return .unknown }
        let quality = rng.unit()
        func measured(_ source: Fix.Source, _ range: (Double, Double)) -> Fix {
            measure(truth, source: source, range: range, quality: quality, at: now, positioning: p, rng: &rng)
        }
        let fix: Fix = switch source {
        case .gnss where request.accurate: measured(.gnss, p.accuracyRange(.gnss, urban: p.isUrban(truth.coordinate)))
        case .gnss, .wifi: measured(.wifi, p.accuracyRange(.wifi, urban: false))
        case .cell: measured(p.networkSource(truth.coordinate), p.accuracyRange(p.networkSource(truth.coordinate), urban: false))
        case .reduced: measured(.cell, p.reducedRange)
        }
        record(fix)
        return .fix(fix)
    }
}
