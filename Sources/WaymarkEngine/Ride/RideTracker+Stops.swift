import Foundation
import WaymarkGeo

extension RideTracker {
    /// Handles a timer: the end of a duty-cycle spell, of the hold at a stop, of a check, of the watch.
    public mutating func deadlineReached(at now: Date) -> Output {
        guard let due = nextDeadline, now >= due else { return output() }
        var commands: [DeviceCommand] = []
        switch phase {
        case .coasting:
            phase = .recording
            freshSince = now
        case .holding:
            guard configuration.policy.watch != nil else { phase = .holding(until: nil); break }
            phase = .watching(until: configuration.watchSeconds.map { now.addingTimeInterval($0) })
            commands += addWakeFence()
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
        if let snap = snapshot { updates.append(.checkpoint(snap)) }
        phase = .holding(until: now.addingTimeInterval(configuration.holdSeconds))
        slowStart = nil
        resumeStreak = 0
        farStreak = 0
        recent = []
        confirmedVelocity = nil
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

    /// Motion or a significant change during the watch: GNSS checks whether the rider left.
    mutating func hintOfMovement(at now: Date, near fix: Fix?) -> Output {
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
            return hintOfMovement(at: now, near: nil)
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
                                                 radiusMeters: configuration.wakeFenceRadiusMeters))]
    }

    /// Removes the wake fence if registered.
    mutating func removeWakeFence() -> [DeviceCommand] {
        guard snapshot?.wakeFenceActive == true else { return [] }
        snapshot?.wakeFenceActive = false
        return [.stopMonitoring(identifier: Self.wakeFenceIdentifier)]
    }
}
