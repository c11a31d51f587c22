import Foundation
import WaymarkEngine
@testable import WaymarkSync

/// Drives an ``UploadQueue`` with an ``UploadExecutor`` in virtual time: deadlines are reached by
/// setting `now`, never by sleeping; sends are real HTTP requests.
struct VirtualUploader {
    var queue: UploadQueue
    let executor: UploadExecutor
    var now: Date
    /// Device commands the queue issued, in order.
    var commands: [DeviceCommand] = []
    /// While true the radio is off: sends fail at once without touching the network.
    var offline = false
    /// Number of HTTP requests made.
    var requests = 0
    /// Every send attempt: virtual time, batch key and what came back.
    var sends: [(at: Date, key: String, response: UploadResponse?)] = []
    /// Asked after each real send; returning true drops the answer (the process dies before it
    /// can act on it).
    var killAfterSend: (() -> Bool)?

    init(store: RideStore, transport: any UploadTransport, credentials: DeviceCredentials,
         configuration: UploadQueue.Configuration, deviceID: String = "phone-1", seed: UInt64 = 1,
         now: Date, foreground: Bool = true, online: Bool = true) throws {
        executor = UploadExecutor(store: store, transport: transport, format: NativeBatchFormat(deviceID: deviceID),
                                  credentials: credentials)
        queue = UploadQueue(configuration: configuration, backlog: try store.backlog(), backoff: try store.uploadBackoff(),
                            foreground: foreground,
                            online: online, seed: seed, at: now)
        self.now = now
        offline = !online
    }

    /// Feeds an event (or a deadline when nil) and carries out every resulting action.
    /// Returns false when a kill was injected after a send.
    @discardableResult
    mutating func feed(_ event: UploadQueueEvent?) async throws -> Bool {
        var actions = event.map { queue.handle($0, at: now) } ?? queue.deadlineReached(at: now)
        while !actions.isEmpty {
            let action = actions.removeFirst()
            switch action {
            case .send(let key):
                let result: UploadQueueEvent
                if offline {
                    result = .sendFinished(key: key, response: .connectionFailed("offline"))
                } else {
                    requests += 1
                    result = try await executor.send(key: key)
                    if killAfterSend?() == true { return false }
                }
                if case .sendFinished(_, let response) = result { sends.append((now, key, response)) }
                actions += queue.handle(result, at: now)
            case .cancelSend:
                break
            case .device(let command):
                commands.append(command)
            default:
                if let result = try await executor.perform(action, at: now) {
                    actions += queue.handle(result, at: now)
                }
            }
        }
        return true
    }

    /// Tells the queue about the store and runs deadlines until nothing waits for upload, or
    /// virtual time would pass `limit`.
    mutating func drain(until limit: Date) async throws {
        try await feed(.backlogChanged(try executor.store.backlog()))
        while !queue.backlog.isEmpty, let deadline = queue.nextDeadline, deadline <= limit {
            now = max(now, deadline)
            try await feed(nil)
        }
    }
}
