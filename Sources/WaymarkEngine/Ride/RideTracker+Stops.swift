import Foundation
import WaymarkGeo

extension RideTracker {
    /// Handles a timer: the end of a duty-cycle spell, of the hold at a stop, of a check, of the watch.
    public mutating func deadlineReached(at now: Date) -> Output {
        if still != nil { return stillDeadlineReached(at: now) }
        if let end = stopTimeoutDeadline, now >= end { return endAutomatically(at: now) }
        if let end = windowEndDeadline, now >= end { return endAutomatically(at: now) }
        guard let due = phaseDeadline, now >= due else { return output() }
        var commands: [DeviceCommand] = []
        switch phase {
        case .coasting:
            phase = .recording
            freshSince = now
        case .holding:
            guard configuration.policy.watch != nil else { phase = .holding(until: nil); break }
            phase = restingPhase(at: now)
            commands += addWakeFence()              // if the stop began without an anchor
        case .watching:
            phase = .sleeping
        case .recording, .sleeping:
            break
        }
        return output(commands)
    }

    /// The rider stopped: auto-pause and keep GNSS on for the hold.
    mutating func enterStop(at now: Date, anchor: Coordinate?, commands: inout [DeviceCommand], updates: inout [RideUpdate]) {
        guard state == .moving else { return }
        updates += set(.autoPaused)
        let last = snapshot?.lastRecorded?.coordinate
        snapshot?.stopAnchor = anchor ?? last
        snapshot?.stoppedAt = now
        // The wake fence goes up at once, not after the hold: if iOS terminates the app at the
        // stop, its exit relaunches the app (as a significant change would, often later).
        if configuration.policy.watch != nil { commands += addWakeFence() }
        if let snap = snapshot { updates.append(.checkpoint(snap)) }
        phase = .holding(until: now.addingTimeInterval(configuration.holdSeconds))
        stops.reset()
        dutyCycle.forgetStretch()
        countsMovingTime = false
    }

    /// The rider moves again: record, remove the wake fence.
    mutating func leaveStop(at now: Date, commands: inout [DeviceCommand], updates: inout [RideUpdate]) {
        guard state == .autoPaused else { return }
        commands += removeWakeFence()
        let wasResting: Bool = switch phase {
        case .watching, .sleeping: true
        default: false
        }
        if wasResting { resetMotionState(at: now) }
        phase = .recording
        updates += set(.moving)
    }

    /// Leaving the wake fence: resume at once (GNSS starts; the first fix is recorded).
    mutating func wake(at now: Date) -> Output {
        var commands: [DeviceCommand] = []
        var updates: [RideUpdate] = []
        leaveStop(at: now, commands: &commands, updates: &updates)
        return output(commands, updates)
    }

    /// When the watch of the current stop ends: ``Configuration/holdSeconds`` plus
    /// ``Configuration/watchSeconds`` after the ride auto-paused; nil while the watch lasts the
    /// whole stop.
    func watchEnd(at now: Date) -> Date? {
        guard let seconds = configuration.watchSeconds else { return nil }
        return (snapshot?.stoppedAt ?? now).addingTimeInterval(configuration.holdSeconds + seconds)
    }

    /// Where a stop rests after the hold or a check: the watch until its end (timed from the stop,
    /// so checks never prolong it), then only significant changes and the wake fence.
    func restingPhase(at now: Date) -> Phase {
        guard let end = watchEnd(at: now) else { return .watching(until: nil) }
        return now < end ? .watching(until: end) : .sleeping
    }

    /// Motion, a significant change or a watch fix that shows movement during the watch or after
    /// it: GNSS checks for ``Configuration/verifySeconds`` whether the rider left.
    mutating func hintOfMovement(at now: Date) -> Output {
        guard state == .autoPaused else { return output() }
        switch phase {
        case .watching, .sleeping:
            resetMotionState(at: now)
            phase = .holding(until: now.addingTimeInterval(configuration.verifySeconds))
        default:
            break
        }
        return output()
    }

    /// A significant-change fix while auto-paused: a hint of movement only if it lies clearly away
    /// from the stop.
    ///
    /// iOS delivers significant changes for three reasons that look alike (PLATFORM.md §4): a cell
    /// change (movement), the idle wake at least every 15 minutes without movement, and the cached
    /// location when the service starts. Only a fix measured after the stop began and farther from
    /// the stop than twice its accuracy plus the wake fence's radius shows that the rider left; an
    /// idle wake or a cached fix near the stop does not turn GNSS on, so a parked app costs little
    /// and iOS may suspend it.
    mutating func significantChange(_ fix: Fix, at now: Date) -> Output {
        guard state == .autoPaused, showsMovement(fix) else { return output() }
        return hintOfMovement(at: now)
    }

    /// Whether a coarse fix lies clearly away from the stop (see ``significantChange(_:at:)``).
    func showsMovement(_ fix: Fix) -> Bool {
        guard let anchor = snapshot?.stopAnchor, let accuracy = fix.horizontalAccuracy, accuracy >= 0 else { return false }
        if let stopped = snapshot?.stoppedAt, fix.timestamp < stopped { return false }
        return LocalApproximation.segmentDistance(anchor, fix.coordinate) > 2 * accuracy + configuration.effectiveWakeRadiusMeters
    }

    /// A new motion classification: stationary auto-pauses, movement during the watch wakes GNSS.
    mutating func motionChanged(_ motion: MotionActivity, at now: Date) -> Output {
        guard configuration.usesMotion else { return output() }
        activity = motion
        var commands: [DeviceCommand] = []
        var updates: [RideUpdate] = []
        switch (state, motion.kind) {
        case (.moving, .stationary) where motion.confidence >= .medium:
            enterStop(at: now, anchor: snapshot?.lastRecorded?.coordinate, commands: &commands, updates: &updates)
        case (.autoPaused, .walking), (.autoPaused, .running), (.autoPaused, .cycling), (.autoPaused, .automotive):
            return hintOfMovement(at: now)
        default:
            break
        }
        return output(commands, updates)
    }

    /// Registers the wake fence around the stop (one OS region slot).
    mutating func addWakeFence() -> [DeviceCommand] {
        guard let anchor = snapshot?.stopAnchor, snapshot?.wakeFenceActive == false else { return [] }
        snapshot?.wakeFenceActive = true
        return [.startMonitoring(MonitoredRegion(identifier: Self.wakeFenceIdentifier, center: anchor,
                                                 radiusMeters: configuration.effectiveWakeRadiusMeters))]
    }

    /// Removes the wake fence if registered.
    mutating func removeWakeFence() -> [DeviceCommand] {
        guard snapshot?.wakeFenceActive == true else { return [] }
        snapshot?.wakeFenceActive = false
        return [.stopMonitoring(identifier: Self.wakeFenceIdentifier)]
    }
}
