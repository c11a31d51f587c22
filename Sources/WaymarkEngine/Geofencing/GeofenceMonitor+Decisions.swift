import Foundation
import WaymarkGeo

extension GeofenceMonitor {
    /// Uses one fix: decisions (if accurate enough and newer than the last), then reselection.
    mutating func consider(_ fix: Fix, at now: Date, into out: inout Output) {
        guard let accuracy = fix.horizontalAccuracy, accuracy >= 0 else { return }
        if let last = lastFix, fix.timestamp <= last.timestamp { return }
        if accuracy <= configuration.maximumDecisionAccuracyMeters {
            lastFix = fix
            awaitingPosition = false
            evaluate(fix, into: &out)
            runTimers(at: fix.timestamp, cause: .fix(fix), into: &out)
        }
        guard accuracy <= 4 * configuration.maximumDecisionAccuracyMeters else { return }
        remember(position: fix.coordinate)
        if needsReselect || stored.selectionCenter == nil {
            recentlyFailed = []
            reselect(around: fix.coordinate, into: &out)
        } else if let center = stored.selectionCenter {
            let moved = LocalApproximation.distance(center, fix.coordinate)
            if moved > max(25, (stored.refreshRadiusMeters ?? 0) / 2) {
                recentlyFailed = []
                reselect(around: fix.coordinate, into: &out)
            }
        }
    }

    /// Decides every fence near `fix` with hysteresis: enter when the fix is inside by the enter
    /// depth, exit when it is beyond the boundary by the exit margin, nothing in between.
    mutating func evaluate(_ fix: Fix, into out: inout Output) {
        let accuracy = fix.horizontalAccuracy ?? 0
        let enterDepth = max(configuration.enterDepthMeters, accuracy)
        let exitMargin = max(configuration.exitMarginMeters, accuracy)
        stamp &+= 1
        let current = stamp
        var changes: [(FenceIndex.Handle, FencePresence)] = []
        index.forEachCircle(near: fix.coordinate, slack: exitMargin) { handle, d in
            let i = Int(handle)
            stamps[i] = current
            guard let shape = geometry[i] else { return }
            let s = shape.signedDistance(to: fix.coordinate, centerDistance: d)
            let measured: FencePresence? = s <= -enterDepth ? .inside : s >= exitMargin ? .outside : nil
            if let measured, measured != presence[i] { changes.append((handle, measured)) }
        }
        for handle in insideHandles where stamps[Int(handle)] != current { changes.append((handle, .outside)) }
        for handle in unknownHandles where stamps[Int(handle)] != current { changes.append((handle, .outside)) }
        guard !changes.isEmpty else { return }
        changes.sort { $0.0 < $1.0 }
        for (handle, new) in changes {
            awaitingPolygons.remove(handle)
            transition(ids[Int(handle)], to: new, at: fix.timestamp, cause: .fix(fix), into: &out)
        }
    }

    /// Moves one fence to a new presence and delivers what the user should hear.
    ///
    /// From unknown, the state found is silent (unless initial states are reported), except when
    /// the OS reported a crossing (`crossing`). A re-entry within the debounce window after a
    /// delivered exit is held back (see ``runTimers(at:cause:into:)``), and so is its exit.
    mutating func transition(_ id: String, to new: FencePresence, at time: Date, cause: FenceEvent.Cause,
                             crossing: Bool = false, into out: inout Output) {
        guard let handle = handles[id], let fence = stored.fences[id] else { return }
        var record = stored.records[id] ?? FenceRecord()
        let old = record.presence
        guard old != new, new != .unknown else { return }
        record.presence = new
        presence[Int(handle)] = new
        unknownHandles.remove(handle)
        var deliver: FenceEvent.Kind?
        if new == .inside {
            insideHandles.insert(handle)
            record.since = time
            record.dwellDelivered = false
            if old == .unknown, !crossing {
                // Found inside: its exit counts, but a dwell only follows a reported entry.
                record.announced = true
                record.dwellDelivered = !configuration.reportsInitialState
                if configuration.reportsInitialState { deliver = .enter }
            } else if let lastExit = record.lastExit, time.timeIntervalSince(lastExit) < configuration.reentryDebounce {
                record.announced = false
            } else {
                record.announced = true
                deliver = .enter
            }
        } else {
            insideHandles.remove(handle)
            if old == .inside, record.announced {
                deliver = .exit
                record.lastExit = time
            }
            record.announced = false
            record.since = nil
        }
        if let kind = deliver, fence.triggers.contains(kind.trigger) {
            record.sequence += 1
            stored.eventCount += 1
            out.updates.append(.event(FenceEvent(fenceID: id, kind: kind, time: time, cause: cause,
                                                 sequence: record.sequence, userData: fence.userData)))
        }
        stored.records[id] = record
        updateTimer(handle)
        out.updates.append(.presence(fenceID: id, new))
        changed()
    }

    /// Recomputes the timer of one fence after its record changed.
    mutating func updateTimer(_ handle: FenceIndex.Handle) {
        timers[handle] = timerDue(ids[Int(handle)])
    }

    /// The next time a fence's timer (debounced entry or dwell) comes due, if any.
    func timerDue(_ id: String) -> Date? {
        guard let record = stored.records[id], record.presence == .inside, let since = record.since,
              let fence = stored.fences[id] else { return nil }
        if !record.announced {
            return record.lastExit.map { $0.addingTimeInterval(configuration.reentryDebounce) } ?? since
        }
        guard fence.triggers.contains(.dwell), !record.dwellDelivered else { return nil }
        return since.addingTimeInterval(fence.loiteringDelay)
    }

    /// Delivers held-back entries whose debounce window ended inside, then due dwells.
    mutating func runTimers(at now: Date, cause: FenceEvent.Cause, into out: inout Output) {
        guard let first = nextDeadline, first <= now else { return }
        for handle in timers.filter({ $0.value <= now }).keys.sorted() {
            let id = ids[Int(handle)]
            guard var record = stored.records[id],
                  let fence = stored.fences[id] else { continue }
            var kind = FenceEvent.Kind.dwell
            if !record.announced {
                record.announced = true
                kind = .enter
            } else {
                record.dwellDelivered = true
            }
            if fence.triggers.contains(kind.trigger) {
                record.sequence += 1
                stored.eventCount += 1
                out.updates.append(.event(FenceEvent(fenceID: id, kind: kind, time: now, cause: cause,
                                                     sequence: record.sequence, userData: fence.userData)))
            }
            stored.records[id] = record
            updateTimer(handle)
            changed()
        }
    }
}

extension FenceEvent.Kind {
    /// The trigger that enables this kind.
    var trigger: FenceTriggers {
        switch self {
        case .enter: .enter
        case .exit: .exit
        case .dwell: .dwell
        }
    }
}
