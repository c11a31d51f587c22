import Foundation
import WaymarkGeo

/// Location updates while the device is near ``GeofenceMode/precise`` fences, so that their
/// crossings are decided from fixes instead of waiting for iOS.
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
/// It runs for the fences whose ``Fence/mode`` is ``GeofenceMode/precise``, near those fences only
/// (``enabled`` false turns it off for all of them, which then count as balanced). The geofence
/// experiment measures what it costs and what it reports (<doc:ChoosingAGeofenceMode>). A
/// when-in-use app cannot start updates in the background (PLATFORM.md §3), so the tracking
/// needs Always authorization with full accuracy.
public struct ProximityTracking: Hashable, Sendable {
    /// Whether the monitor asks for updates near precise fences (default true; false monitors
    /// them as balanced ones).
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

    /// Makes the settings.
    public init(enabled: Bool = true, nearMeters: Double = 300, approachMeters: Double = 1_500,
                restsGNSS: Bool = true, restSeconds: ClosedRange<Double> = 15...120, gnssReacquireSeconds: Double = 5) {
        self.enabled = enabled
        self.nearMeters = nearMeters
        self.approachMeters = approachMeters
        self.restsGNSS = restsGNSS
        self.restSeconds = restSeconds
        self.gnssReacquireSeconds = gnssReacquireSeconds
    }

    /// On, with the default distances (the default).
    public static let on = ProximityTracking(enabled: true)
    /// Off: precise fences are monitored as balanced ones.
    public static let off = ProximityTracking(enabled: false)

    /// The proximity tracker's settings for precise fences.
    var trackerSettings: ProximityTracker.Settings {
        ProximityTracker.Settings(nearMeters: nearMeters, restsGNSS: restsGNSS, restSeconds: restSeconds,
                                  gnssReacquireSeconds: gnssReacquireSeconds, pausesAutomatically: true)
    }
}

extension GeofenceMonitor {
    /// The mode a fence is monitored in now: its own, except that a precise fence counts as
    /// balanced while proximity tracking is off, and every fence counts as regions while location
    /// updates may not run in the background (Always with full accuracy not granted).
    func effectiveMode(_ handle: FenceIndex.Handle) -> GeofenceMode {
        let mode = modes[Int(handle)]
        guard trackingAllowed else { return .regions }
        if mode == .precise, !configuration.proximity.enabled { return .balanced }
        return mode
    }

    /// The distance to the nearest boundary of the fences monitored in `mode` within `horizon`
    /// metres (nil when none is): what that mode's tracker sees, and nothing else.
    func nearestBoundaryDistance(to point: Coordinate, within horizon: Double, mode: GeofenceMode) -> Double? {
        var nearest = Double.infinity
        index.forEachCircle(near: point, slack: horizon) { handle, d in
            guard let shape = geometry[Int(handle)], effectiveMode(handle) == mode else { return }
            nearest = min(nearest, abs(shape.signedDistance(to: point, centerDistance: d)))
        }
        return nearest <= horizon ? nearest : nil
    }

    /// The distance to the nearest boundary of any fence tracked with fixes (precise or balanced)
    /// within `horizon`: a GNSS rest is planned on it, so the last fix stays valid for all of them.
    func nearestTrackedBoundaryDistance(to point: Coordinate, within horizon: Double) -> Double? {
        var nearest = Double.infinity
        index.forEachCircle(near: point, slack: horizon) { handle, d in
            guard let shape = geometry[Int(handle)], effectiveMode(handle) != .regions else { return }
            nearest = min(nearest, abs(shape.signedDistance(to: point, centerDistance: d)))
        }
        return nearest <= horizon ? nearest : nil
    }

    /// Whether the monitor has fences monitored in `mode` now (see ``effectiveMode(_:)``).
    func hasFences(in mode: GeofenceMode) -> Bool {
        func count(_ m: GeofenceMode) -> Int { modeCounts[m] ?? 0 }
        guard trackingAllowed else { return mode == .regions && !handles.isEmpty }
        switch mode {
        case .regions: return count(.regions) > 0
        case .balanced: return count(.balanced) > 0 || (!configuration.proximity.enabled && count(.precise) > 0)
        case .precise: return configuration.proximity.enabled && count(.precise) > 0
        }
    }

    /// The standard-updates demands of the two trackers; at best accuracy while the monitor waits
    /// for a fix (a one-shot request is not made while standard updates run).
    var trackerDemands: [LocationDemand] {
        [preciseTracker.demand, balancedTracker.demand].compactMap { demand in
            guard wantsFix, case .standard(var standard) = demand else { return demand }
            standard.accuracy = configuration.fixAccuracy
            return .standard(standard)
        }
    }

    /// When GNSS rests until, if it rests: the earliest end of a planned rest, unless a tracker
    /// near its boundaries wants GNSS now.
    var gnssRestUntil: Date? {
        let trackers = [preciseTracker, balancedTracker].filter { $0.tier == .near }
        if trackers.contains(where: { $0.restUntil == nil }) { return nil }
        return trackers.compactMap(\.restUntil).min()
    }

    /// Takes a position (a fix, a significant change, a visit) for both trackers.
    mutating func noteProximityPosition(_ coordinate: Coordinate, accuracy: Double?, at time: Date? = nil, speed: Double? = nil) {
        let accuracy = accuracy ?? configuration.maximumCoarseAccuracyMeters
        preciseTracker.note(coordinate, accuracy: accuracy, at: time, speed: speed)
        balancedTracker.note(coordinate, accuracy: accuracy, at: time, speed: speed)
    }

    /// Hands an event to the trackers and the motion gate: authorization, iOS's pause, signs of movement.
    mutating func proximityEvent(_ event: DeviceEvent) {
        if case .authorizationChanged(let auth) = event {
            trackingAllowed = auth.servicesEnabled && auth.status == .authorizedAlways && auth.accuracy == .full
        }
        preciseTracker.handle(event)
        balancedTracker.handle(event)
        gate.handle(event, at: now, stillRegion: configuration.stillRegionIdentifier)
    }

    /// Sets both tiers from the last position (called at the end of every step): the precise one
    /// from the precise fences, the balanced one from the balanced fences, and only while the gate
    /// says the device moves, with the approach distance the device could cover before the next wake.
    mutating func updateProximityTier() {
        let settings = configuration.proximity
        let view = self                                     // the fences, read while a tracker changes
        preciseTracker.updateTier(active: settings.enabled && trackingAllowed && hasFences(in: .precise),
                                  approachMeters: settings.approachMeters) { point, horizon in
            view.nearestBoundaryDistance(to: point, within: horizon, mode: .precise)
        }
        let balanced = configuration.balanced
        let horizon = gate.reachSpeed(at: now) * balanced.wakeIntervalSeconds
        balancedTracker.updateTier(active: trackingAllowed && !gate.isStill && hasFences(in: .balanced),
                                   approachMeters: max(min(horizon, balanced.maximumApproachMeters), balanced.nearMeters),
                                   at: now) { point, horizon in
            view.nearestBoundaryDistance(to: point, within: horizon, mode: .balanced)
        }
    }

    /// After a GNSS fix: each tracker near its boundaries may let GNSS rest.
    mutating func planProximityRest(after fix: Fix) {
        let depth = configuration.enterDepthMeters
        let view = self
        preciseTracker.planRest(after: fix, enterDepth: depth) { point, horizon in
            view.nearestTrackedBoundaryDistance(to: point, within: horizon)
        }
        balancedTracker.planRest(after: fix, enterDepth: depth) { point, horizon in
            view.nearestTrackedBoundaryDistance(to: point, within: horizon)
        }
    }

    /// Ends the rests that have come due.
    mutating func endProximityRest(at now: Date) {
        preciseTracker.endRest(at: now)
        balancedTracker.endRest(at: now)
    }

    /// The services the balanced mode watches with while there are balanced fences: motion activity
    /// and visits (started once per process; never stopped here, since other components may use them),
    /// and the stationary region around the device while it is still.
    mutating func balancedServices(into out: inout Output) {
        let active = trackingAllowed && hasFences(in: .balanced)
        let settings = configuration.balanced
        if active, !balancedServicesStarted {
            balancedServicesStarted = true
            if settings.usesMotion { out.commands.append(.startMotionActivityUpdates) }
            if settings.usesVisits { out.commands.append(.startMonitoringVisits) }
        }
        // Until the authorization is known (a new process hears it after creating its location
        // manager), the stationary region and the stored place stay as they are.
        guard trackingAllowed else { return }
        let place = active && gate.isStill ? gate.place?.coordinate ?? stored.lastPosition : nil
        if stored.restingPlace != place {
            stored.restingPlace = place
            changed()
        }
        let id = configuration.stillRegionIdentifier
        var wanted: MonitoredRegion?
        if active, gate.isStill, !recentlyFailed.contains(id), let center = gate.place?.coordinate ?? stored.lastPosition,
           slotBudget > 0 {
            wanted = MonitoredRegion(identifier: id, center: center, radiusMeters: settings.stationaryRadiusMeters)
        }
        let current = stored.regions[id]
        // The region stays where it was put while the device rests there.
        if let current, wanted != nil { wanted = current }
        guard wanted != current else { return }
        if current != nil { out.commands.append(.stopMonitoring(identifier: id)) }
        if let wanted { out.commands.append(.startMonitoring(wanted)) }
        stored.regions[id] = wanted
        changed()
        out.updates.append(.monitoredRegions(stored.regions.values.sorted { $0.identifier < $1.identifier }))
    }
}


