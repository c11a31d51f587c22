/// Tasks waiting until a count reaches a target: how the package's types let a test wait for an
/// event (events handled, requests queued, subscribers, sleepers) instead of polling.
///
/// Package-internal. The owner keeps it inside its own isolation (an actor, or the lock that
/// guards the count), calls ``takeReached(_:)`` whenever the count changes and ``take(_:)`` when a
/// waiting task is cancelled, and resumes what they return (outside the lock). A waiter is woken
/// with true once the count has reached its target from the side it started on (at least the
/// target when it was below, at most when it was above), so a count that jumps past the target
/// still wakes it; with false when cancelled or when the owner gives up (``takeAll()``).
package struct CountWaiters: Sendable {
    private struct Waiter: Sendable {
        var target: Int
        var rising: Bool
        var continuation: CheckedContinuation<Bool, Never>
    }

    private var waiters: [Int: Waiter] = [:]
    private var lastID = 0

    package init() {}

    /// Whether no task waits.
    package var isEmpty: Bool { waiters.isEmpty }

    /// An id for a new waiter (take it before registering, so a cancellation can name it).
    package mutating func newID() -> Int {
        lastID += 1
        return lastID
    }

    /// Registers a waiter for `target` while the count is `current`.
    ///
    /// - precondition: `current` is not `target` (the owner answers that at once), and `id` is not
    ///   waiting already.
    package mutating func add(_ id: Int, target: Int, current: Int, _ continuation: CheckedContinuation<Bool, Never>) {
        precondition(current != target, "CountWaiters.add: the count is already \(target)")
        precondition(waiters[id] == nil, "CountWaiters.add: waiter \(id) is already waiting")
        waiters[id] = Waiter(target: target, rising: current < target, continuation: continuation)
    }

    /// Removes and returns the waiters whose target `current` has reached.
    package mutating func takeReached(_ current: Int) -> [CheckedContinuation<Bool, Never>] {
        guard !waiters.isEmpty else { return [] }
        let reached = waiters.filter { _, w in w.rising ? current >= w.target : current <= w.target }
        for id in reached.keys { waiters[id] = nil }
        return reached.values.map(\.continuation)
    }

    /// Removes and returns the waiter `id` (its task was cancelled), if still waiting.
    package mutating func take(_ id: Int) -> CheckedContinuation<Bool, Never>? {
        waiters.removeValue(forKey: id)?.continuation
    }

    /// Removes and returns every waiter.
    package mutating func takeAll() -> [CheckedContinuation<Bool, Never>] {
        defer { waiters = [:] }
        return waiters.values.map(\.continuation)
    }
}
