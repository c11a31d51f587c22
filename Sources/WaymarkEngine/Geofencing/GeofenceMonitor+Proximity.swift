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
/// meanwhile, plus a latency budget (``ProximityTracking/restsGNSS``,
/// ``ProximityTracking/latencyBudgetSeconds``), at hundred-metre accuracy, which keeps the updates,
/// and so the app, running in the background. During a rest a Wi-Fi position beyond a boundary by
/// more than its accuracy ends the rest at once; until GNSS is back, Wi-Fi positions decide nothing.
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
    /// How long a rest may run past the earliest moment the device could reach a boundary
    /// (default 30 s). A crossing in those seconds is decided by the first fix after the rest,
    /// up to this much later; in exchange GNSS rests near boundaries too, where without it it would
    /// run at 1 Hz. From outside a circle the overrun is also kept under the time to pass through
    /// it (its diameter less twice the enter depth, at the reach speed); from outside a polygon
    /// there is none. 0 keeps every rest short of any boundary the device could reach.
    ///
    /// Measured in the geofence experiment (a pocketed app, seeds 1–10, medians; 0 → 30 s): on the
    /// park ride energy over recording 152% → 47%, reported 100% → 99.5%, within 60 s 94.3% →
    /// 90.5%; on the commute day 386% → 173%, within 60 s 71% → 81%; on the city day 222% → 86%,
    /// reported 96.2% → 96.7% (<doc:ChoosingAGeofenceMode>).
    public var latencyBudgetSeconds: Double

    /// Makes the settings.
    public init(enabled: Bool = true, nearMeters: Double = 300, approachMeters: Double = 1_500,
                restsGNSS: Bool = true, restSeconds: ClosedRange<Double> = 15...120, gnssReacquireSeconds: Double = 5,
                latencyBudgetSeconds: Double = 30) {
        self.enabled = enabled
        self.nearMeters = nearMeters
        self.approachMeters = approachMeters
        self.restsGNSS = restsGNSS
        self.restSeconds = restSeconds
        self.gnssReacquireSeconds = gnssReacquireSeconds
        self.latencyBudgetSeconds = latencyBudgetSeconds
    }

    /// On, with the default distances (the default).
    public static let on = ProximityTracking(enabled: true)
    /// Off: precise fences are monitored as balanced ones.
    public static let off = ProximityTracking(enabled: false)

    /// The proximity tracker's settings for precise fences.
    var trackerSettings: ProximityTracker.Settings {
        ProximityTracker.Settings(nearMeters: nearMeters, restsGNSS: restsGNSS, restSeconds: restSeconds,
                                  gnssReacquireSeconds: gnssReacquireSeconds, latencyBudgetSeconds: latencyBudgetSeconds,
                                  pausesAutomatically: true)
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

    /// Whether a tracker near its boundaries waits for GNSS to come back after a rest
    /// (``ProximityTracker/isReacquiring(at:)``).
    func gnssReacquiring(at time: Date) -> Bool {
        preciseTracker.isReacquiring(at: time) || balancedTracker.isReacquiring(at: time)
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

    /// The boundaries of the fences tracked with fixes (precise or balanced) within `horizon` of
    /// `point`: a GNSS rest is planned on them all, so the last fix stays valid for all of them, and
    /// a position with any of them within its margin leaves a tracked fence undecided
    /// (``undecidedFences(near:)``).
    ///
    /// How far past a boundary the device may go before a rest must end
    /// (``ProximityTracker/Boundary/passMeters``): without limit from inside; from outside a circle,
    /// its diameter less twice the enter depth (a pass through the middle; a shallower pass is
    /// caught by ``restCrossingHint(_:)``); from outside a polygon, 0.
    func trackedBoundaries(near point: Coordinate, within horizon: Double) -> [ProximityTracker.Boundary] {
        let depth = configuration.enterDepthMeters
        var result: [ProximityTracker.Boundary] = []
        index.forEachCircle(near: point, slack: horizon) { handle, d in
            guard let shape = geometry[Int(handle)], effectiveMode(handle) != .regions else { return }
            let signed = shape.signedDistance(to: point, centerDistance: d)
            guard abs(signed) <= horizon else { return }
            let pass = signed < 0 ? Double.infinity : shape.polygon == nil ? 2 * (shape.radius - depth) : 0
            result.append(ProximityTracker.Boundary(distance: abs(signed), passMeters: pass))
        }
        return result
    }

    /// Whether a coarse position during a GNSS rest lies across the boundary of a tracked fence,
    /// by more than its accuracy, from the side the fence was decided on. Such a position decides
    /// nothing (its error may put it there), but it ends the rest, so that GNSS looks
    /// (``ProximityTracking/latencyBudgetSeconds`` lets a rest run past the moment a boundary could
    /// be reached, and a shallow pass through a fence may fit in it). Across by less than the
    /// accuracy is Wi-Fi's noise near a boundary as often as not: in the geofence experiment it cut
    /// most rests.
    func restCrossingHint(_ fix: Fix) -> Bool {
        var across = false
        let beyond = fix.horizontalAccuracy ?? 0
        index.forEachCircle(near: fix.coordinate, slack: 0) { handle, d in
            let i = Int(handle)
            guard !across, let shape = geometry[i], effectiveMode(handle) != .regions else { return }
            let signed = shape.signedDistance(to: fix.coordinate, centerDistance: d)
            across = (presence[i] == .outside && signed < -beyond) || (presence[i] == .inside && signed > beyond)
        }
        if across { return true }
        // A decided-inside fence the position is far from is not visited by the query above.
        for handle in insideHandles where effectiveMode(handle) != .regions {
            guard let shape = geometry[Int(handle)] else { continue }
            let d = LocalApproximation.distance(shape.center, fix.coordinate)
            if shape.signedDistance(to: fix.coordinate, centerDistance: d) > beyond { return true }
        }
        return false
    }

    /// After a GNSS fix: each tracker near its boundaries may let GNSS rest.
    mutating func planProximityRest(after fix: Fix) {
        let depth = configuration.enterDepthMeters
        let view = self
        preciseTracker.planRest(after: fix, enterDepth: depth) { horizon in
            view.trackedBoundaries(near: fix.coordinate, within: horizon)
        }
        balancedTracker.planRest(after: fix, enterDepth: depth) { horizon in
            view.trackedBoundaries(near: fix.coordinate, within: horizon)
        }
    }

    /// Ends both trackers' rests now (``restCrossingHint(_:)``).
    mutating func cutProximityRest(at now: Date) {
        preciseTracker.cutRest(at: now)
        balancedTracker.cutRest(at: now)
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


