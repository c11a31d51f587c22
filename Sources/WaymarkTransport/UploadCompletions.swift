import Foundation
import WaymarkGeo

/// Where the sends of a background-session transport wait for their transfers, and where the
/// session delegate reports them finished.
///
/// A transfer may finish while a send awaits it, while the app is suspended (nobody awaits it),
/// or in an earlier process. So the delegate first writes the outcome to the
/// ``UploadOutcomeStore`` (``transferFinished(key:response:at:)``, synchronous: it is durable
/// before the callback returns and iOS may suspend the app), then wakes the sends waiting for
/// that key. A send asks ``outcome(for:)``: a recorded outcome comes back at once, otherwise it
/// waits. Whoever delivers an outcome to a send removes its record, so each outcome is
/// delivered once; an undelivered one stays on disk for the next send of its key.
///
/// ```swift
/// // URLSession delegate, on the session's queue:
/// try completions.transferFinished(key: task.taskDescription!, response: response)
/// // the transport's send(_:):
/// if let earlier = completions.takeRecorded(request.key) { return earlier }
/// startOrReattach(request)
/// return await completions.outcome(for: request.key)
/// ```
///
/// Thread-safety: an actor; ``transferFinished(key:response:at:)`` and ``takeRecorded(_:)`` are
/// synchronous and may be called from any thread.
public actor UploadCompletions {
    /// Where outcomes are recorded.
    public nonisolated let store: UploadOutcomeStore
    private var waiters: [String: [UUID: CheckedContinuation<UploadResponse, Never>]] = [:]
    /// Tasks in ``waitUntil(waiting:for:)``, by key; their ids are unique across keys and never reused.
    private var watchers: [String: CountWaiters] = [:]
    private var lastWatcherID = 0

    /// Makes the rendezvous over a store.
    public init(store: UploadOutcomeStore) {
        self.store = store
    }

    /// Records how the transfer for `key` ended, then wakes the sends waiting for it.
    ///
    /// The waiting sends are woken even when recording fails (they get the response directly);
    /// only a send made later would miss it, and it uploads again under the same key.
    ///
    /// - throws: ``TransportError`` `.outcomeStore` when the outcome could not be written.
    public nonisolated func transferFinished(key: String, response: UploadResponse, at now: Date = Date()) throws {
        defer { Task { await self.deliver(key: key, response: response) } }
        try store.record(UploadOutcome(key: key, response: response, finishedAt: now))
    }

    /// The outcome recorded for `key` by a transfer nobody was waiting for, removed from the
    /// store; nil when there is none.
    public nonisolated func takeRecorded(_ key: String) -> UploadResponse? {
        store.take(key)?.response
    }

    /// Waits until the transfer for `key` finished and returns its response; returns at once
    /// when an outcome is already recorded.
    ///
    /// Cancelling the calling task returns ``UploadResponse/cancelled`` at once and leaves the
    /// transfer running: its outcome is recorded for the next send of the key.
    public func outcome(for key: String) async -> UploadResponse {
        let id = UUID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<UploadResponse, Never>) in
                if Task.isCancelled {
                    continuation.resume(returning: .cancelled)
                } else if let recorded = store.take(key) {
                    continuation.resume(returning: recorded.response)
                } else {
                    waiters[key, default: [:]][id] = continuation
                    notifyWatchers(key)
                }
            }
        } onCancel: {
            Task { await self.cancel(key: key, id: id) }
        }
    }

    /// How many sends wait for `key` (for tests and diagnostics).
    public func waiting(for key: String) -> Int { waiters[key]?.count ?? 0 }

    /// Returns once the sends waiting for `key` (``waiting(for:)``) have come to `count`, from above
    /// or below: true; false when the waiting task is cancelled first. For tests that start sends
    /// in tasks and must know they are waiting, or gone, before going on.
    @discardableResult
    func waitUntil(waiting count: Int, for key: String) async -> Bool {
        guard waiting(for: key) != count else { return true }
        lastWatcherID += 1
        let id = lastWatcherID
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                if Task.isCancelled {
                    continuation.resume(returning: false)
                } else {
                    watchers[key, default: CountWaiters()].add(id, target: count, current: waiting(for: key), continuation)
                }
            }
        } onCancel: {
            Task { await self.cancelWatcher(id, key: key) }
        }
    }

    private func cancelWatcher(_ id: Int, key: String) {
        guard var forKey = watchers[key], let continuation = forKey.take(id) else { return }
        watchers[key] = forKey.isEmpty ? nil : forKey
        continuation.resume(returning: false)
    }

    /// Wakes the tasks whose count of waiting sends for `key` is reached.
    private func notifyWatchers(_ key: String) {
        guard var forKey = watchers[key] else { return }
        let reached = forKey.takeReached(waiting(for: key))
        watchers[key] = forKey.isEmpty ? nil : forKey
        for continuation in reached { continuation.resume(returning: true) }
    }

    func deliver(key: String, response: UploadResponse) {
        guard let list = waiters.removeValue(forKey: key), !list.isEmpty else { return }
        // Forget the record only if it is this response: a wake-up that ran late (the send it was
        // for took the record meanwhile, and a new transfer of the key has already finished) must
        // not erase the newer outcome.
        if store.outcome(for: key)?.response == response { store.forget(key) }
        for continuation in list.values { continuation.resume(returning: response) }
        notifyWatchers(key)
    }

    private func cancel(key: String, id: UUID) {
        guard let continuation = waiters[key]?.removeValue(forKey: id) else { return }
        if waiters[key]?.isEmpty == true { waiters[key] = nil }
        continuation.resume(returning: .cancelled)
        notifyWatchers(key)
    }
}
