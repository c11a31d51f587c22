import Foundation
import WaymarkEngine
import WaymarkGeo

/// The upload queue's decisions, as a pure state machine: when to form a batch, when to send,
/// how long to back off, and what a server answer means for the batch.
///
/// It never touches the store, the network or a clock: it is told the store's ``UploadBacklog``,
/// device events and send results (``UploadQueueEvent``) and answers with ``UploadAction``s for a
/// driver to carry out (``UploadDriver`` in an app, a test harness in tests). Wake it with
/// ``deadlineReached(at:)`` at ``nextDeadline``. Batches go out one at a time, oldest first:
///
/// - 2xx `{"result":"ok"}` acknowledges the batch (only then are its fixes deleted); points the
///   reply lists under `rejected` are quarantined one by one with the server's reason;
/// - 413 splits the batch in two (down to one point; one point still too large is quarantined);
/// - 409/422 split to isolate the refused points, then quarantine them with the server's reason;
/// - 400 quarantines; 401/403 call the credential-refresh hook, then send again;
/// - 5xx, other answers, timeouts and broken connections back off exponentially with full
///   jitter (uniform wait in [0, min(cap, base·2ⁿ⁻¹)]), from an injected seeded generator.
///
/// Offline, it waits for reachability. In the background it holds a background task while it
/// sends and starts no send with less than ``Configuration/minimumBudget`` of background time
/// left; when the task expires the send in flight is abandoned (the batch stays pending, same key).
/// Every change of the retry state is reported with ``UploadAction/saveBackoff(_:)``; a queue made
/// after a relaunch starts from the saved ``UploadBackoff``.
///
/// ```swift
/// var queue = UploadQueue(backlog: try store.backlog(), seed: 7)
/// var actions = queue.handle(.device(.networkReachability(online: true)), at: now)
/// // carry out actions; feed results back with handle(_:at:)
/// ```
///
/// A `Sendable` value type owned by one task.
public struct UploadQueue: Sendable {
    /// The limits in force.
    public let configuration: Configuration
    /// The store's backlog as last reported.
    public internal(set) var backlog: UploadBacklog
    /// What the queue is waiting for.
    public internal(set) var phase: Phase = .idle
    /// Whether the network is believed reachable.
    public internal(set) var online: Bool
    /// Whether the app is in the foreground.
    public internal(set) var foreground: Bool
    /// Consecutive failed attempts (reset by an acknowledgement).
    public internal(set) var failures = 0
    /// No send before this time (backoff).
    public internal(set) var retryAt: Date?
    /// The background task held, with its identifier.
    public internal(set) var backgroundTask: Int?
    var nextTaskID: Int
    var windowStart: Date?
    var budgetExhausted = false
    var needsCredentials = false
    var consecutiveUnauthorized = 0
    var flushRequested = false
    var rng: SplitMix64

    /// Makes a queue over the store's current backlog (a new process, or after a relaunch).
    ///
    /// - parameter configuration: the batch, backoff and background-time limits.
    /// - parameter backlog: what the store holds for upload now (``RideStore/backlog()``).
    /// - parameter foreground: whether the app runs in the foreground now.
    /// - parameter online: whether the network is reachable now, as far as the app knows.
    /// - parameter backoff: the retry state saved by the previous process (``RideStore/uploadBackoff()``).
    /// - parameter seed: seeds the backoff jitter; equal seeds give equal schedules.
    /// - parameter now: the current time; when the queue starts in the background, its background
    ///   time (``Configuration/backgroundBudget``) is counted from here.
    /// - precondition: `configuration` is usable (see ``Configuration/init(maxBatchPoints:maxBatchBytes:maxBatchAge:backoffBase:backoffCap:backgroundBudget:minimumBudget:isolateRejectedPoints:backgroundTaskIDBase:handOffBatchPoints:handOffBatchBytes:maxFenceEventAge:)``).
    public init(configuration: Configuration = Configuration(), backlog: UploadBacklog, backoff: UploadBackoff = UploadBackoff(),
                foreground: Bool = true, online: Bool = true, seed: UInt64 = 0, at now: Date = Date(timeIntervalSince1970: 0)) {
        // Checked again here: the configuration's fields are vars, so they may have changed since it was made.
        ContractCheck.require(configuration.contractViolations, in: "UploadQueue.Configuration")
        self.configuration = configuration
        self.backlog = backlog
        failures = backoff.failures
        retryAt = backoff.retryAt
        self.foreground = foreground
        self.online = online
        rng = SplitMix64(seed: seed)
        nextTaskID = configuration.backgroundTaskIDBase
        windowStart = foreground ? nil : now
    }

    /// The earliest time the queue must be woken with ``deadlineReached(at:)``; nil when only an
    /// event can move it on.
    public var nextDeadline: Date? {
        guard phase == .idle else { return nil }
        if !backlog.pending.isEmpty {
            return online && (foreground || !budgetExhausted) ? retryAt : nil
        }
        guard backlog.hasUnbatched else { return nil }
        return formBatchDue
    }

    /// Handles one event and returns what to do next, in order.
    public mutating func handle(_ event: UploadQueueEvent, at now: Date) -> [UploadAction] {
        let before = backoff
        var actions: [UploadAction] = []
        switch event {
        case .backlogChanged(let backlog):
            self.backlog = backlog
            if phase == .updatingStore { phase = .idle }
            if case .sending(let key) = phase, !backlog.pending.contains(where: { $0.key == key }) { phase = .idle }
            if !backlog.hasUnbatched { flushRequested = false }
        case .device(let event):
            actions += handleDevice(event, at: now)
        case .sendFinished(let key, let response):
            actions += handleResponse(response, key: key, at: now)
        case .credentialsRefreshed(let succeeded):
            guard phase == .refreshingCredentials else { break }
            phase = .idle
            if succeeded { needsCredentials = false } else { scheduleRetry(at: now) }
        case .flush:
            flushRequested = true
        }
        actions += step(at: now)
        return backoff == before ? actions : [.saveBackoff(backoff)] + actions
    }

    /// Acts on a deadline (batch age reached, backoff over).
    public mutating func deadlineReached(at now: Date) -> [UploadAction] {
        let before = backoff
        let actions = step(at: now)
        return backoff == before ? actions : [.saveBackoff(backoff)] + actions
    }

    /// The retry state as the store keeps it.
    public var backoff: UploadBackoff { UploadBackoff(failures: failures, retryAt: retryAt) }

    mutating func scheduleRetry(at now: Date) {
        failures += 1
        let ceiling = min(configuration.backoffCap, configuration.backoffBase * pow(2, Double(min(failures - 1, 60))))
        // Whole milliseconds, the store's time unit: a relaunch restores exactly this instant.
        let due = now.addingTimeInterval(Double.random(in: 0...ceiling, using: &rng))
        retryAt = Date(timeIntervalSince1970: (due.timeIntervalSince1970 * 1000).rounded(.up) / 1000)
    }
}
