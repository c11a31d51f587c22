import Foundation
import WaymarkEngine
import WaymarkSync
import WaymarkTransport

/// Runs an `UploadQueue` step by step on a clock you drive: the simulated-time counterpart of
/// `UploadDriver`, for a simulated phone (the demo) and for tests.
///
/// Set ``now`` (or pass the time to ``feed(_:at:)``) and feed the queue's events; every action is
/// carried out at once by an `UploadExecutor`: sends are real requests over the transport, and
/// deadlines (batch age, backoff) are reached by moving ``now``, never by sleeping. While
/// ``offline`` is true a send fails at once without touching the network, as the radio would.
/// One uploader stands for one app process: make a new one after a relaunch, from the same store.
///
/// ```swift
/// var uploader = try VirtualTimeUploader(store: store, transport: transport, credentials: credentials,
///                                        configuration: .init(), now: start)
/// try store.append(fixes, to: ride)
/// try await uploader.feed(.backlogChanged(try store.backlog()), at: start)
/// try await uploader.drain(until: start.addingTimeInterval(3_600))
/// print(uploader.sends.map(\.response))
/// ```
///
/// A value type; not `Sendable` because ``killAfterSend`` is an arbitrary closure.
public struct VirtualTimeUploader {
    /// One finished send.
    public struct Send: Hashable, Sendable {
        /// The virtual time of the send.
        public var at: Date
        /// The batch's idempotency key.
        public var key: String
        /// Points in the batch.
        public var points: Int
        /// What came back.
        public var response: UploadResponse
    }

    /// The queue's state.
    public private(set) var queue: UploadQueue
    /// What carries out the queue's actions.
    public let executor: UploadExecutor
    /// The virtual time of the next step.
    public var now: Date
    /// While true the radio is off: sends fail at once without touching the network.
    public var offline: Bool
    /// Device commands the queue issued (background tasks), in order.
    public private(set) var commands: [DeviceCommand] = []
    /// HTTP requests made (not counting sends that failed offline); reset it as you like.
    public var requests = 0
    /// Every finished send, in order.
    public private(set) var sends: [Send] = []
    /// Asked after each real send; returning true drops the answer, as if the process died before
    /// it could act on it (fault injection for tests). ``feed(_:at:)`` then returns false.
    public var killAfterSend: (() -> Bool)?
    /// The field log the upload outcomes go to, if any.
    public let log: FieldLog?

    /// Makes the uploader of a process that starts at `now` over `store`.
    ///
    /// - Parameters:
    ///   - store: the device's ride store (its backlog and backoff are read now).
    ///   - transport: sends the batches.
    ///   - credentials: the upload token and its refresh hook.
    ///   - configuration: batch size, age and backoff.
    ///   - deviceID: the device id the batches carry, if any (native format).
    ///   - uploadFormat: what batches are sent as; nil sends the native format with `deviceID`.
    ///   - seed: seeds the backoff's jitter.
    ///   - now: the virtual start time.
    ///   - foreground: whether the process starts in the foreground.
    ///   - online: whether the network is reachable at the start (``offline`` starts as its opposite).
    ///   - log: the field log that hears every upload outcome (virtual time), if any.
    /// - Throws: a `SyncError` when the store cannot be read.
    public init(store: RideStore, transport: any UploadTransport, credentials: DeviceCredentials,
                configuration: UploadQueue.Configuration, deviceID: String? = nil, uploadFormat: UploadFormat? = nil,
                seed: UInt64 = 1, now: Date, foreground: Bool = true, online: Bool = true, log: FieldLog? = nil) throws {
        self.log = log
        executor = UploadExecutor(store: store, transport: transport, uploadFormat: uploadFormat ?? .native(deviceID: deviceID),
                                  credentials: credentials)
        queue = UploadQueue(configuration: configuration, backlog: try store.backlog(), backoff: try store.uploadBackoff(),
                            foreground: foreground, online: online, seed: seed, at: now)
        self.now = now
        offline = !online
    }

    /// Feeds an event (a deadline when nil) at `time` (default ``now``, which it then becomes) and
    /// carries out every resulting action; returns false when ``killAfterSend`` dropped an answer.
    @discardableResult
    public mutating func feed(_ event: UploadQueueEvent?, at time: Date? = nil) async throws -> Bool {
        if let time { now = time }
        let actions = event.map { queue.handle($0, at: now, log: log) } ?? queue.deadlineReached(at: now)
        return try await executor.run(actions, at: { now }, handle: { queue.handle($0, at: now, log: log) }, effect: { effect in
            switch effect {
            case .send(let key):
                let points = queue.backlog.pending.first { $0.key == key }?.points ?? 0
                let result: UploadQueueEvent
                if offline {
                    result = .sendFinished(key: key, response: .connectionFailed("offline"))
                } else {
                    requests += 1
                    result = try await executor.send(key: key, at: now)
                    if killAfterSend?() == true { return .stop }
                }
                if case .sendFinished(_, let response) = result {
                    sends.append(Send(at: now, key: key, points: points, response: response))
                }
                return .feed(result)
            case .cancelSend:
                return .done
            case .device(let command):
                commands.append(command)
                return .done
            }
        }, storeFailed: { _, error in throw error })
    }

    /// Moves to `time` and runs every deadline due by then, all at `time`: a caller that steps
    /// virtual time in chunks sees them at its step's end, as an app whose timers fire when it
    /// next runs.
    public mutating func runDeadlines(upTo time: Date) async throws {
        now = max(now, time)
        var rounds = 0
        while let deadline = queue.nextDeadline, deadline <= now, rounds < 1_000 {
            rounds += 1
            try await feed(nil)
        }
    }

    /// Sends everything waiting, as an app that stays open online does: flushes, tells the queue about
    /// the store, then follows its deadlines (backoff after a failure), flushing again whenever none is
    /// set, until the backlog is empty or `maxSteps` steps have passed. Unlike ``drain(until:)`` it has no
    /// time limit and never leaves a batch waiting for its age.
    public mutating func sendAll(maxSteps: Int = 1_000) async throws {
        try await feed(.flush)
        try await feed(.backlogChanged(try executor.store.backlog()))
        var steps = 0
        while !queue.backlog.isEmpty, steps < maxSteps {
            steps += 1
            if let deadline = queue.nextDeadline {
                try await feed(nil, at: max(now, deadline))
            } else {
                try await feed(.flush)
            }
        }
    }

    /// Tells the queue about the store, then runs its deadlines until nothing waits for upload or
    /// virtual time would pass `limit`.
    public mutating func drain(until limit: Date) async throws {
        try await feed(.backlogChanged(try executor.store.backlog()))
        while !queue.backlog.isEmpty, let deadline = queue.nextDeadline, deadline <= limit {
            try await feed(nil, at: max(now, deadline))
        }
    }
}
