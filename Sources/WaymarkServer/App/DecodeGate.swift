import NIOConcurrencyHelpers
import NIOCore
import WaymarkGeo

/// Runs the decoding of large request bodies a few at a time, in tasks cancelled when their client leaves.
///
/// Decoding is synchronous CPU work on Swift's cooperative pool: unbounded, a handful of large bodies
/// would occupy every pool thread and stall every other request. The gate lets ``slots`` decodes run at
/// once (by default one core's worth fewer than the machine has), queues up to ``queueLimit`` more, and
/// answers the rest 503 with `Retry-After`. Each decode runs in a task on the process's decode threads, at
/// a lower CPU priority (`BackgroundExecutor.shared`), that is cancelled when the connection closes; the GPX tokenizer and the JSON
/// pre-scan check for cancellation and stop. `Sendable`.
public final class DecodeGate: Sendable {
    /// Decodes that may run at once.
    public let slots: Int
    /// Decodes that may wait for a slot.
    public let queueLimit: Int
    private struct State {
        var running = 0
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextID: UInt64 = 0
    }
    private let state = NIOLockedValueBox(State())

    /// A gate with `slots` concurrent decodes and `queueLimit` waiting ones.
    ///
    /// - precondition: `slots` is at least 1 and `queueLimit` at least 0 (a gate without a slot would
    ///   refuse every large body); the program stops, naming the value, otherwise.
    public init(slots: Int, queueLimit: Int) {
        var check = ContractCheck()
        check.require(slots >= 1, "slots must be at least 1, not \(slots)")
        check.nonNegative("queueLimit", queueLimit)
        ContractCheck.require(check.violations, in: "DecodeGate")
        self.slots = slots
        self.queueLimit = queueLimit
    }

    /// Runs `work` in a slot, in a child task cancelled when `closeFuture` completes (the client left).
    /// - throws: ``ServerError`` ``ServerError/Code/busy`` when the queue is full,
    ///   ``ServerError/Code/cancelled`` when the client left first, or what `work` throws.
    public func run<T: Sendable>(closeFuture: EventLoopFuture<Void>?,
                                 _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await acquire()
        defer { release() }
        let task = Task(executorPreference: BackgroundExecutor.shared) { try work() }
        closeFuture?.whenComplete { _ in task.cancel() }
        do {
            return try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
        } catch where task.isCancelled {
            throw ServerError(.cancelled, "the client closed the connection; the request was abandoned")
        }
    }

    /// Decodes running now (for tests and metrics).
    public var running: Int { state.withLockedValue { $0.running } }

    private func acquire() async throws {
        enum Decision { case run, wait(UInt64), refuse }
        let id = state.withLockedValue { s -> UInt64 in s.nextID += 1; return s.nextID }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let decision = state.withLockedValue { s -> Decision in
                    if s.running < slots {
                        s.running += 1
                        return .run
                    }
                    guard s.waiters.count < queueLimit else { return .refuse }
                    s.waiters.append((id, continuation))
                    return .wait(id)
                }
                switch decision {
                case .run: continuation.resume()
                case .wait: break
                case .refuse:
                    continuation.resume(throwing: ServerError(.busy, "the server is decoding as many large bodies as it can; retry shortly"))
                }
            }
        } onCancel: {
            let waiter = state.withLockedValue { s -> CheckedContinuation<Void, any Error>? in
                guard let index = s.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return s.waiters.remove(at: index).continuation
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    private func release() {
        let next = state.withLockedValue { s -> CheckedContinuation<Void, any Error>? in
            guard !s.waiters.isEmpty else {
                s.running -= 1
                return nil
            }
            return s.waiters.removeFirst().continuation  // the slot passes straight to the next waiter
        }
        next?.resume()
    }
}
