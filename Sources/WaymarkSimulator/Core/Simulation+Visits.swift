import Foundation
import WaymarkEngine
import WaymarkGeo

/// Visit monitoring (`startMonitoringVisits()`, `locationManager(_:didVisit:)`; PLATFORM.md §3,
/// issue #14, audit C5) [S36].
///
/// iOS reports places where the device stayed: an arrival (``Visit/departure`` nil), then a
/// departure carrying the arrival date, both late. Apple publishes no thresholds, so the model is
/// simple and every number is a field-calibrated setting:
///
/// - the device *stays* while it remains within ``PlatformConstants/visitRadiusMeters`` of where it
///   came to rest; after ``PlatformConstants/visitMinimumStaySeconds`` the stay is a visit, placed
///   where the device is then, with its arrival at the moment it came to rest;
/// - it *departs* when it is farther than that radius from the place;
/// - each arrival and departure reaches the app a delay drawn between
///   ``PlatformConstants/visitReportDelayMinSeconds`` and its max later, in order;
/// - the place is reported with an accuracy drawn from ``PlatformConstants/visitAccuracyMinMeters``
///   and its max, or from the reduced-accuracy range when Precise Location is off (Apple: visits
///   then "use reduced accuracy");
/// - a stay that began before monitoring started gets no arrival event, and its departure has no
///   arrival date (`distantPast` on a device: "the visit object does not include arrival information").
///
/// Delivery follows the system location-event policy (`deliverSystemLocationEvent`): it wakes or
/// relaunches the app only with always authorization, Background App Refresh and no Low Power
/// Mode, and never relaunches an app the user force-quit (LocoKit #12) [S25]. Monitoring persists
/// across launches until stopped; requested before authorization it starts once location is
/// authorized; with location denied it fails with `locationError(.denied)`. It costs
/// ``EnergyCosts/visitMonitoringPerSecond`` (charged to the region-monitoring consumer, PLATFORM.md
/// §8's "region or visit monitoring" row, once per tick).
extension Simulation {
    mutating func startVisits() {
        guard permissions.servicesEnabled, permissions.location != .denied, permissions.location != .restricted else {
            emit(.locationError(.denied))
            return
        }
        _ = locationService.startVisits(at: now)
    }

    mutating func stopVisits() {
        let pending = locationService.stopVisits()
        if pending > 0 { note("visit monitoring stopped: \(pending) visit(s) not delivered") }
    }

    /// Detects arrivals and departures from the true path, and delivers the reports that are due.
    mutating func stepVisits(_ truth: Trajectory.State) {
        guard var v = visits, permissions.locationAuthorized else { return }
        energy.add(constants.energy.visitMonitoringPerSecond * constants.updateIntervalSeconds, to: .regionMonitoring)
        let radius = constants.visitRadiusMeters
        if let stay = v.stay {
            if Geodesy.haversineDistance(stay.center, truth.coordinate) > radius {
                note("visit departure detected")
                queueVisitReport(&v, Visit(coordinate: stay.reported, horizontalAccuracy: stay.accuracy,
                                           arrival: stay.arrival.map { date($0) }, departure: date(now)))
                v.stay = nil
                v.candidate = truth.coordinate
                v.candidateSince = now
                v.candidateAtStart = false
            }
        } else if let candidate = v.candidate, Geodesy.haversineDistance(candidate, truth.coordinate) <= radius {
            if now - v.candidateSince >= constants.visitMinimumStaySeconds {
                let place = visitPlace(truth.coordinate, arrival: v.candidateAtStart ? nil : v.candidateSince)
                v.stay = place
                if let arrival = place.arrival {
                    note("visit arrival detected")
                    queueVisitReport(&v, Visit(coordinate: place.reported, horizontalAccuracy: place.accuracy,
                                               arrival: date(arrival), departure: nil))
                } else {
                    note("visit in progress since before monitoring started: no arrival event")
                }
            }
        } else {
            v.candidateAtStart = v.candidate == nil && v.candidateAtStart
            v.candidate = truth.coordinate
            v.candidateSince = now
        }
        let due = v.reports.prefix { $0.due <= now }
        v.reports.removeFirst(due.count)
        locationService.commitVisitStep(v)
        for report in due { deliverSystemLocationEvent(.visit(report.visit), reason: .location) }
    }

    /// The place of a new visit, reported with its accuracy (reduced accuracy without Precise Location).
    private mutating func visitPlace(_ center: Coordinate, arrival: Double?) -> VisitMonitoring.Place {
        let reduced = sourceClass(.best) == .reduced
        let accuracy = reduced
            ? rng.uniform(constants.reducedAccuracyMinMeters, constants.reducedAccuracyMaxMeters)
            : rng.uniform(constants.visitAccuracyMinMeters, constants.visitAccuracyMaxMeters)
        let sigma = accuracy / PositionError.radiusPerSigma
        let reported = PositionError.offset(center, east: sigma * rng.normal(), north: sigma * rng.normal())
        return VisitMonitoring.Place(center: center, reported: reported, accuracy: accuracy, arrival: arrival)
    }

    /// Queues a report for late delivery, after every report already queued.
    private mutating func queueVisitReport(_ v: inout VisitMonitoring, _ visit: Visit) {
        let delay = rng.uniform(constants.visitReportDelayMinSeconds, constants.visitReportDelayMaxSeconds)
        v.reports.append(VisitMonitoring.Report(due: max(now + delay, v.reports.last?.due ?? 0), visit: visit))
    }
}
