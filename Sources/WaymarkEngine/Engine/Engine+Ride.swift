import Foundation
import WaymarkGeo

extension Engine {
    /// Performs a rider's tap at the device's time.
    func rideCommand(_ command: RideCommand) async {
        if case .start = command {
            // A ride records with the screen off, and may query motion for its accuracy policy.
            await noteUse(AppCapabilities(backgroundLocation: true, motion: core.configuration.ride.usesMotion))
        }
        let now = await appCallTime()
        fieldLog.record(notes.appRide(command, at: now))
        await apply(core.rideCommand(command, at: now), at: now)
    }
}

/// What a ride hands to the store, in order: recorded fixes, gap markers, and the checkpoint to
/// keep for a relaunch.
///
/// A `Sendable` value type.
public enum RideEntry: Hashable, Sendable {
    /// A fix accepted into the ride.
    case fix(Fix)
    /// A span that could not be recorded.
    case gap(GapMarker)
    /// The ride's persistent state; store it to resume after a termination.
    case checkpoint(RideSnapshot)
}

/// The ride part of an ``Engine``: the rider's controls, the ride state and statistics with
/// replay, and the records to store.
///
/// ```swift
/// Task { for await record in engine.ride.recorded { try store.save(record) } }
/// await engine.ride.start(rideID: UUID().uuidString)
/// for await stats in engine.ride.statistics { label.text = "\(Int(stats.distanceMeters)) m" }
/// ```
///
/// A `Sendable` handle; use it from any task.
public struct EngineRide: Sendable {
    let engine: Engine

    /// Starts a new ride (ignored while a ride is active); `rideID` is the app's identifier for it.
    public func start(rideID: RideID) async { await engine.rideCommand(.start(rideID: rideID)) }

    /// Pauses the ride: nothing is recorded until ``resume()``.
    public func pause() async { await engine.rideCommand(.pause) }

    /// Resumes a paused ride.
    public func resume() async { await engine.rideCommand(.resume) }

    /// Ends the ride: location is released and the wake fence removed.
    public func stop() async { await engine.rideCommand(.stop) }

    /// The ride states with replay (the current state first).
    public var states: ReplaySequence<RideState> { engine.rideStates.values }

    /// Where automatic tracking stands, with replay (the current state first): `.off` unless
    /// ``RideTracker/Configuration/automatic`` is enabled, then `.still` (GNSS off, watching for
    /// movement), `.checking` (GNSS confirming a hint of movement) and `.riding`. A status line
    /// ("Waiting for you to ride", "Recording") reads it; ``states`` says how the ride itself stands.
    public var automatic: ReplaySequence<AutomaticTracking.State> { engine.automaticStates.values }

    /// The live statistics with replay (distance in metres, moving time in seconds, speeds in m/s).
    public var statistics: ReplaySequence<RideStatistics> { engine.rideStatistics.values }

    /// Recorded fixes, gap markers and checkpoints from now on, in order, without replay:
    /// subscribe before ``Engine/run()`` so that the store sees every one (``ReplaySequence/subscribe()``
    /// subscribes at once).
    public var recorded: ReplaySequence<RideEntry> { engine.rideRecords.values }
}
