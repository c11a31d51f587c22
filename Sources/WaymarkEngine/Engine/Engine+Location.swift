import Foundation
import WaymarkGeo

extension Engine {
    /// The location part of an ``Engine``: one fix on demand, and fixes outside a ride.
    public nonisolated var location: EngineLocation { EngineLocation(engine: self) }

    func currentLocation(accuracy: DesiredAccuracy, maximumAge: TimeInterval, timeout: TimeInterval) async
        -> Result<Fix, LocationRequestError> {
        guard !stopped else { return .failure(LocationRequestError(.stopped, "the engine was stopped")) }
        let id = nextLocationID
        nextLocationID += 1
        let now = await appCallTime()
        fieldLog.record(notes.appCall("location request \(id): \(accuracy), at most \(Int(maximumAge)) s old, \(Int(timeout)) s timeout",
                                      category: .location, level: .debug, at: now))
        await apply(core.requestLocation(id: id, accuracy: accuracy, maximumAge: maximumAge, timeout: timeout, at: now), at: now)
        if let answer = locationAnswers.removeValue(forKey: id) { return answer }
        guard !stopped else { return .failure(LocationRequestError(.stopped, "the engine stopped before a fix came")) }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Result<Fix, LocationRequestError>, Never>) in
                if let answer = locationAnswers.removeValue(forKey: id) {
                    waiter.resume(returning: answer)
                } else {
                    locationWaiters[id] = waiter
                }
            }
        } onCancel: {
            Task { await self.cancelLocation(id: id) }
        }
    }

    func cancelLocation(id: Int) async {
        guard !stopped else { return }
        let now = await appCallTime()
        await apply(core.cancelLocationRequest(id: id, at: now), at: now)
    }

    func openLocationStream(_ continuation: AsyncStream<Fix>.Continuation, accuracy: DesiredAccuracy,
                            distanceFilterMeters: Double?) async {
        guard !stopped else { return continuation.finish() }
        let id = nextLocationID
        nextLocationID += 1
        locationStreams[id] = continuation
        continuation.onTermination = { _ in Task { await self.closeLocationStream(id: id) } }
        let now = await appCallTime()
        await apply(core.locationStream(id: id, open: true, accuracy: accuracy, distanceFilterMeters: distanceFilterMeters,
                                        at: now), at: now)
    }

    func closeLocationStream(id: Int) async {
        guard locationStreams.removeValue(forKey: id) != nil, !stopped else { return }
        let now = await appCallTime()
        await apply(core.locationStream(id: id, open: false, at: now), at: now)
    }
}

/// The on-demand location part of an ``Engine`` (issue #32): the current location in one call, and
/// a stream of fixes outside a ride, both on the engine's one location session.
///
/// ```swift
/// let fix = try await engine.location.current(accuracy: .hundredMeters, maximumAge: 60, timeout: 10)
/// for await fix in engine.location.updates(accuracy: .nearestTenMeters, distanceFilterMeters: 50) { show(fix) }
/// ```
///
/// Neither creates a location manager or raises a prompt: they add a demand that the engine merges
/// with the launch fix's, the geofences' and the ride's (``LocationRequests``), so a request during a
/// ride costs nothing more. Authorization is asked for with ``EnginePermissions/request(_:)`` first.
/// A `Sendable` handle; use it from any task.
public struct EngineLocation: Sendable {
    let engine: Engine

    /// One fix: the latest the engine has when it is at most `maximumAge` seconds old and accurate
    /// enough for `accuracy` (``LocationRequests/acceptableMeters(for:)``); else the first such fix
    /// from the location service; at `timeout`, the most accurate fresh fix seen meanwhile.
    ///
    /// Cancelling the calling task ends the request (and its share of the demand).
    /// - throws: ``LocationRequestError``: `notAuthorized` at once when location is not authorized
    ///   (not yet asked, denied, restricted); `timedOut` when no fix came; `cancelled`; `stopped`.
    public func current(accuracy: DesiredAccuracy = .best, maximumAge: TimeInterval = 0,
                        timeout: TimeInterval = 15) async throws(LocationRequestError) -> Fix {
        try await engine.currentLocation(accuracy: accuracy, maximumAge: maximumAge, timeout: timeout).get()
    }

    /// Fixes at `accuracy` for as long as the stream is consumed, at most one per
    /// `distanceFilterMeters` of movement (every fix when nil). The updates are foreground ones: iOS
    /// delivers none while the app is suspended. Ending the iteration ends the demand. The stream
    /// finishes when the engine stops; it keeps the newest 100 fixes a slow consumer has not read.
    public func updates(accuracy: DesiredAccuracy = .best, distanceFilterMeters: Double? = nil) -> AsyncStream<Fix> {
        let (stream, continuation) = AsyncStream.makeStream(of: Fix.self, bufferingPolicy: .bufferingNewest(100))
        let engine = engine
        Task { await engine.openLocationStream(continuation, accuracy: accuracy, distanceFilterMeters: distanceFilterMeters) }
        return stream
    }
}
