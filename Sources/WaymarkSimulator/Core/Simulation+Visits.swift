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

    /// Detects arrivals and departures from the true path (`LocationService.stepVisits`), and
    /// delivers the reports that are due.
    mutating func stepVisits(_ truth: Trajectory.State) {
        guard let step = locationService.stepVisits(locationStep(truth), positioning: positioning, rng: &rng) else { return }
        energy.add(constants.energy.visitMonitoringPerSecond * constants.updateIntervalSeconds, to: .regionMonitoring)
        for text in step.notes { note(text) }
        for visit in step.due { deliverSystemLocationEvent(.visit(visit), reason: .location) }
    }
}
