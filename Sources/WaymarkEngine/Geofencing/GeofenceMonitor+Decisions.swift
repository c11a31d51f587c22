import Foundation
import WaymarkGeo

extension GeofenceMonitor {
    /// Uses one fix: decisions (a decision-grade fix newer than the last; a coarse one only while no
    /// fresh fix is known, and only for fences far enough from it), then reselection. A fix that
    /// answers the monitor's request (`answering`: it came through standard or one-shot updates)
    /// ends its wait.
    mutating func consider(_ fix: Fix, answering: Bool = true, into out: inout Output) {
        guard let accuracy = fix.horizontalAccuracy, accuracy >= 0 else { return }
        let answers = answering && answersWait(fix)
        defer { if answers { endWait(into: &out) } }
        if let last = lastFix, fix.timestamp <= last.timestamp { return }
        noteProximityPosition(fix.coordinate, accuracy: accuracy, at: fix.timestamp, speed: fix.speed)
        if accuracy > configuration.enterDepthMeters {
            // While GNSS rests near fences a coarser fix decides nothing: the rest was planned on the
            // last GNSS fix (the device cannot reach a boundary before the rest's last
            // latency-budget seconds), so one placing it across a boundary is mostly its error. One
            // beyond a boundary by more than its accuracy ends the rest, so that GNSS looks.
            if let until = gnssRestUntil, fix.timestamp < until {
                if restCrossingHint(fix) { cutProximityRest(at: fix.timestamp) }
                return
            }
            // Just after a rest GNSS comes back within seconds; a Wi-Fi position before it may find
            // the device at a boundary the rest let it reach, and decide a fence on its error.
            if gnssReacquiring(at: fix.timestamp) { return }
        }
        if accuracy <= configuration.maximumDecisionAccuracyMeters {
            let live = lastFix.map { fix.timestamp.timeIntervalSince($0.timestamp) <= configuration.liveGap } ?? false
                && now.timeIntervalSince(fix.timestamp) <= configuration.liveGap
            lastFix = fix
            wait.positionCame()
            evaluate(fix, live: live, coarse: false, into: &out)
            planProximityRest(after: fix)
            runTimers(at: fix.timestamp, cause: .fix(fix), into: &out)
        } else if accuracy <= configuration.maximumCoarseAccuracyMeters, !hasFreshFix(at: now),
                  !(gate.isStill && hasFences(in: .balanced)) {
            // While the motion gate has the device resting (and this position did not move it), a
            // coarse position off by more than its accuracy is its error: a cell fix is sometimes
            // 1–2 km off (measured: 6 false exits in a commute day before this check).
            evaluate(fix, live: false, coarse: true, into: &out)
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

    /// The enter depth and exit margin for a position of this accuracy: the configured ones (at
    /// least the accuracy) for a decision-grade fix; for a coarse one, ``Configuration/coarseMarginFactor``
    /// times the accuracy for a fence in `mode` ``GeofenceMode/regions`` and
    /// ``Configuration/trackedCoarseMarginFactor`` times it for the others. For a balanced or
    /// precise fence a decision-grade fix less accurate than the enter depth (Wi-Fi's 30–100 m)
    /// also needs ``Configuration/trackedCoarseMarginFactor`` times its accuracy.
    func margins(accuracy: Double, coarse: Bool, mode: GeofenceMode = .regions) -> (enter: Double, exit: Double) {
        if coarse {
            let factor = mode == .regions ? configuration.coarseMarginFactor : configuration.trackedCoarseMarginFactor
            let margin = max(configuration.exitMarginMeters, factor * accuracy)
            return (margin, margin)
        }
        if mode != .regions, accuracy > configuration.enterDepthMeters {
            // A Wi-Fi position near a balanced or precise fence: the tracker asks for GNSS there.
            let margin = configuration.trackedCoarseMarginFactor * accuracy
            return (max(configuration.enterDepthMeters, margin), max(configuration.exitMarginMeters, margin))
        }
        return (max(configuration.enterDepthMeters, accuracy), max(configuration.exitMarginMeters, accuracy))
    }

    /// Decides every fence near `fix` with hysteresis: enter when the fix is inside by the enter
    /// depth, exit when it is beyond the boundary by the exit margin, nothing in between.
    ///
    /// A position older than what the monitor already knows of a fence (its last decision, or the
    /// last position that confirmed it) does not change it. `live` marks the events live (see
    /// ``Configuration/liveGap``); otherwise they are caught up.
    mutating func evaluate(_ fix: Fix, live: Bool, coarse: Bool, into out: inout Output) {
        let accuracy = fix.horizontalAccuracy ?? 0
        let (enterDepth, exitMargin) = margins(accuracy: accuracy, coarse: coarse)
        let tracked = margins(accuracy: accuracy, coarse: coarse, mode: .balanced)
        let previousStamp = stamp
        let previousTime = lastEvaluationTime
        stamp &+= 1
        let current = stamp
        let t = fix.timestamp
        var changes: [(FenceIndex.Handle, FencePresence)] = []
        index.forEachCircle(near: fix.coordinate, slack: max(exitMargin, tracked.exit)) { handle, d in
            let i = Int(handle)
            // Not reached by the previous evaluation: it was beyond that position's margin, outside.
            if stamps[i] != previousStamp, presence[i] == .outside, let previousTime { confirm(i, at: previousTime) }
            stamps[i] = current
            guard let shape = geometry[i] else { return }
            let s = shape.signedDistance(to: fix.coordinate, centerDistance: d)
            let (enter, exit) = effectiveMode(handle) == .regions ? (enterDepth, exitMargin) : tracked
            let measured: FencePresence? = s <= -enter ? .inside : s >= exit ? .outside : nil
            if measured == presence[i] {
                confirm(i, at: t)
            } else if let measured {
                changes.append((handle, measured))
            }
        }
        for handle in insideHandles where stamps[Int(handle)] != current { changes.append((handle, .outside)) }
        for handle in unknownHandles where stamps[Int(handle)] != current { changes.append((handle, .outside)) }
        lastEvaluationTime = t
        if stored.lastObservation.map({ $0.timestamp <= t }) ?? true { stored.lastObservation = fix }
        guard !changes.isEmpty else { return }
        changes.sort { $0.0 < $1.0 }
        for (handle, new) in changes where isNewer(t, than: handle) {
            transition(ids[Int(handle)], to: new, basis: .position(fix, live: live), into: &out)
        }
    }

    /// Records that a position at `time` placed the device on the side of fence `i`'s presence.
    mutating func confirm(_ i: Int, at time: Date) {
        if confirmed[i].map({ $0 < time }) ?? true { confirmed[i] = time }
    }

    /// Whether a position at `time` is newer than everything known of the fence: its last
    /// decision and the last position that confirmed its presence.
    func isNewer(_ time: Date, than handle: FenceIndex.Handle) -> Bool {
        let record = stored.records[ids[Int(handle)]]
        if let decided = record?.decidedAt, time <= decided { return false }
        if let bound = oldSideBound(handle), time < bound { return false }
        return true
    }

    /// The last moment a position placed the device on the side of the fence's current presence,
    /// since that presence was decided: this process's confirmations, the stored one of its last
    /// decision, the last evaluation (for an outside fence it did not reach) and the stored last
    /// observation. Nil when none is known.
    func oldSideBound(_ handle: FenceIndex.Handle) -> Date? {
        let i = Int(handle)
        let side = presence[i]
        guard side != .unknown else { return nil }
        // Only what is known since the presence was decided counts: an older position on this
        // side came before the crossing into it.
        let record = stored.records[ids[i]]
        let since = record?.decidedAt ?? .distantPast
        var bound: Date?
        func offer(_ t: Date?) { if let t, t >= since, bound.map({ $0 < t }) ?? true { bound = t } }
        offer(confirmed[i])
        offer(record?.confirmedAt)
        if side == .outside, stamps[i] != stamp { offer(lastEvaluationTime) }
        if let observation = stored.lastObservation, let shape = geometry[i],
           let accuracy = observation.horizontalAccuracy,
           accuracy <= configuration.maximumCoarseAccuracyMeters {
            let coarse = accuracy > configuration.maximumDecisionAccuracyMeters
            let (enterDepth, exitMargin) = margins(accuracy: accuracy, coarse: coarse, mode: effectiveMode(handle))
            let s = shape.signedDistance(to: observation.coordinate,
                                         centerDistance: LocalApproximation.distance(shape.center, observation.coordinate))
            if side == .inside ? s <= -enterDepth : s >= exitMargin { offer(observation.timestamp) }
        }
        return bound
    }

    /// What a transition is decided on.
    enum Basis {
        /// A position (fix or visit); `live` when it belongs to a steady stream of fixes.
        case position(Fix, live: Bool)
        /// An OS region event or state, received at the given time.
        case os(FenceEvent.Cause, receivedAt: Date)
        /// The crossing iOS missed, inferred from its event received at the given time: it happened
        /// before the crossing iOS reported.
        case osInferred(FenceEvent.Cause, receivedAt: Date)
    }

    /// Moves one fence to a new presence and delivers what the user should hear.
    ///
    /// From unknown, the state found is silent (unless initial states are reported), except when
    /// the OS reported a crossing (`crossing`). A re-entry within the debounce window after a
    /// delivered exit is held back (see ``runTimers(at:cause:into:)``), and so is its exit.
    mutating func transition(_ id: String, to new: FencePresence, basis: Basis, crossing: Bool = false,
                             into out: inout Output) {
        guard let handle = handles[id], let fence = stored.fences[id] else { return }
        var record = stored.records[id] ?? FenceRecord()
        let old = record.presence
        guard old != new, new != .unknown else { return }
        let i = Int(handle)
        let timing = eventTiming(handle, old: old, basis: basis)
        record.presence = new
        presence[i] = new
        unknownHandles.remove(handle)
        pending[handle] = nil
        record.osDisagrees = nil
        switch basis {
        case .position(let fix, _):
            record.decidedAt = fix.timestamp
            record.confirmedAt = fix.timestamp
            confirmed[i] = fix.timestamp
            if old != .unknown {
                if new == .inside {
                    record.unechoedEnters = unechoed(record.unechoedEnters, adding: fix.timestamp)
                } else {
                    record.unechoedExits = unechoed(record.unechoedExits, adding: fix.timestamp)
                }
            }
        case .os(_, let receivedAt), .osInferred(_, let receivedAt):
            record.decidedAt = receivedAt
            record.confirmedAt = nil
            confirmed[i] = nil
        }
        let time = timing.latest
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
            out.updates.append(.event(FenceEvent(fenceID: id, kind: kind, time: timing.time, cause: basis.cause,
                                                 sequence: record.sequence, userData: fence.userData,
                                                 earliest: timing.earliest, latest: timing.latest,
                                                 deliveredAt: now, timing: timing.timing)))
        }
        stored.records[id] = record
        updateTimer(handle)
        out.updates.append(.presence(fenceID: id, new))
        changed()
    }

    /// The timing of a transition of fence `handle` from `old` (see ``FenceEvent``, "Timing"): its
    /// bounds, the estimate and the marker. Must run before the fence's presence changes.
    ///
    /// A state found for an undecided fence has no crossing to bound: its time is the deciding
    /// position's or OS answer's.
    func eventTiming(_ handle: FenceIndex.Handle, old: FencePresence,
                     basis: Basis) -> (time: Date, earliest: Date?, latest: Date, timing: FenceEvent.Timing) {
        let latest: Date
        switch basis {
        case .position(let fix, _): latest = fix.timestamp
        case .os(_, let receivedAt), .osInferred(_, let receivedAt): latest = receivedAt
        }
        guard old != .unknown else {
            if case .position = basis {
                return (latest, nil, latest, now.timeIntervalSince(latest) <= configuration.liveGap ? .live : .caughtUp)
            }
            return (latest, nil, latest, .osDelayed)
        }
        let earliest = oldSideBound(handle).map { min($0, latest) }
        switch basis {
        case .position(let fix, let live):
            if live { return (latest, earliest, latest, .live) }
            // Moving (a GNSS speed of 0.5 m/s or more; slower is mostly noise): the time it took from
            // the boundary to where the fix is. Else the middle of the bounds: it may have crossed any
            // time in the gap.
            if let speed = fix.speed, speed >= 0.5, let shape = geometry[Int(handle)] {
                let past = abs(shape.signedDistance(to: fix.coordinate,
                                                    centerDistance: LocalApproximation.distance(shape.center, fix.coordinate)))
                let projected = latest.addingTimeInterval(-past / speed)
                return (max(projected, earliest ?? projected), earliest, latest, .caughtUp)
            }
            let time = earliest.map { $0.addingTimeInterval(latest.timeIntervalSince($0) / 2) } ?? latest
            return (time, earliest, latest, .caughtUp)
        case .os:
            let estimate = latest.addingTimeInterval(-configuration.regionDelayEstimate)
            return (max(estimate, earliest ?? estimate), earliest, latest, .osDelayed)
        case .osInferred:
            // Before iOS's own crossing (estimated as for `.os`). A position on the old side after
            // that estimate conflicts with it: the pair then most likely happened before it (iOS
            // reports minutes late), so it bounds nothing.
            let reported = latest.addingTimeInterval(-configuration.regionDelayEstimate)
            guard let earliest, earliest <= reported else {
                return (reported.addingTimeInterval(-configuration.regionDelayEstimate), nil, latest, .osDelayed)
            }
            return (earliest.addingTimeInterval(reported.timeIntervalSince(earliest) / 2), earliest, latest, .osDelayed)
        }
    }

    /// The crossings iOS has not echoed yet, with `time` added: those within the echo window of
    /// it, at most 16.
    func unechoed(_ list: [Date]?, adding time: Date) -> [Date] {
        let kept = (list ?? []).filter { time.timeIntervalSince($0) <= configuration.echoWindow }
        return Array((kept + [time]).suffix(16))
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

    /// Delivers held-back entries whose debounce window ended inside, then due dwells. Each event's
    /// time is the moment its delay ran out; it is live when handled within ``Configuration/liveGap``.
    mutating func runTimers(at time: Date, cause: FenceEvent.Cause, into out: inout Output) {
        guard let first = timers.values.min(), first <= time else { return }
        for (handle, due) in timers.filter({ $0.value <= time }).sorted(by: { $0.key < $1.key }) {
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
                let timing: FenceEvent.Timing = now.timeIntervalSince(due) <= configuration.liveGap ? .live : .caughtUp
                out.updates.append(.event(FenceEvent(fenceID: id, kind: kind, time: due, cause: cause,
                                                     sequence: record.sequence, userData: fence.userData,
                                                     earliest: due, latest: due, deliveredAt: now, timing: timing)))
            }
            stored.records[id] = record
            updateTimer(handle)
            changed()
        }
    }
}

extension GeofenceMonitor.Basis {
    /// The event cause of this basis.
    var cause: FenceEvent.Cause {
        switch self {
        case .position(let fix, _): .fix(fix)
        case .os(let cause, _), .osInferred(let cause, _): cause
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
