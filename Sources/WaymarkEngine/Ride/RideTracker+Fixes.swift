import Foundation
import WaymarkGeo

extension RideTracker {
    /// Filters one delivered fix and acts on it: record, detect a stop or a restart, duty-cycle.
    mutating func consume(_ fix: Fix, at now: Date, commands: inout [DeviceCommand], updates: inout [RideUpdate]) {
        guard state == .moving || state == .autoPaused else { return }
        switch phase {
        case .coasting, .sleeping:
            return                                          // cell-level fixes while GNSS rests
        case .watching:
            watchFix(fix, at: now)
            return
        case .recording, .holding:
            break
        }
        if let fresh = freshSince {
            var stale = StaleFixFilter(maximumAge: configuration.maximumFixAge, referenceTime: fresh)
            guard stale.process(fix) != nil else { return }
            // GNSS was just asked for again: until the receiver's own fixes (with a Doppler speed)
            // arrive, the Wi-Fi positions iOS hands out meanwhile are not part of the track.
            if fix.speed == nil, snapshot?.lastRecorded != nil,
               fix.timestamp.timeIntervalSince(fresh) < configuration.restartWaitSeconds {
                return
            }
        }
        if let last = lastFilteredAt, fix.timestamp.timeIntervalSince(last) > configuration.gapThresholdSeconds {
            pipeline = Self.makePipeline(configuration)     // a long pause: start the filter afresh
        }
        if state == .moving, dutyCycle.isCoasting, fix.horizontalAccuracy.map({ $0 <= configuration.maximumAccuracyMeters }) == true,
           !dutyCycle.checkPrediction(against: fix, cycle: configuration.dutyCycle) {
            pipeline = Self.makePipeline(configuration)     // turned while GNSS rested: follow the fix, not the old velocity
        }
        guard var filtered = pipeline.process(fix) else { return }
        if filtered.impliesImpossibleSpeed {
            recordFlagged(filtered, updates: &updates)
            return
        }
        // The receiver's Doppler speed and course are better than ones derived from positions.
        if let measured = fix.speed, measured >= 0 { filtered.speed = measured }
        if let measured = fix.course, measured >= 0 { filtered.course = measured }
        lastFilteredAt = filtered.timestamp
        lastSpeed = filtered.speed
        if state == .moving {
            trackMoving(filtered, at: now, commands: &commands, updates: &updates)
        } else {
            trackStopped(filtered, at: now, commands: &commands, updates: &updates)
        }
    }

    /// While moving: record, and auto-pause once the rider stopped (``StopDetector``).
    mutating func trackMoving(_ fix: Fix, at now: Date, commands: inout [DeviceCommand], updates: inout [RideUpdate]) {
        switch stops.moving(fix, lastRecorded: snapshot?.lastRecorded?.coordinate, configuration: configuration) {
        case .stopped:
            enterStop(at: now, anchor: fix.coordinate, commands: &commands, updates: &updates)
        case .creeping:
            return                                  // record only real displacement, not the receiver's wander
        case .moving:
            record(fix, updates: &updates)
            considerDutyCycle(after: fix, at: now)
        }
    }

    /// While auto-paused with GNSS: resume when the rider is clearly away from the stop (``StopDetector``).
    mutating func trackStopped(_ fix: Fix, at now: Date, commands: inout [DeviceCommand], updates: inout [RideUpdate]) {
        guard stops.movesAgain(fix, anchor: snapshot?.stopAnchor, configuration: configuration) else {
            if snapshot?.stopAnchor == nil { snapshot?.stopAnchor = fix.coordinate }
            return
        }
        leaveStop(at: now, commands: &commands, updates: &updates)
        record(fix, updates: &updates)              // the stop's time (up to this fix) is not moving time
    }

    /// A coarse fix during the watch: clearly away from the stop means check with GNSS.
    mutating func watchFix(_ fix: Fix, at now: Date) {
        if showsMovement(fix) { _ = hintOfMovement(at: now) }
    }

    /// Adds a fix to the ride: gap marker if one is due, statistics, checkpoint.
    mutating func record(_ fix: Fix, updates: inout [RideUpdate]) {
        guard var snap = snapshot else { return }
        if let start = pendingDeparture {
            pendingDeparture = nil
            if fix.timestamp.timeIntervalSince(start) > configuration.gapThresholdSeconds {
                updates.append(.gap(GapMarker(start: start, end: fix.timestamp, reason: .departureNotRecorded)))
            }
        }
        if let gap = pendingGap {
            updates.append(.gap(GapMarker(start: gap.start, end: fix.timestamp, reason: gap.reason)))
            pendingGap = nil
        } else if signalLost, let last = snap.lastRecorded,
                  fix.timestamp.timeIntervalSince(last.timestamp) > configuration.gapThresholdSeconds {
            updates.append(.gap(GapMarker(start: last.timestamp, end: fix.timestamp, reason: .signalLost)))
        }
        signalLost = false
        if let last = snap.lastRecorded {
            snap.statistics.distanceMeters += LocalApproximation.segmentDistance(last.coordinate, fix.coordinate)
            if countsMovingTime { snap.statistics.movingSeconds += max(0, fix.timestamp.timeIntervalSince(last.timestamp)) }
        }
        countsMovingTime = true
        snap.statistics.currentSpeed = fix.speed
        snap.lastRecorded = fix
        snapshot = snap
        updates += [.recorded(fix), .statistics(snap.statistics), .checkpoint(snap)]
    }

    /// Keeps a fix that implies an impossible speed (``SpeedOutlierFilter`` in its flag mode) as a
    /// recorded point carrying `Fix.impliesImpossibleSpeed`: stored and uploaded like any other, but
    /// not part of the ride. It adds no distance or moving time, does not become the last recorded fix
    /// (the reference for the next one), never starts or ends a stop, and closes no gap marker; the
    /// Kalman filter passed it through without folding it into its state.
    mutating func recordFlagged(_ fix: Fix, updates: inout [RideUpdate]) {
        guard snapshot != nil else { return }
        updates.append(.recorded(fix))
    }
}
