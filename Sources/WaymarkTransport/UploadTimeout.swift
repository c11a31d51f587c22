import Foundation

extension UploadResponse {
    /// Runs one upload attempt against a timeout measured on `clock`: the attempt's own answer, or
    /// ``timedOut`` once `timeout` has passed on `clock` (the attempt is then cancelled in the
    /// background; this returns at once). The deadline is taken before the attempt starts, so a clock that
    /// is moved past it early (a test's virtual clock) still times the attempt out.
    ///
    /// When the caller's task is cancelled, this returns ``cancelled`` at once and cancels the attempt.
    ///
    /// Both shipped foreground transports measure their timeout this way, so a test that passes a clock
    /// it drives (WaymarkSimulator's `SimulatedClock`) decides when an unanswered request times out,
    /// without waiting in real time.
    ///
    /// ```swift
    /// let response = await UploadResponse.attempt(within: .seconds(30), on: ContinuousClock()) {
    ///     await send(request)
    /// }
    /// ```
    public static func attempt(within timeout: Duration, on clock: any Clock<Duration>,
                               _ attempt: @escaping @Sendable () async -> UploadResponse) async -> UploadResponse {
        let timer = sleeper(on: clock, for: timeout)
        // The first answer wins. The loser is cancelled but not waited for: an HTTP stack that is slow
        // to honour cancellation (FoundationNetworking on Linux) must not hold the caller past its timeout.
        let (answers, answer) = AsyncStream.makeStream(of: UploadResponse.self, bufferingPolicy: .bufferingOldest(1))
        let request = Task { _ = answer.yield(await attempt()) }
        let deadline = Task {
            // Cancelled: the attempt answered, or the caller was cancelled (then this returns .cancelled).
            if (try? await timer()) != nil { _ = answer.yield(.timedOut) }
        }
        return await withTaskCancellationHandler {
            // A cancelled caller's loop ends at once (an AsyncStream's iteration stops on cancellation),
            // so `first` stays .cancelled.
            var first = UploadResponse.cancelled
            for await response in answers {
                first = response
                break
            }
            request.cancel()
            deadline.cancel()
            answer.finish()
            return first
        } onCancel: {
            request.cancel()
            deadline.cancel()
        }
    }

    /// A sleep until `duration` after now on `clock`.
    private static func sleeper<C: Clock<Duration>>(on clock: C, for duration: Duration) -> @Sendable () async throws -> Void {
        let deadline = clock.now.advanced(by: duration)
        return { try await clock.sleep(until: deadline, tolerance: nil) }
    }
}
