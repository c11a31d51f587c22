import Foundation
import NIOConcurrencyHelpers
import NIOCore
import WaymarkGeo

/// Admits large writes to the store a few at a time, taking devices in turn, so that uploads of thousands of
/// points (a backlog, a GPX file, or an abuser's stream of them) cannot take every commit while small uploads wait.
///
/// A write is large when it carries more than ``largeEntries`` entries (points, gap markers and device events).
/// Small writes never wait here. At most ``slots`` large writes are in the store at once; the others wait in one
/// queue per device, and a freed slot goes to the device that has waited longest for its turn (round robin), so a
/// device that sends many large writes does not delay another device's one by more than one write each. At most
/// ``queueLimit`` large writes wait in all (each holds its decoded points); past that a request gets 503 `busy`
/// with `Retry-After`. A waiting write whose client closes the connection is dropped without being stored.
///
/// Durability is unchanged: an admitted write goes through the store's commit like any other, and is answered
/// only after it. `Sendable`.
public final class LargeWriteLane: Sendable {
    /// Entries above which a write is large.
    public let largeEntries: Int
    /// Large writes in the store at once.
    public let slots: Int
    /// Large writes that may wait for a slot.
    public let queueLimit: Int

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }
    private struct State {
        var running = 0
        var waiting = 0
        /// Each device's waiting writes, oldest first.
        var queues: [String: [Waiter]] = [:]
        /// Devices with a waiting write, in the order they get the next slot.
        var turn: [String] = []
        var nextID: UInt64 = 0
    }
    private let state = NIOLockedValueBox(State())

    /// A lane for writes of more than `largeEntries` entries, `slots` at once, `queueLimit` waiting.
    ///
    /// - precondition: `largeEntries` and `slots` are at least 1 and `queueLimit` at least 0; the program stops,
    ///   naming the value, otherwise.
    public init(largeEntries: Int, slots: Int, queueLimit: Int) {
        var check = ContractCheck()
        check.require(largeEntries >= 1, "largeEntries must be at least 1, not \(largeEntries)")
        check.require(slots >= 1, "slots must be at least 1, not \(slots)")
        check.nonNegative("queueLimit", queueLimit)
        ContractCheck.require(check.violations, in: "LargeWriteLane")
        self.largeEntries = largeEntries
        self.slots = slots
        self.queueLimit = queueLimit
    }

    /// Runs `write` now when it carries `entries` ≤ ``largeEntries``; otherwise once a slot is free and it is
    /// `device`'s turn.
    /// - throws: ``ServerError`` ``ServerError/Code/busy`` when ``queueLimit`` writes already wait,
    ///   ``ServerError/Code/cancelled`` when `closeFuture` completed (the client left) before the write was
    ///   admitted (nothing was stored), or what `write` throws.
    public func run<T: Sendable>(device: String, entries: Int, closeFuture: EventLoopFuture<Void>?,
                                 _ write: () async throws -> T) async throws -> T {
        guard entries > largeEntries else { return try await write() }
        try await admit(device: device, closeFuture: closeFuture)
        defer { release() }
        return try await write()
    }

    /// Large writes in the store now (for tests and metrics).
    public var running: Int { state.withLockedValue { $0.running } }
    /// Large writes waiting for a slot (for tests and metrics).
    public var waiting: Int { state.withLockedValue { $0.waiting } }

    private func admit(device: String, closeFuture: EventLoopFuture<Void>?) async throws {
        enum Decision { case run, wait, refuse }
        let id = state.withLockedValue { s -> UInt64 in s.nextID += 1; return s.nextID }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let decision = state.withLockedValue { s -> Decision in
                    if s.running < slots, s.waiting == 0 {
                        s.running += 1
                        return .run
                    }
                    guard s.waiting < queueLimit else { return .refuse }
                    if s.queues[device, default: []].isEmpty { s.turn.append(device) }
                    s.queues[device, default: []].append(Waiter(id: id, continuation: continuation))
                    s.waiting += 1
                    return .wait
                }
                switch decision {
                case .run: continuation.resume()
                case .wait: closeFuture?.whenComplete { _ in self.abandon(id, device: device) }
                case .refuse:
                    continuation.resume(throwing: ServerError(.busy, "the server is writing as many large uploads as it can "
                                                              + "(\(queueLimit) wait for their turn); retry shortly"))
                }
            }
        } onCancel: {
            abandon(id, device: device)
        }
    }

    /// Takes waiter `id` out of the queue (its client left) and fails it; nothing when it was admitted already.
    private func abandon(_ id: UInt64, device: String) {
        let waiter = state.withLockedValue { s -> Waiter? in
            guard let index = s.queues[device]?.firstIndex(where: { $0.id == id }) else { return nil }
            let waiter = s.queues[device]!.remove(at: index)
            s.waiting -= 1
            if s.queues[device]!.isEmpty {
                s.queues[device] = nil
                s.turn.removeAll { $0 == device }
            }
            return waiter
        }
        waiter?.continuation.resume(throwing: ServerError(.cancelled, "the client closed the connection; the upload was not stored"))
    }

    private func release() {
        let next = state.withLockedValue { s -> Waiter? in
            guard !s.turn.isEmpty else {
                s.running -= 1
                return nil
            }
            // The slot passes straight to the next device's oldest write; that device goes to the back of the turn.
            let device = s.turn.removeFirst()
            let waiter = s.queues[device]!.removeFirst()
            s.waiting -= 1
            if s.queues[device]!.isEmpty { s.queues[device] = nil } else { s.turn.append(device) }
            return waiter
        }
        next?.continuation.resume()
    }
}

/// The defaults of fair writes (``LargeWriteLane`` and the stores' group commit, ``IngestGroups``).
enum FairWrites {
    /// Off when the environment variable `WAYMARK_FAIR_WRITES` is `off` (to measure without it in the same build).
    static let enabled = ProcessInfo.processInfo.environment["WAYMARK_FAIR_WRITES"] != "off"
    /// Entries above which a write is large (the same bound as a fence evaluation moved to the background threads).
    static let largeEntries = 500
}
