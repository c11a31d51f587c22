import Foundation

extension UploadResponse {
    /// Runs one upload attempt against a timeout measured on `clock`: the attempt's own answer, or
    /// ``timedOut`` once `timeout` has passed on `clock` (the attempt is then cancelled, and this
    /// returns when it has stopped). The deadline is taken before the attempt starts, so a clock that
    /// is moved past it early (a test's virtual clock) still times the attempt out.
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
        return await withTaskGroup(of: UploadResponse?.self) { group in
            group.addTask { await attempt() }
            // nil: the timer was cancelled (the attempt answered, or the whole send was cancelled).
            group.addTask { (try? await timer()) == nil ? nil : .timedOut }
            defer { group.cancelAll() }
            while let first = await group.next() {
                if let first { return first }
            }
            return .cancelled
        }
    }

    /// A sleep until `duration` after now on `clock`.
    private static func sleeper<C: Clock<Duration>>(on clock: C, for duration: Duration) -> @Sendable () async throws -> Void {
        let deadline = clock.now.advanced(by: duration)
        return { try await clock.sleep(until: deadline, tolerance: nil) }
    }
}
