import Foundation
import WaymarkGeo

/// An OS region event held until a fix checks it (see ``GeofenceMonitor/regionCrossed(_:entered:at:into:)``).
struct PendingRegionEvent: Hashable, Sendable {
    /// Entered (true) or exited.
    var entered: Bool
    /// When it arrived.
    var receivedAt: Date
    /// Whether it contradicts a decided presence outright (a region state), rather than being a
    /// possible echo or a polygon's circle: if the presence survives the check, iOS disagrees.
    var disagreement: Bool
    /// Whether iOS's event is delivered when no decision-grade fix came to check it (a balanced
    /// fence's crossing reported by iOS first).
    var fallsBack = false
}

extension GeofenceMonitor {
    /// Starts a catch-up: asks for one fix to decide every fence, unless a fresh fix is at hand,
    /// there are no fences, or ``Configuration/catchesUp`` is off.
    ///
    /// Triggers: a launch (any ``LaunchReason``: nothing here tells them apart), the app opening,
    /// and significant changes or visits that cannot decide the fences near them. A catch-up
    /// already waiting keeps waiting (its answer is on the way), with a fresh timeout.
    mutating func beginCatchUp() {
        guard configuration.catchesUp, !stored.fences.isEmpty, !hasFreshFix(at: now) else { return }
        wait.beginCatchUp(at: now, timeout: configuration.fixWaitTimeout)
    }

    /// Starts (or extends) the wait for a fix.
    mutating func startWait() {
        wait.start(at: now, timeout: configuration.fixWaitTimeout)
    }

    /// Whether `fix` answers the monitor's request: it was measured after the wait began (less the
    /// freshness a one-shot answer may have).
    func answersWait(_ fix: Fix) -> Bool {
        wait.answers(fix, freshness: configuration.fixFreshness)
    }

    /// Ends the wait for a fix: the answer came (and was used), failed, or did not come in time.
    /// The catch-up is over (held timers run at the next step), and OS events still waiting for a
    /// check are dropped: a fix decided their fences, or none came to tell an echo from a crossing
    /// (the next catch-up decides them).
    mutating func endWait(into out: inout Output) {
        let checked = pending
        pending = [:]
        for (handle, event) in checked.sorted(by: { $0.key < $1.key }) where event.fallsBack {
            let claimed: FencePresence = event.entered ? .inside : .outside
            let fixSince = lastFix.map { $0.timestamp >= event.receivedAt.addingTimeInterval(-configuration.fixFreshness) } ?? false
            guard presence[Int(handle)] != claimed, !fixSince else { continue }
            let id = ids[Int(handle)]
            let region = configuration.regionIdentifier(forFence: id)
            transition(id, to: claimed, basis: .os(.region(identifier: region, entered: event.entered), receivedAt: event.receivedAt),
                       crossing: true, into: &out)
        }
        for (handle, event) in checked where event.disagreement && presence[Int(handle)] != (event.entered ? .inside : .outside) {
            let id = ids[Int(handle)]
            guard var record = stored.records[id], record.osDisagrees != true else { continue }
            record.osDisagrees = true
            stored.records[id] = record
            changed()
        }
        wait.end()
    }

    /// A significant-change fix: decides what it can (a coarse fix only the fences far from it),
    /// reselects the OS regions around it, and catches up when fences near it stay undecided.
    mutating func significantChange(_ fix: Fix, into out: inout Output) {
        consider(fix, answering: false, into: &out)
        remember(position: fix.coordinate)
        recentlyFailed = []
        reselect(around: fix.coordinate, into: &out)
        if !hasFreshFix(at: now), undecidedFences(near: fix) { beginCatchUp() }
    }

    /// A visit: its arrival and its departure each count as a position at its place, with its
    /// accuracy (source `fused`), unless a fresh fix is at hand. A departure means the device is
    /// somewhere else now, so it always catches up; an arrival only when fences near the place stay
    /// undecided.
    mutating func visited(_ visit: Visit, into out: inout Output) {
        if visit.horizontalAccuracy >= 0 { noteProximityPosition(visit.coordinate, accuracy: visit.horizontalAccuracy) }
        guard visit.horizontalAccuracy >= 0, visit.horizontalAccuracy <= configuration.maximumCoarseAccuracyMeters,
              !hasFreshFix(at: now) else { return }
        var times = [visit.arrival, visit.departure].compactMap { $0 }.filter { $0 <= now }
        if times.isEmpty, visit.departure == nil { times = [now] }
        let coarse = visit.horizontalAccuracy > configuration.maximumDecisionAccuracyMeters
        var last: Fix?
        for time in times.sorted() {
            let fix = Fix(coordinate: visit.coordinate, horizontalAccuracy: visit.horizontalAccuracy,
                          timestamp: time, source: .fused)
            evaluate(fix, live: false, coarse: coarse, into: &out)
            last = fix
        }
        guard let last else { return }
        if visit.departure == nil { remember(position: visit.coordinate) }
        if visit.departure != nil || undecidedFences(near: last) { beginCatchUp() }
    }

    /// Whether a fence boundary lies within `fix`'s decision margin: that fix cannot decide it.
    func undecidedFences(near fix: Fix) -> Bool {
        let accuracy = fix.horizontalAccuracy ?? .infinity
        guard accuracy.isFinite else { return true }
        let coarse = accuracy > configuration.maximumDecisionAccuracyMeters
        let regions = margins(accuracy: accuracy, coarse: coarse, mode: .regions)
        let tracked = margins(accuracy: accuracy, coarse: coarse, mode: .balanced)
        return nearestBoundaryDistance(to: fix.coordinate, within: max(regions.enter, regions.exit), mode: .regions) != nil
            || !trackedBoundaries(near: fix.coordinate, within: max(tracked.enter, tracked.exit)).isEmpty
    }
}
