import Foundation
import WaymarkGeo

/// Automatic tracking (``AutomaticTracking``): the still state between rides, the check that
/// starts a ride, and the end of a ride after the stop timeout.
extension RideTracker {
    /// What automatic tracking does while no ride is under way.
    enum StillPhase: Hashable, Sendable {
        /// GNSS off; the stationary region, significant changes, visits and motion watch.
        case resting
        /// GNSS checks a hint of movement (or looks for the resting place) until the date.
        case checking(until: Date)
    }

    /// Where the device rests between rides: the last good fix there, and the latest time the
    /// device was known to be there.
    struct RestingPlace: Hashable, Sendable {
        var coordinate: Coordinate
        var horizontalAccuracy: Double?
        var since: Date

        /// The ride's first point when the start is noticed late.
        var fix: Fix {
            Fix(coordinate: coordinate, horizontalAccuracy: horizontalAccuracy, speed: 0, timestamp: since)
        }
    }

    /// Where automatic tracking stands now.
    public var automaticState: AutomaticTracking.State {
        guard configuration.automatic.enabled else { return .off }
        switch still {
        case .resting: return .still
        case .checking: return .checking
        case nil: return state.isActive ? .riding : .still
        }
    }

    var automatic: AutomaticTracking { configuration.automatic }

    /// Whether motion activity can watch for movement.
    var motionWatches: Bool { configuration.usesMotion && !motionUnavailable }

    /// The end of an auto-pause after which an automatic ride ends.
    var stopTimeoutDeadline: Date? {
        guard automatic.enabled, state == .autoPaused, let stopped = snapshot?.stoppedAt else { return nil }
        return stopped.addingTimeInterval(automatic.stopTimeoutSeconds)
    }

    /// The close of the tracking window an automatic ride started in, at which it ends (nil without
    /// windows, for the rider's own rides, and while no ride is under way).
    var windowEndDeadline: Date? {
        guard automatic.enabled, let windows = automatic.windows, state.isActive,
              let snap = snapshot, snap.startedAutomatically else { return nil }
        return windows.contains(snap.startedAt) ? windows.nextChange(after: snap.startedAt) : snap.startedAt
    }

    /// The still state's demands: significant changes, GNSS while checking, coarse updates as the
    /// fallback without motion.
    func stillDemands(_ phase: StillPhase) -> [LocationDemand] {
        var result: [LocationDemand] = []
        switch phase {
        case .checking:
            result.append(standardDemand(movingSetting))
        case .resting where !motionWatches && automatic.withoutMotion == .coarseUpdates:
            result.append(standardDemand(configuration.policy.watch ?? .cellWatch))
        case .resting:
            break
        }
        if automatic.usesSignificantChanges { result.append(.significantChanges) }
        return result
    }

    // MARK: entering and leaving the still state

    /// A new process without a ride under way: still, around the resting place the last
    /// automatic ride left in its snapshot (if any).
    ///
    /// Without one (no ride was stored yet: a fresh install that iOS terminated before its first
    /// ride), the wake fence iOS still monitors tells where the device rested: the engine
    /// registered it around the resting place the earlier process found, and iOS keeps a region's
    /// centre across launches (``Device/monitoredRegion(identifier:)``). The time the device was last
    /// known there is lost with that process, so the place counts from this launch.
    mutating func resumeStill(at now: Date) -> [DeviceCommand] {
        var place: RestingPlace?
        stillFenceActive = snapshot?.wakeFenceActive ?? false
        if let snap = snapshot, snap.state == .ended, let anchor = snap.stopAnchor {
            place = RestingPlace(coordinate: anchor, horizontalAccuracy: snap.lastRecorded?.horizontalAccuracy,
                                 since: snap.stoppedAt ?? snap.lastRecorded?.timestamp ?? snap.startedAt)
        } else if let region = osWakeRegion, region.identifier == Self.wakeFenceIdentifier {
            place = RestingPlace(coordinate: region.center, horizontalAccuracy: nil, since: now)
            stillFenceActive = true
        }
        osWakeRegion = nil
        return enterStill(at: now, place: place, armed: true)
    }

    /// Becomes still: motion and visits watch, the stationary region goes up around `place`; without
    /// a place GNSS looks for one first (when armed).
    mutating func enterStill(at now: Date, place: RestingPlace?, armed: Bool) -> [DeviceCommand] {
        restingPlace = place
        automaticArmed = armed
        still = .resting
        var commands: [DeviceCommand] = []
        if configuration.usesMotion { commands.append(.startMotionActivityUpdates) }
        if automatic.usesVisits { commands.append(.startMonitoringVisits) }
        commands += addStillFence()
        if place == nil, armed { startCheck(at: now, locating: true) }
        return commands
    }

    /// Leaves the still state for a ride: the stationary region comes down.
    mutating func leaveStill() -> [DeviceCommand] {
        guard still != nil else { return [] }
        still = nil
        restingPlace = nil
        pendingDeparture = nil
        return removeStillFence()
    }

    /// Registers the stationary region around the resting place, unless it is registered.
    mutating func addStillFence() -> [DeviceCommand] {
        guard let place = restingPlace, !stillFenceActive else { return [] }
        stillFenceActive = true
        if snapshot?.state == .ended { snapshot?.wakeFenceActive = true }
        return [.startMonitoring(MonitoredRegion(identifier: Self.wakeFenceIdentifier, center: place.coordinate,
                                                 radiusMeters: automatic.stationaryRadiusMeters))]
    }

    /// Removes the stationary region if registered.
    mutating func removeStillFence() -> [DeviceCommand] {
        guard stillFenceActive else { return [] }
        stillFenceActive = false
        if snapshot?.state == .ended { snapshot?.wakeFenceActive = false }
        return [.stopMonitoring(identifier: Self.wakeFenceIdentifier)]
    }

    /// The stored resting place changed: a checkpoint so that a relaunched process finds it.
    mutating func storeRestingPlace() -> [RideUpdate] {
        guard var snap = snapshot, snap.state == .ended else { return [] }
        snap.stopAnchor = restingPlace?.coordinate
        snap.stoppedAt = restingPlace?.since
        snap.wakeFenceActive = stillFenceActive
        guard snap != snapshot else { return [] }
        snapshot = snap
        return [.checkpoint(snap)]
    }

    /// An automatic ride stood still for the stop timeout: it ends, and the tracker is still
    /// around the place it stopped (the wake fence stays up as the stationary region).
    mutating func endAutomatically(at now: Date) -> Output {
        guard let snap = snapshot else { return output() }
        let stopped = snap.stoppedAt ?? now
        // Known at the stop until the hold ended (GNSS saw no movement), or until now.
        let since = min(now, stopped.addingTimeInterval(configuration.holdSeconds))
        let coordinate = snap.stopAnchor ?? snap.lastRecorded?.coordinate
        let fenceUp = snap.wakeFenceActive
        var updates = set(.ended)
        pendingGap = nil
        stillFenceActive = fenceUp
        let commands = enterStill(at: now, place: coordinate.map {
            RestingPlace(coordinate: $0, horizontalAccuracy: snap.lastRecorded?.horizontalAccuracy, since: since)
        }, armed: true)
        updates += storeRestingPlace()
        return output(commands, updates)
    }

    // MARK: watching

    /// A device event while still.
    mutating func stillEvent(_ event: DeviceEvent, at now: Date) -> Output {
        var commands: [DeviceCommand] = []
        var updates: [RideUpdate] = []
        switch event {
        case .locations(let fixes):
            for (index, fix) in fixes.enumerated() {
                stillFix(fix, at: now, commands: &commands, updates: &updates)
                if still == nil {
                    // The ride started: the rest of the batch belongs to it.
                    for later in fixes.dropFirst(index + 1) { consume(later, at: now, commands: &commands, updates: &updates) }
                    break
                }
            }
        case .regionExited(let identifier) where identifier == Self.wakeFenceIdentifier:
            // iOS counts an exit only well outside the boundary and late (PLATFORM.md §5), and it
            // relaunches a terminated or force-quit app for it (§4): GNSS confirms before a ride starts.
            hint(at: now)
        case .significantChange(let fix):
            significantChangeWhileStill(fix, at: now, updates: &updates)
        case .visit(let visit) where visit.departure == nil:
            // An arrival: iOS says the device stays somewhere (PLATFORM.md §3 visits).
            if !automaticArmed { arm(at: now) }
        case .visit(let visit):
            departedVisit(visit, at: now, updates: &updates)
        case .motionActivity(let motion):
            motionWhileStill(motion, at: now)
        default:
            break
        }
        return output(commands, updates)
    }

    /// A significant change: near the resting place it shows the device still there (iOS wakes the
    /// app at least every 15 minutes without movement, PLATFORM.md §4); clearly away it is a hint.
    mutating func significantChangeWhileStill(_ fix: Fix, at now: Date, updates: inout [RideUpdate]) {
        guard let place = restingPlace else {
            hint(at: now)                                   // no place yet: let GNSS find one
            return
        }
        guard let accuracy = fix.horizontalAccuracy, accuracy >= 0, fix.timestamp > place.since else { return }
        let distance = LocalApproximation.segmentDistance(place.coordinate, fix.coordinate)
        if distance > 2 * accuracy + automatic.stationaryRadiusMeters {
            hint(at: now)
        } else if distance + accuracy <= automatic.stationaryRadiusMeters {
            restingPlace?.since = fix.timestamp
            updates += storeRestingPlace()
        }
    }

    /// A visit departure (delivered minutes late, PLATFORM.md §3): iOS says where the device stayed
    /// and about when it left (Apple, `CLVisit.departureDate`). It locates an unknown resting place,
    /// dates the departure from a known one, and makes GNSS check.
    mutating func departedVisit(_ visit: Visit, at now: Date, updates: inout [RideUpdate]) {
        guard let departure = visit.departure, visit.horizontalAccuracy >= 0 else { return }
        if let place = restingPlace {
            guard departure > place.since else { return }
            let distance = LocalApproximation.segmentDistance(place.coordinate, visit.coordinate)
            if distance <= visit.horizontalAccuracy + automatic.stationaryRadiusMeters {
                restingPlace?.since = departure
                updates += storeRestingPlace()
            }
        } else if case .resting = still {
            restingPlace = RestingPlace(coordinate: visit.coordinate, horizontalAccuracy: visit.horizontalAccuracy, since: departure)
        }
        hint(at: now)
    }

    /// A motion classification while still: a moving activity is a hint, a stationary one re-arms
    /// automatic starts after the rider stopped a ride.
    mutating func motionWhileStill(_ motion: MotionActivity, at now: Date) {
        guard configuration.usesMotion else { return }
        activity = motion
        if motion.kind == .stationary {
            if !automaticArmed, motion.confidence >= .medium { arm(at: now) }
        } else if automatic.movingActivities.contains(motion.kind), motion.confidence >= automatic.minimumMotionConfidence {
            hint(at: now)
        }
    }

    /// The device rested after the rider stopped a ride: automatic starts are on again, from a
    /// resting place GNSS finds now.
    mutating func arm(at now: Date) {
        automaticArmed = true
        if restingPlace == nil { startCheck(at: now, locating: true) }
    }

    /// A hint of movement: GNSS checks (ignored until armed, while a check runs, and outside the
    /// tracking windows).
    mutating func hint(at now: Date) {
        guard automaticArmed, automatic.allowsStart(at: now) else { return }
        if locatingFixes != nil, case .checking = still {
            locatingFixes = nil                             // a hint during a locating check: check in full
            still = .checking(until: now.addingTimeInterval(configuration.verifySeconds))
            return
        }
        guard still == .resting else { return }
        startCheck(at: now)
    }

    /// Turns GNSS on for a check; `locating`: only to find the resting place (no hint of
    /// movement), so the check ends once ``restingFixesToLocate`` fixes confirm the place.
    mutating func startCheck(at now: Date, locating: Bool = false) {
        resetMotionState(at: now)
        departureSpeedStreak = 0
        departureFarStreak = 0
        locatingFixes = locating ? 0 : nil
        still = .checking(until: now.addingTimeInterval(configuration.verifySeconds))
    }

    /// The end of a check that found no movement.
    mutating func stillDeadlineReached(at now: Date) -> Output {
        guard case .checking(let until) = still, now >= until else { return output() }
        still = .resting
        return output()
    }

    /// A fix while still: while checking, it finds the resting place, shows the device still
    /// there, or starts the ride; while resting (coarse updates without motion), one clearly
    /// away from the place is a hint.
    mutating func stillFix(_ fix: Fix, at now: Date, commands: inout [DeviceCommand], updates: inout [RideUpdate]) {
        guard case .checking = still else {
            if let place = restingPlace, let accuracy = fix.horizontalAccuracy, accuracy >= 0, fix.timestamp > place.since,
               LocalApproximation.segmentDistance(place.coordinate, fix.coordinate) > 2 * accuracy + automatic.stationaryRadiusMeters {
                hint(at: now)
            }
            return
        }
        if let fresh = freshSince {
            var stale = StaleFixFilter(maximumAge: configuration.maximumFixAge, referenceTime: fresh)
            guard stale.process(fix) != nil else { return }
        }
        guard var filtered = pipeline.process(fix) else { return }
        if let measured = fix.speed, measured >= 0 { filtered.speed = measured }
        if let measured = fix.course, measured >= 0 { filtered.course = measured }
        lastFilteredAt = filtered.timestamp
        lastSpeed = filtered.speed
        guard let place = restingPlace else {
            restingPlace = RestingPlace(coordinate: filtered.coordinate, horizontalAccuracy: filtered.horizontalAccuracy,
                                        since: filtered.timestamp)
            commands += addStillFence()
            updates += storeRestingPlace()
            return
        }
        let away = LocalApproximation.segmentDistance(place.coordinate, filtered.coordinate)
        let accuracy = filtered.horizontalAccuracy ?? configuration.maximumAccuracyMeters
        if automaticArmed, automatic.allowsStart(at: now), departs(filtered, away: away, accuracy: accuracy) {
            depart(from: place, first: filtered, at: now, commands: &commands, updates: &updates)
        } else if away <= configuration.resumeDistanceMeters + accuracy {
            restingPlace?.since = max(place.since, filtered.timestamp)
            // A better fix of the same place (the first one of a launch may be a rough one).
            if let placeAccuracy = place.horizontalAccuracy, accuracy < 0.7 * placeAccuracy {
                restingPlace?.coordinate = filtered.coordinate
                restingPlace?.horizontalAccuracy = accuracy
            }
            if let count = locatingFixes {
                // Only slow fixes confirm the place: a rider setting off as the app starts keeps the check going.
                let slow = (filtered.speed ?? configuration.stopSpeed) < configuration.stopSpeed
                locatingFixes = slow ? count + 1 : 0
                if slow, count + 1 >= Self.restingFixesToLocate {
                    still = .resting                        // located; nothing hinted at movement
                    locatingFixes = nil
                    updates += storeRestingPlace()
                }
            }
        }
    }

    /// Whether a filtered fix during a check shows the device setting off from the resting place.
    ///
    /// Stricter than the end of an auto-pause, since a false start costs a whole ride: either
    /// three fixes in a row with a Doppler speed of at least ``RideTracker/Configuration/resumeSpeed``
    /// (the receiver's speed noise at rest is about 0.3 m/s) farther than the resume distance plus
    /// their accuracy, or two in a row clearly outside the stationary region (its radius plus twice
    /// their accuracy), which wander at a desk never reaches.
    mutating func departs(_ fix: Fix, away: Double, accuracy: Double) -> Bool {
        departureSpeedStreak = (fix.speed ?? 0) >= configuration.resumeSpeed ? departureSpeedStreak + 1 : 0
        departureFarStreak = away > automatic.stationaryRadiusMeters + 2 * accuracy ? departureFarStreak + 1 : 0
        return (departureSpeedStreak >= 3 && away > configuration.resumeDistanceMeters + accuracy) || departureFarStreak >= 2
    }

    /// Slow fixes in a row near a newly found resting place (about half a minute of GNSS) that end
    /// a check made only to find it, before ``RideTracker/Configuration/verifySeconds``.
    static let restingFixesToLocate = 30

    /// GNSS shows the device clearly away from the resting place: an automatic ride starts, at the
    /// resting place when the start was noticed late, with `first` as its first fix on the move.
    mutating func depart(from place: RestingPlace, first: Fix, at now: Date,
                         commands: inout [DeviceCommand], updates: inout [RideUpdate]) {
        commands += leaveStill()
        snapshot = RideSnapshot(rideID: automatic.rideID(startingAt: now), state: .moving, startedAt: now,
                                startedAutomatically: true)
        phase = .recording
        stops.reset()
        updates += [.state(.moving), .checkpoint(snapshot!)]
        if automatic.startsAtRestingPlace {
            record(place.fix, updates: &updates)
            pendingDeparture = place.since
            countsMovingTime = false
        }
        record(first, updates: &updates)
    }
}

extension DeviceEvent {
    /// Whether the event starts a process.
    var isLaunch: Bool {
        if case .launched = self { true } else { false }
    }
}
