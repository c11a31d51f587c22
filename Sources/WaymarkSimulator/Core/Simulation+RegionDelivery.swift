import Foundation
import WaymarkEngine
import WaymarkGeo

/// How a committed region crossing reaches the app (PLATFORM.md §5, issue #14).
///
/// **Latency and misses.** iOS reports a crossing "within 3 to 5 minutes on average" (Apple,
/// `startMonitoring(for:)` [S26]), with a long tail — 30 min to 3 h late after a termination, exits
/// only kilometres out — and occasionally never [S28]. Each committed crossing is missed with
/// ``PlatformConstants/regionMissProbability`` (the system state still changes: a state request
/// tells the truth, the event never comes). Otherwise its latency is drawn: with
/// ``PlatformConstants/regionLatencyTailProbability`` (while the app is not running,
/// ``PlatformConstants/regionLatencyTailProbabilityAfterTermination``) uniformly from the tail range,
/// else log-normally with mean ``PlatformConstants/regionLatencyMeanSeconds``. A non-negative
/// ``PlatformConstants/regionLatencySeconds`` replaces the draw with a fixed value. Events of one
/// region arrive in the order of their crossings.
///
/// **Holding.** Region monitoring "requires network connectivity" [S26]: an event that comes due
/// while the device is offline waits for the network and arrives late, not lost (like iOS's
/// non-fatal `regionMonitoringResponseDelayed` [S46]). With
/// ``PlatformConstants/regionEnterHeldAfterPushLaunch`` (default true), an entry that comes due while
/// the process was launched or woken by a silent push and has not been in the foreground since is
/// held until the app is next in the foreground (Apple forums 812111 [S43]); later events of the
/// region queue behind it. While region monitoring is unavailable (reduced accuracy [S9]) events
/// that come due are dropped.
///
/// **Delivery.** Through ``deliverSystemLocationEvent(_:reason:)``: at once to a running app, waking
/// a suspended one or relaunching a terminated (or force-quit, per
/// ``PlatformConstants/relaunchAfterForceQuit``) one with the ``LaunchReason/location`` reason [S17][S25].
/// Each enter or exit is followed by `didDetermineState` with the new state ("in addition to"
/// enter/exit, on every boundary transition [S29]); the engine takes a state only for an undecided
/// fence, so the pair never decides a fence twice.
extension Simulation {
    /// Draws whether iOS never reports a crossing, and otherwise schedules its event after a drawn
    /// latency, no earlier than the region's previous event.
    mutating func commitRegionCrossing(_ identifier: String, enter: Bool) {
        let side = enter ? "inside" : "outside"
        if constants.regionMissProbability > 0, rng.chance(constants.regionMissProbability) {
            stats.regionEventsMissed += 1
            note("region \(identifier) crossing committed (\(side)); iOS never reports it")
            return
        }
        let latency = drawRegionLatency(appNotRunning: process.state == .notRunning)
        guard let (due, serial) = regions.scheduleEvent(identifier, due: now + latency) else { return }
        note("region \(identifier) crossing committed (\(side)); event due in \(Int((due - now).rounded())) s")
        queue.schedule(.regionEvent(identifier: identifier, enter: enter, serial: serial), at: due)
    }

    /// A region event's latency: the fixed override, or a draw from the tail or the log-normal body.
    mutating func drawRegionLatency(appNotRunning: Bool) -> Double {
        if constants.regionLatencySeconds >= 0 { return constants.regionLatencySeconds }
        let tail = appNotRunning ? constants.regionLatencyTailProbabilityAfterTermination : constants.regionLatencyTailProbability
        if tail > 0, rng.chance(tail) {
            return rng.uniform(constants.regionLatencyTailMinSeconds, constants.regionLatencyTailMaxSeconds)
        }
        let sigma = max(0, constants.regionLatencyLogSigma)
        let mu = Foundation.log(max(constants.regionLatencyMeanSeconds, 1e-9)) - sigma * sigma / 2
        return Foundation.exp(mu + sigma * rng.normal())
    }

    /// A region event comes due: dropped if the region was stopped or replaced since, or while region
    /// monitoring is unavailable; otherwise queued behind the region's held events and delivered if
    /// it may go now.
    mutating func fireRegionEvent(_ identifier: String, enter: Bool, serial: Int) {
        guard regions.monitor(identifier)?.serial == serial else { return }
        if regionMonitoringUnavailable {
            stats.regionEventsDroppedUnavailable += 1
            note("region \(identifier) event dropped: region monitoring unavailable (\(regionMonitoringUnavailableReason ?? ""))")
            return
        }
        let holdForPush = enter && constants.regionEnterHeldAfterPushLaunch && inPushLaunchedProcess
        _ = regions.hold(HeldRegionEvent(enter: enter, untilForeground: holdForPush), identifier: identifier, serial: serial)
        flushHeldRegionEvents(identifier)
        if regions.firstHeld(identifier) != nil {
            stats.regionEventsHeld += 1
            let why = holdForPush ? "an entry after a push launch, held until the app is in the foreground"
                : isOnline(at: now) ? "queued behind an earlier held event" : "offline, held until the network returns"
            note("region \(identifier) \(enter ? "entry" : "exit") held: \(why)")
        }
    }

    /// Delivers the held events of every region that may go now.
    mutating func flushHeldRegionEvents() {
        for identifier in regions.identifiersWithHeldEvents { flushHeldRegionEvents(identifier) }
    }

    /// Delivers the held events of one region, oldest first, until one must wait: for the network, or
    /// (an entry after a push launch) for the app to be in the foreground. Dropped while region
    /// monitoring is unavailable.
    mutating func flushHeldRegionEvents(_ identifier: String) {
        if regionMonitoringUnavailable {
            let dropped = regions.dropHeld(identifier)
            stats.regionEventsDroppedUnavailable += dropped
            if dropped > 0 { note("region \(identifier) held events dropped: region monitoring unavailable") }
            return
        }
        while let first = regions.firstHeld(identifier) {
            guard isOnline(at: now) else { return }
            if first.untilForeground && process.state != .foreground { return }
            regions.removeFirstHeld(identifier)
            deliverRegionEvent(identifier, enter: first.enter)
        }
    }

    /// Delivers an enter or exit through the system-event path, then `didDetermineState` with the new
    /// state if the app runs to hear it (and behind the event if that waits for the user's
    /// provisional-Always confirmation).
    mutating func deliverRegionEvent(_ identifier: String, enter: Bool) {
        if regions.monitor(identifier)?.isCondition == true {
            // A CLMonitor condition: one event carrying the new state.
            deliverSystemLocationEvent(.monitorEvent(identifier: identifier, state: enter ? .satisfied : .unsatisfied),
                                       reason: .location)
            return
        }
        let event: DeviceEvent = enter ? .regionEntered(identifier: identifier) : .regionExited(identifier: identifier)
        let state = DeviceEvent.regionState(identifier: identifier, state: enter ? .inside : .outside)
        deliverSystemLocationEvent(event, reason: .location)
        guard process.isRunning else { return }
        if permissions.confirmingProvisionalAlways, permissions.heldForAlwaysConfirmation.last == event {
            permissions.holdForConfirmation(state)
        } else {
            emit(state)
        }
    }

    /// Whether this process was launched or woken by a silent push and has not been in the
    /// foreground since: its push window is open now, or ``trackPushLaunch()`` saw it.
    var inPushLaunchedProcess: Bool {
        process.pushLaunchedNotForeground || inPushWindow
    }

    /// A push launch or wake-up window is open: a background window that is not a location one.
    var inPushWindow: Bool {
        process.state == .background && process.locationWakeUntil == nil && (process.wakeUntil.map { now < $0 } ?? false)
    }

    /// Remembers, every tick, whether the process is a push-launched one that has not been in the
    /// foreground (the window lasts ``PlatformConstants/remoteNotificationSeconds``, far longer than
    /// a tick); the foreground clears it.
    mutating func trackPushLaunch() {
        process.trackPushLaunch(inPushWindow: inPushWindow)
    }
}
