import Foundation
import WaymarkGeo

/// Location updates while the device is near fences, so that crossings are decided from fixes
/// instead of waiting for iOS.
///
/// iOS region monitoring alone cannot report every crossing: it commits an entry only about 100 m
/// inside a region and an exit about 200 m outside, minutes late, and misses some (PLATFORM.md §5).
/// Measured in the geofence experiment with every fence registered the whole time (no slot
/// limit), a pocketed app was told of 71–84% of the crossings (seeds 1–3); with 20 slots, 72%.
/// So while the app has Always authorization and fences are near, the monitor asks for standard
/// updates in the background, at two accuracies:
///
/// - **near** (a fence boundary within ``ProximityTracking/nearMeters`` of the position, less its
///   accuracy): best accuracy, so a pass 40 m inside a fence is decided;
/// - **approach** (a boundary within ``ProximityTracking/approachMeters``): hundred-metre accuracy
///   (Wi-Fi, about a seventh of GNSS's power in the simulator's model), enough to see the device
///   come near;
/// - farther: nothing; region monitoring and significant changes wake the app when it moves.
///
/// Near a fence GNSS rests between fixes as long as the device cannot reach the nearest boundary
/// meanwhile (``ProximityTracking/restsGNSS``), at hundred-metre accuracy, which keeps the updates,
/// and so the app, running in the background.
///
/// The updates let iOS pause them when the device is still (`pausesLocationUpdatesAutomatically`)
/// and are not asked for again until the device moves: a significant change away from where they
/// paused, a visit's departure, a region event, a launch or the app opening. iOS never resumes paused updates itself (Apple,
/// `locationManagerDidPauseLocationUpdates(_:)`), so a phone left on a desk beside a fence does
/// not keep GNSS on.
///
/// Off by default; the geofence experiment measures what it costs and what it reports. A
/// when-in-use app cannot start updates in the background (PLATFORM.md §3), so the tracking
/// needs Always authorization with full accuracy.
public struct ProximityTracking: Hashable, Sendable {
    /// Whether the monitor asks for updates near fences.
    public var enabled: Bool
    /// A boundary this near (beyond the position's accuracy) asks for best accuracy; the tier
    /// is left again only at one and a half times this, so it does not flap.
    public var nearMeters: Double
    /// A boundary this near asks for hundred-metre accuracy.
    public var approachMeters: Double
    /// Whether GNSS rests between fixes while the nearest boundary is farther than the device
    /// can travel meanwhile (at one and a half times its speed plus 2 m/s, at least 4 m/s),
    /// less the enter depth, the fix's accuracy and ``gnssReacquireSeconds`` of travel.
    public var restsGNSS: Bool
    /// The longest and shortest rest, seconds: a rest shorter than the minimum is not taken.
    public var restSeconds: ClosedRange<Double>
    /// How long GNSS takes to give a fix again after a rest (the margin covers the travel).
    public var gnssReacquireSeconds: Double

    /// Makes the settings; off unless `enabled`.
    public init(enabled: Bool = false, nearMeters: Double = 300, approachMeters: Double = 1_500,
                restsGNSS: Bool = true, restSeconds: ClosedRange<Double> = 15...120, gnssReacquireSeconds: Double = 5) {
        self.enabled = enabled
        self.nearMeters = nearMeters
        self.approachMeters = approachMeters
        self.restsGNSS = restsGNSS
        self.restSeconds = restSeconds
        self.gnssReacquireSeconds = gnssReacquireSeconds
    }

    /// On, with the default distances.
    public static let on = ProximityTracking(enabled: true)
}

extension GeofenceMonitor {
    /// How close the device is to a fence, as the proximity tracking sees it.
    enum ProximityTier: Hashable, Sendable {
        case far, approach, near
    }

    /// Whether the proximity tracking may run (enabled, and Always with full accuracy granted).
    var proximityTracking: Bool { configuration.proximity.enabled && proximityAllowed }

    /// The standard-updates demand of the proximity tracking, if any.
    var proximityDemand: LocationDemand? {
        let accuracy: DesiredAccuracy
        switch proximityTier {
        case .far: return nil
        case .approach: accuracy = .hundredMeters
        case .near: accuracy = proximityRestUntil == nil ? .best : .hundredMeters
        }
        return .standard(StandardDemand(accuracy: accuracy, background: true, activityType: .other, pausesAutomatically: true))
    }

    /// Takes a position (a fix, a significant change, a visit) for the proximity tracking.
    mutating func noteProximityPosition(_ coordinate: Coordinate, accuracy: Double?) {
        guard configuration.proximity.enabled else { return }
        proximityPosition = (coordinate, accuracy ?? configuration.maximumCoarseAccuracyMeters)
    }

    /// Handles the events that start or pause the tracking: authorization, iOS's pause, and
    /// the signs that the device moves again.
    mutating func proximityEvent(_ event: DeviceEvent) {
        guard configuration.proximity.enabled else { return }
        switch event {
        case .authorizationChanged(let auth):
            proximityAllowed = auth.servicesEnabled && auth.status == .authorizedAlways && auth.accuracy == .full
        case .locationUpdatesPaused:
            proximityPaused = true
            proximityRestUntil = nil
            proximityPausedAt = proximityPosition?.0
        case .launched, .willEnterForeground, .regionEntered, .regionExited:
            proximityPaused = false
        case .significantChange(let fix):
            // iOS also delivers significant changes to a still device, at least every 15 minutes
            // (Apple, Energy Efficiency Guide for iOS Apps; DTS, forums 71792): only a fix away
            // from where the updates paused is movement.
            if let pausedAt = proximityPausedAt,
               LocalApproximation.distance(pausedAt, fix.coordinate) <= max(200, fix.horizontalAccuracy ?? 0) { break }
            proximityPaused = false
        case .visit(let visit):
            if visit.departure != nil { proximityPaused = false }
        default:
            break
        }
    }

    /// Sets the tier from the last position (called at the end of every step).
    mutating func updateProximityTier() {
        let settings = configuration.proximity
        guard proximityTracking, !proximityPaused, !stored.fences.isEmpty,
              let (position, accuracy) = proximityPosition else {
            proximityTier = .far
            return
        }
        guard let distance = nearestBoundaryDistance(to: position, within: settings.approachMeters + accuracy) else {
            proximityTier = .far
            return
        }
        let nearLimit = settings.nearMeters * (proximityTier == .near ? 1.5 : 1)
        proximityTier = distance - accuracy <= nearLimit ? .near : .approach
        if proximityTier != .near { proximityRestUntil = nil }
    }

    /// After a GNSS fix near fences: lets GNSS rest (hundred-metre accuracy keeps the updates, and
    /// so the app, running) for as long as the device cannot reach the nearest boundary.
    mutating func planProximityRest(after fix: Fix) {
        let settings = configuration.proximity
        guard settings.enabled, settings.restsGNSS, proximityTier == .near, proximityRestUntil == nil,
              let accuracy = fix.horizontalAccuracy, accuracy <= configuration.enterDepthMeters else { return }
        let reach = max(max(fix.speed ?? 0, 0) * 1.5 + 2, 4)
        let margin = configuration.enterDepthMeters + accuracy + reach * settings.gnssReacquireSeconds
        let horizon = reach * settings.restSeconds.upperBound + margin
        let distance = nearestBoundaryDistance(to: fix.coordinate, within: horizon) ?? horizon
        let rest = min((distance - margin) / reach, settings.restSeconds.upperBound)
        guard rest >= settings.restSeconds.lowerBound else { return }
        proximityRestUntil = fix.timestamp.addingTimeInterval(rest)
    }

    /// Ends a rest that has come due.
    mutating func endProximityRest(at now: Date) {
        if let until = proximityRestUntil, until <= now { proximityRestUntil = nil }
    }
}
