import Foundation

/// The one time source of an ``UploadDriver``: the wall-clock time it stamps its steps with, and
/// the sleep until its next deadline, on the same time line.
///
/// ``SystemUploadClock`` is the phone's. WaymarkSimulatedPhone's `SimulatedDevice.uploadClock`
/// runs a driver on a simulated device's virtual time, so a test advances one clock and both the
/// engine and the uploads follow it.
public protocol UploadClock: Sendable {
    /// The current wall-clock time.
    var now: Date { get }
    /// Suspends until ``now`` has reached `deadline`; throws `CancellationError` when the task is
    /// cancelled first.
    func sleep(until deadline: Date) async throws
}

/// The system's time: `Date()`, and sleeps on a `ContinuousClock` (which keeps counting while
/// the phone sleeps, so a backoff of ten minutes is ten minutes of real time).
public struct SystemUploadClock: UploadClock {
    /// The system clock.
    public init() {}

    public var now: Date { Date() }

    public func sleep(until deadline: Date) async throws {
        let delay = deadline.timeIntervalSinceNow
        guard delay > 0 else { return try Task.checkCancellation() }
        try await ContinuousClock().sleep(for: .milliseconds(Int64((delay * 1000).rounded(.up))))
    }
}
