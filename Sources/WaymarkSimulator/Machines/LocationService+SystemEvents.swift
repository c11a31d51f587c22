import Foundation
import WaymarkEngine
import WaymarkGeo

/// When significant changes fire and visits are detected, and the fixes and places they carry
/// (PLATFORM.md §3–§4; the rules are documented on `Simulation+SignificantChanges` and
/// `Simulation+Visits`, which deliver what these steps return through the system location-event
/// policy).
extension LocationService {
    // MARK: significant changes

    /// `startMonitoringSignificantLocationChanges`: starts (or restarts) monitoring where the device
    /// is and returns the first event's fix: usually the cached location (the last fix, or a cached
    /// one when there is none), else a fresh one [S34].
    mutating func beginSignificantChanges(_ step: LocationStep, positioning p: Positioning, rng: inout SeededRandom) -> Fix {
        let position = step.truth.coordinate
        startSignificantChanges(at: position, time: step.now,
                                threshold: significantThreshold(at: position, positioning: p, rng: &rng))
        if rng.chance(p.constants.cachedFixProbability) {
            return lastKnownFix ?? cachedSignificantFix(at: step.now, positioning: p, rng: &rng)
        }
        let fix = significantFix(step, positioning: p, rng: &rng)
        record(fix)
        return fix
    }

    /// One tick of significant-change monitoring: the fix of an event that fires now (with a note
    /// when it is an idle wake rather than movement), or nil.
    ///
    /// An event fires once the device has moved the drawn distance from the last event's position,
    /// no sooner than the minimum interval (under reduced accuracy, the reduced-accuracy interval),
    /// and at least every idle-wake interval without movement; it works while the app is not running.
    mutating func stepSignificant(_ step: LocationStep, positioning p: Positioning,
                                  rng: inout SeededRandom) -> (fix: Fix, note: String?)? {
        guard var s = significant, step.authorized else { return nil }
        let c = p.constants, now = step.now, position = step.truth.coordinate
        var interval = c.significantChangeIntervalSeconds
        if p.sourceClass(.kilometer, precise: step.precise) == .reduced {
            interval = max(interval, c.reducedUpdateIntervalSeconds)
        }
        guard now - s.lastTime >= interval else { return nil }
        let threshold = s.threshold ?? significantThreshold(at: position, positioning: p, rng: &rng)
        let moved = s.lastPosition.map { Geodesy.haversineDistance($0, position) } ?? .infinity
        let idleWake = c.significantChangeIdleWakeSeconds > 0 && now - s.lastTime >= c.significantChangeIdleWakeSeconds
        guard moved >= threshold || idleWake else {
            s.threshold = threshold
            commitSignificantStep(s)
            return nil
        }
        var note: String?
        if moved >= threshold {
            s.lastPosition = position
            s.threshold = significantThreshold(at: position, positioning: p, rng: &rng)
        } else {
            s.threshold = threshold
            note = "significant-change idle wake (\(Int(now - s.lastTime)) s without a cell change)"
        }
        s.lastTime = now
        commitSignificantStep(s)
        let fix = significantFix(step, positioning: p, rng: &rng)
        record(fix)
        return (fix, note)
    }

    /// A cached fix for a device that has none yet: Wi-Fi level when it is better than cell level.
    private func cachedSignificantFix(at now: Double, positioning p: Positioning, rng: inout SeededRandom) -> Fix {
        staleFix(at: now, positioning: p, rng: &rng) { $0 < p.constants.significantChangeAccuracyMinMeters ? .wifi : .cell }
    }

    /// The movement that fires the next significant change from `position`: the distance to the next
    /// cell tower, denser in urban areas.
    private func significantThreshold(at position: Coordinate, positioning p: Positioning, rng: inout SeededRandom) -> Double {
        let c = p.constants
        return p.isUrban(position)
            ? rng.uniform(c.significantChangeUrbanMinMeters, c.significantChangeUrbanMaxMeters)
            : rng.uniform(c.significantChangeRuralMinMeters, c.significantChangeRuralMaxMeters)
    }

    /// A fresh significant-change fix: often better than cell level (Wi-Fi assisted), else cell
    /// level; under reduced accuracy, a reduced-accuracy fix.
    private mutating func significantFix(_ step: LocationStep, positioning p: Positioning, rng: inout SeededRandom) -> Fix {
        let c = p.constants
        func measured(_ source: Fix.Source, _ range: (Double, Double)) -> Fix {
            measure(step.truth, source: source, range: range, quality: rng.unit(), at: step.now, positioning: p, rng: &rng)
        }
        if p.sourceClass(.kilometer, precise: step.precise) == .reduced {
            return measured(.cell, p.reducedRange)
        }
        if rng.chance(c.significantChangeWifiProbability) {
            return measured(.wifi, (c.significantChangeWifiAccuracyMinMeters, c.significantChangeWifiAccuracyMaxMeters))
        }
        return measured(.cell, (c.significantChangeAccuracyMinMeters, c.significantChangeAccuracyMaxMeters))
    }

    // MARK: visits

    /// What a tick of visit monitoring found: notes for the log, then the visits due for delivery now.
    struct VisitStep: Sendable {
        var notes: [String] = []
        var due: [Visit] = []
    }

    /// One tick of visit monitoring: detects arrivals and departures from the true path and returns
    /// the reports that are due; nil while visits are not monitored or location is not authorized.
    mutating func stepVisits(_ step: LocationStep, positioning p: Positioning, rng: inout SeededRandom) -> VisitStep? {
        guard var v = visits, step.authorized else { return nil }
        let c = p.constants, now = step.now, position = step.truth.coordinate
        var result = VisitStep()
        if let stay = v.stay {
            if Geodesy.haversineDistance(stay.center, position) > c.visitRadiusMeters {
                result.notes.append("visit departure detected")
                queueVisitReport(&v, Visit(coordinate: stay.reported, horizontalAccuracy: stay.accuracy,
                                           arrival: stay.arrival.map { p.date($0) }, departure: p.date(now)),
                                 at: now, constants: c, rng: &rng)
                v.stay = nil
                v.candidate = position
                v.candidateSince = now
                v.candidateAtStart = false
            }
        } else if let candidate = v.candidate, Geodesy.haversineDistance(candidate, position) <= c.visitRadiusMeters {
            if now - v.candidateSince >= c.visitMinimumStaySeconds {
                let place = visitPlace(position, arrival: v.candidateAtStart ? nil : v.candidateSince,
                                       precise: step.precise, positioning: p, rng: &rng)
                v.stay = place
                if let arrival = place.arrival {
                    result.notes.append("visit arrival detected")
                    queueVisitReport(&v, Visit(coordinate: place.reported, horizontalAccuracy: place.accuracy,
                                               arrival: p.date(arrival), departure: nil),
                                     at: now, constants: c, rng: &rng)
                } else {
                    result.notes.append("visit in progress since before monitoring started: no arrival event")
                }
            }
        } else {
            v.candidateAtStart = v.candidate == nil && v.candidateAtStart
            v.candidate = position
            v.candidateSince = now
        }
        let due = v.reports.prefix { $0.due <= now }
        v.reports.removeFirst(due.count)
        commitVisitStep(v)
        result.due = due.map(\.visit)
        return result
    }

    /// The place of a new visit, reported with its accuracy (reduced accuracy without Precise Location).
    private func visitPlace(_ center: Coordinate, arrival: Double?, precise: Bool, positioning p: Positioning,
                            rng: inout SeededRandom) -> VisitMonitoring.Place {
        let c = p.constants
        let accuracy = p.sourceClass(.best, precise: precise) == .reduced
            ? rng.uniform(c.reducedAccuracyMinMeters, c.reducedAccuracyMaxMeters)
            : rng.uniform(c.visitAccuracyMinMeters, c.visitAccuracyMaxMeters)
        let sigma = accuracy / PositionError.radiusPerSigma
        let reported = PositionError.offset(center, east: sigma * rng.normal(), north: sigma * rng.normal())
        return VisitMonitoring.Place(center: center, reported: reported, accuracy: accuracy, arrival: arrival)
    }

    /// Queues a report for late delivery, after every report already queued.
    private func queueVisitReport(_ v: inout VisitMonitoring, _ visit: Visit, at now: Double, constants c: PlatformConstants,
                                  rng: inout SeededRandom) {
        let delay = rng.uniform(c.visitReportDelayMinSeconds, c.visitReportDelayMaxSeconds)
        v.reports.append(VisitMonitoring.Report(due: max(now + delay, v.reports.last?.due ?? 0), visit: visit))
    }
}
