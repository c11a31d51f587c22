import Foundation
import Logging

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
/// Batches go out in ``uploadFormat`` (the native format by default; see `UploadFormat` in
/// WaymarkTransport). For a format that carries one point per request (OwnTracks, the OsmAnd protocol),
/// batches are formed of one point. For a format without gap markers and geofence events (every one
/// but the native), those are kept on the device, marked as not sent (``RideStore/unsentRecords()``),
/// and each time some are kept a notice is logged (label `waymark.upload`). A reply is read as the
/// format says (`UploadFormat.interpret(_:)`): OwnTracks and Traccar servers acknowledge with any 2xx.
///
/// A `Sendable` value type; every call may run on any task.
public struct UploadExecutor: Sendable {
    /// The device store.
    public let store: any UploadStore
    /// The transport that sends batches.
    public let transport: any UploadTransport
    /// What batches are sent as.
    public let uploadFormat: UploadFormat
    /// The native encoding batch sizes are measured in (carries the device id).
    public var format: NativeBatchFormat { uploadFormat.batchSizing }
    /// The token and its refresh hook.
    public let credentials: DeviceCredentials
    let logger = Logger(label: "waymark.upload")

    /// Makes an executor that sends the native format.
    ///
    /// - parameter store: the device store.
    /// - parameter transport: sends the requests.
    /// - parameter format: the native format (its device id goes into every feature).
    /// - parameter credentials: the token and its refresh hook.
    public init(store: any UploadStore, transport: any UploadTransport, format: NativeBatchFormat = NativeBatchFormat(),
                credentials: DeviceCredentials) {
        self.init(store: store, transport: transport, uploadFormat: .native(deviceID: format.deviceID), credentials: credentials)
    }

    /// Makes an executor that sends `uploadFormat`.
    ///
    /// - parameter store: the device store.
    /// - parameter transport: sends the requests; its URL must be the format's server and path
    ///   (`UploadFormat.defaultPath` on `waymark serve`).
    /// - parameter uploadFormat: what batches are sent as.
    /// - parameter credentials: the token and its refresh hook.
    public init(store: any UploadStore, transport: any UploadTransport, uploadFormat: UploadFormat,
                credentials: DeviceCredentials) {
        self.store = store
        self.transport = transport
        self.uploadFormat = uploadFormat
        self.credentials = credentials
    }

    /// The most points a batch may hold: `maxPoints`, or fewer when the format carries fewer per request.
    func pointLimit(_ maxPoints: Int) -> Int {
        min(maxPoints, uploadFormat.maxPointsPerRequest ?? maxPoints)
    }

    /// Whether the batch holds more points than one request of the format carries.
    func fitsNoRequest(_ batch: UploadBatch) -> Bool {
        uploadFormat.maxPointsPerRequest.map { batch.fixes.count > $0 } ?? false
    }

    /// With a format that cannot carry them, keeps the gap markers and geofence events of batch `key`
    /// (or those waiting for a batch) on the device, and logs how many.
    func keepUnsendable(inBatch key: String?) throws {
        guard !uploadFormat.carriesGapsAndFenceEvents else { return }
        let kept = try store.keepUnsent(inBatch: key)
        guard kept.gaps + kept.fenceEvents > 0 else { return }
        logger.notice("""
            kept \(kept.gaps) gap markers and \(kept.fenceEvents) geofence events on the device, not sent: \
            the \(uploadFormat.kind.rawValue) upload format cannot carry them (RideStore.unsentRecords())
            """)
    }

    /// Carries out a store or credential action and returns the event to feed back; nil for
    /// `saveBackoff` and for actions that are the caller's (`send`, `cancelSend`, `device`).
    ///
    /// - throws: ``SyncError`` `.storage` when the store fails; the queue then still waits for
    ///   a `.backlogChanged`, which the caller should feed once the store works again.
    public func perform(_ action: UploadAction, at now: Date) async throws -> UploadQueueEvent? {
        switch action {
        case .formBatch(let maxPoints, let maxBytes):
            try keepUnsendable(inBatch: nil)
            try store.formBatch(maxPoints: pointLimit(maxPoints), maxBytes: maxBytes, format: format, at: now)
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
        try keepUnsendable(inBatch: nil)
        while try store.formBatch(maxPoints: pointLimit(maxPoints), maxBytes: maxBytes, format: format, at: now) != nil {}
        var keys: [String] = []
        for pending in try store.backlog().pending {
            guard await !continuing.holdsTransfer(for: pending.key),
                  let batch = try store.batch(pending.key), batch.state == .pending,
                  !batch.fixes.isEmpty || uploadFormat.carriesGapsAndFenceEvents,
                  !fitsNoRequest(batch) else { continue }   // sent (or split) by the queue
            let request = uploadFormat.request(for: batch, token: await credentials.token)
            await continuing.handOff(request, at: now)
            keys.append(pending.key)
        }
        return keys
    }

    /// Sends the batch once at `now` (the time the queue reasons in; a simulated network answers by it)
    /// in ``uploadFormat`` and returns `.sendFinished` with the reply as the format reads it, or
    /// `.backlogChanged` when the batch no longer exists, when it holds nothing the format can send
    /// (it is then done without a request), or when it holds more points than the format carries per
    /// request (it is then split).
    ///
    /// - throws: ``SyncError`` `.storage` when the batch cannot be read.
    public func send(key: String, at now: Date) async throws -> UploadQueueEvent {
        guard var batch = try store.batch(key), batch.state == .pending else {
            return .backlogChanged(try store.backlog())
        }
        if !uploadFormat.carriesGapsAndFenceEvents, !batch.gaps.isEmpty || !batch.fenceEvents.isEmpty {
            // Formed for the native format (before a switch of format): keep its records on the device.
            try keepUnsendable(inBatch: key)
            batch.gaps = []
            batch.fenceEvents = []
        }
        if batch.fixes.isEmpty && !uploadFormat.carriesGapsAndFenceEvents {
            // Nothing this format can send: the batch is done without a request.
            try store.acknowledge(batch: key, rejecting: [])
            return .backlogChanged(try store.backlog())
        }
        if fitsNoRequest(batch) {
            // Formed for a format that carries more points per request: halve it until it fits.
            try store.split(batch: key)
            return .backlogChanged(try store.backlog())
        }
        let request = uploadFormat.request(for: batch, token: await credentials.token)
        return .sendFinished(key: key, response: uploadFormat.interpret(await transport.send(request, at: now)))
    }
}
