import Foundation
import WaymarkGeo

extension RideTracker {
    /// Starts a new ride now (the rider tapped start); does nothing while a ride is active.
    ///
    /// `rideID` is the app's identifier for the ride (the tracker makes no random numbers). With
    /// automatic tracking on, the tap wins: the ride starts now, whatever the tracker was still
    /// watching for.
    public mutating func start(rideID: RideID, at now: Date) -> Output {
        guard !state.isActive else { return output() }
        var commands = leaveStill()
        snapshot = RideSnapshot(rideID: rideID, state: .moving, startedAt: now)
        resetMotionState(at: now)
        phase = .recording
        if configuration.usesMotion { commands.append(.startMotionActivityUpdates) }
        return output(commands, [.state(.moving), .checkpoint(snapshot!)])
    }

    /// Pauses the ride (the rider tapped pause): nothing is recorded until ``resume(at:)``.
    public mutating func pause(at now: Date) -> Output {
        guard state == .moving || state == .autoPaused else { return output() }
        let commands = removeWakeFence()
        return output(commands, set(.userPaused))
    }

    /// Resumes a paused ride (the rider tapped resume).
    public mutating func resume(at now: Date) -> Output {
        guard state == .userPaused || state == .autoPaused else { return output() }
        let commands = removeWakeFence()
        resetMotionState(at: now)
        phase = .recording
        return output(commands, set(.moving))
    }

    /// Ends the ride (the rider tapped stop): location is released and the wake fence removed.
    ///
    /// With automatic tracking on, the tracker is still again, but starts no ride until the
    /// device has rested (a stationary motion activity or a visit arrival, in this process), so a
    /// rider who stops recording and rides on gets no new ride.
    public mutating func stop(at now: Date) -> Output {
        guard state.isActive else { return output() }
        var commands = removeWakeFence()
        if configuration.usesMotion, !configuration.automatic.enabled { commands.append(.stopMotionActivityUpdates) }
        pendingGap = nil
        pendingDeparture = nil
        let updates = set(.ended)
        if configuration.automatic.enabled {
            commands += enterStill(at: now, place: nil, armed: false)
        }
        return output(commands, updates)
    }

    /// Handles one device event.
    public mutating func handle(_ event: DeviceEvent, at now: Date) -> Output {
        if still != nil, !event.isLaunch { return stillEvent(event, at: now) }
        switch event {
        case .launched(let reason):
            return relaunch(reason: reason, at: now)
        case .locations(let fixes):
            var updates: [RideUpdate] = []
            var commands: [DeviceCommand] = []
            for fix in fixes { consume(fix, at: now, commands: &commands, updates: &updates) }
            return output(commands, updates)
        case .locationError(.locationUnknown):
            if state == .moving { signalLost = true }
            return output()
        case .locationUpdatesPaused:
            guard state == .moving || state == .autoPaused else { return output() }
            var updates: [RideUpdate] = []
            var commands: [DeviceCommand] = []
            enterStop(at: now, anchor: snapshot?.lastRecorded?.coordinate, commands: &commands, updates: &updates)
            phase = .sleeping
            return output(commands, updates)
        case .significantChange(let fix):
            return significantChange(fix, at: now)
        case .regionExited(let identifier) where identifier == Self.wakeFenceIdentifier:
            guard state == .autoPaused else { return output() }
            return wake(at: now)
        case .motionActivity(let motion):
            return motionChanged(motion, at: now)
        default:
            return output()
        }
    }

    /// A new process: resumes an active ride from the restored snapshot.
    mutating func relaunch(reason: LaunchReason, at now: Date) -> Output {
        guard let snap = snapshot, snap.state.isActive else {
            guard configuration.automatic.enabled else { return output() }
            return output(resumeStill(at: now))
        }
        var commands: [DeviceCommand] = []
        if configuration.usesMotion, snap.state != .userPaused { commands.append(.startMotionActivityUpdates) }
        resetMotionState(at: now)
        switch snap.state {
        case .moving:
            phase = .recording
            pendingGap = (snap.lastRecorded?.timestamp ?? snap.startedAt,
                          reason == .user ? .notRunningUntilOpened : .terminated)
        case .autoPaused:
            // The app was not running for part of the stop, and the rider may have ridden off in
            // that time: the span up to the next recorded fix is a gap as well. Opened by the user,
            // or relaunched during the hold or the watch, GNSS checks at once (a region exit
            // arrives next and resumes at once). Relaunched in the background after the watch, as
            // iOS does for a significant change's idle wake every 15 minutes of a long park, the
            // event that caused the launch decides (a fence exit, a significant change away from
            // the stop, motion): a launch is no sign of movement by itself.
            let watching = watchEnd(at: now).map { now < $0 } ?? true
            phase = reason == .user || watching ? .holding(until: now.addingTimeInterval(configuration.verifySeconds)) : .sleeping
            pendingGap = (snap.lastRecorded?.timestamp ?? snap.startedAt,
                          reason == .user ? .notRunningUntilOpened : .terminated)
        default:
            break
        }
        return output(commands, [.state(snap.state), .checkpoint(snap)])
    }

    /// Forgets filter and motion history, e.g. when GNSS starts again after a long rest.
    mutating func resetMotionState(at now: Date) {
        pipeline = Self.makePipeline(configuration)
        freshSince = now
        stops.reset()
        dutyCycle.reset()
        signalLost = false
        lastFilteredAt = nil
    }

    /// Sets the state and returns the updates announcing it.
    mutating func set(_ new: RideState) -> [RideUpdate] {
        guard var snap = snapshot, snap.state != new else { return [] }
        snap.state = new
        if new == .moving || new == .ended || new == .userPaused {
            snap.stopAnchor = nil
            snap.stoppedAt = nil
        }
        snapshot = snap
        return [.state(new), .checkpoint(snap)]
    }
}
