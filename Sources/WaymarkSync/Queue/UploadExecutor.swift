import Foundation

/// Carries out the ``UploadQueue``'s actions against a ``RideStore`` and an `UploadTransport`,
/// and turns the results into the events the queue expects back.
///
/// The ``UploadDriver`` actor uses it with a real clock; a test harness can use it directly,
/// advancing virtual time between steps.
///
/// ```swift
/// let executor = UploadExecutor(store: store, transport: transport, credentials: credentials)
/// if let event = try await executor.perform(action) { actions += queue.handle(event, at: now) }
/// ```
///
/// A `Sendable` value type; every call may run on any task.
public struct UploadExecutor: Sendable {
    /// The device store.
    public let store: any UploadStore
    /// The transport that sends batches.
    public let transport: any UploadTransport
    /// The batch encoding (carries the device id).
    public let format: NativeBatchFormat
    /// The token and its refresh hook.
    public let credentials: DeviceCredentials

    /// Makes an executor.
    public init(store: any UploadStore, transport: any UploadTransport, format: NativeBatchFormat = NativeBatchFormat(),
                credentials: DeviceCredentials) {
        self.store = store
        self.transport = transport
        self.format = format
        self.credentials = credentials
    }

    /// Carries out a store or credential action and returns the event to feed back; nil for
    /// `saveBackoff` and for actions that are the caller's (`send`, `cancelSend`, `device`).
    ///
    /// - throws: ``SyncError`` `.storage` when the store fails; the queue then still waits for
    ///   a `.backlogChanged`, which the caller should feed once the store works again.
    public func perform(_ action: UploadAction, at now: Date) async throws -> UploadQueueEvent? {
        switch action {
        case .formBatch(let maxPoints, let maxBytes):
            try store.formBatch(maxPoints: maxPoints, maxBytes: maxBytes, format: format, at: now)
        case .acknowledge(let key, let rejected):
            try store.acknowledge(batch: key, rejecting: rejected)
        case .saveBackoff(let backoff):
            try store.saveUploadBackoff(backoff)
            return nil
        case .split(let key):
            try store.split(batch: key)
        case .quarantine(let key, let reason):
            try store.quarantine(batch: key, reason: reason)
        case .refreshCredentials:
            return .credentialsRefreshed(succeeded: await credentials.refreshToken())
        case .send, .cancelSend, .device:
            return nil
        }
        return .backlogChanged(try store.backlog())
    }

    /// The transport's part that carries transfers on after the process stops: the `continuing`
    /// transport of a `HandOffUploadTransport`, or the transport itself when it is one; nil otherwise.
    public var continuing: (any ContinuingUploadTransport)? {
        if let handOff = transport as? HandOffUploadTransport { return handOff.continuing }
        return transport as? any ContinuingUploadTransport
    }

    /// Hands what is left to the system as the app is about to be suspended (review 2, M6): forms
    /// every unbatched point into batches of at most `maxPoints` points and `maxBytes` bytes, and
    /// starts a transfer for every pending batch the system does not hold yet, several at once.
    /// The batches stay pending: their next sends take the system's outcomes, and points are
    /// deleted only on an acknowledgement. Does nothing without a ``continuing`` transport.
    ///
    /// - returns: the keys handed off.
    /// - throws: ``SyncError`` `.storage` when the store fails.
    public func handOffBacklog(maxPoints: Int, maxBytes: Int, at now: Date) async throws -> [String] {
        guard let continuing else { return [] }
        while try store.formBatch(maxPoints: maxPoints, maxBytes: maxBytes, format: format, at: now) != nil {}
        var keys: [String] = []
        for pending in try store.backlog().pending {
            guard await !continuing.holdsTransfer(for: pending.key),
                  let batch = try store.batch(pending.key), batch.state == .pending else { continue }
            let request = UploadRequest(key: pending.key, body: format.body(for: batch),
                                        token: await credentials.token)
            await continuing.handOff(request, at: now)
            keys.append(pending.key)
        }
        return keys
    }

    /// Sends the batch once at `now` (the time the queue reasons in; a simulated network answers by it)
    /// and returns `.sendFinished`, or `.backlogChanged` when the batch no longer exists.
    ///
    /// - throws: ``SyncError`` `.storage` when the batch cannot be read.
    public func send(key: String, at now: Date) async throws -> UploadQueueEvent {
        guard let batch = try store.batch(key), batch.state == .pending else {
            return .backlogChanged(try store.backlog())
        }
        let request = UploadRequest(key: key, body: format.body(for: batch), token: await credentials.token)
        return .sendFinished(key: key, response: await transport.send(request, at: now))
    }
}
