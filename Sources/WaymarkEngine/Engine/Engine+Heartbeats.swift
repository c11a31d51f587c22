import Foundation

/// The heartbeat's wakes, as the engine handled them: see ``Heartbeat`` for what iOS promises (little).
///
/// A beat is the app's moment to do its own background work (upload what is queued, refresh fences)
/// while iOS runs it; the engine completes the task itself when the beat's fix is in or its time is up,
/// so keep that work short, or hand it to a background `URLSession` (WaymarkTransport's hand-off transport).
///
/// ```swift
/// Task {
///     for await update in await engine.heartbeats.updates.subscribe() {
///         if case .beat(let beat) = update { await driver.uploadNow(); print(beat.fix as Any) }
///     }
/// }
/// ```
public struct EngineHeartbeats: Sendable {
    let engine: Engine

    /// Every wake, beat and refusal, in order; without replay (subscribe before ``Engine/run()``).
    public var updates: ReplaySequence<Heartbeat.Update> { engine.heartbeatUpdates.values }
}
