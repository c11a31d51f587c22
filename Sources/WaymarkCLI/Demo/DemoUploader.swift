import Foundation
import WaymarkEngine
import WaymarkSync

/// The app's upload side in the demo: an ``UploadQueue`` carried out by an ``UploadExecutor``
/// over the device's ``RideStore`` and real HTTP, on the simulation's virtual clock.
///
/// Deadlines (batch age, backoff) are reached by advancing virtual time, never by sleeping; while
/// the simulated network is offline a send fails at once without touching the network, as the
/// radio would. One uploader lives as long as one app process.
struct DemoUploader {
    /// One finished upload attempt, for the timeline.
    struct Attempt: Hashable, Sendable {
        var time: Date
        var points: Int
        /// HTTP status, or nil when no answer came (offline, timeout, broken connection).
        var status: Int?
        var detail: String
    }

    var queue: UploadQueue
    let executor: UploadExecutor
    var offline = false
    var attempts: [Attempt] = []

    init(store: RideStore, server: URL, token: String, deviceID: String, configuration: UploadQueue.Configuration,
         seed: UInt64, now: Date, foreground: Bool, online: Bool) throws {
        executor = UploadExecutor(store: store, transport: try HTTPUploadTransport(server: server, timeout: .seconds(10)),
                                  format: NativeBatchFormat(deviceID: deviceID), credentials: DeviceCredentials(token: token))
        queue = UploadQueue(configuration: configuration, backlog: try store.backlog(), backoff: try store.uploadBackoff(),
                            foreground: foreground,
                            online: online, seed: seed, at: now)
        offline = !online
    }

    /// Feeds an event (a deadline when nil) at `now` and carries out every resulting action.
    mutating func feed(_ event: UploadQueueEvent?, at now: Date) async throws {
        var actions = event.map { queue.handle($0, at: now) } ?? queue.deadlineReached(at: now)
        while !actions.isEmpty {
            let action = actions.removeFirst()
            switch action {
            case .send(let key):
                let points = queue.backlog.pending.first { $0.key == key }?.points ?? 0
                let result: UploadQueueEvent
                if offline {
                    result = .sendFinished(key: key, response: .connectionFailed("offline"))
                } else {
                    result = try await executor.send(key: key)
                }
                if case .sendFinished(_, let response) = result { attempts.append(Self.attempt(response, points: points, at: now)) }
                actions += queue.handle(result, at: now)
            case .cancelSend, .device:
                break
            default:
                if let result = try await executor.perform(action, at: now) { actions += queue.handle(result, at: now) }
            }
        }
    }

    /// Runs due deadlines up to `now`.
    mutating func runDeadlines(upTo now: Date) async throws {
        var guardCount = 0
        while let deadline = queue.nextDeadline, deadline <= now, guardCount < 1000 {
            guardCount += 1
            try await feed(nil, at: max(deadline, now))
        }
    }

    /// Sends everything left (the rider opened the app at home, online): flush and drain.
    mutating func drain(from start: Date) async throws -> Date {
        var now = start
        offline = false
        try await feed(.device(.networkReachability(online: true)), at: now)
        try await feed(.device(.willEnterForeground), at: now)
        try await feed(.flush, at: now)
        try await feed(.backlogChanged(try executor.store.backlog()), at: now)
        var steps = 0
        while !queue.backlog.isEmpty, steps < 1000 {
            steps += 1
            guard let deadline = queue.nextDeadline else { try await feed(.flush, at: now); continue }
            now = max(now, deadline)
            try await feed(nil, at: now)
        }
        return now
    }

    private static func attempt(_ response: UploadResponse, points: Int, at now: Date) -> Attempt {
        switch response {
        case .status(let code, _):
            let detail = response.isAcknowledgement ? "acknowledged" : (response.serverMessage ?? "refused")
            return Attempt(time: now, points: points, status: code, detail: detail)
        case .timedOut: return Attempt(time: now, points: points, status: nil, detail: "timed out")
        case .connectionFailed(let reason): return Attempt(time: now, points: points, status: nil, detail: reason)
        case .cancelled: return Attempt(time: now, points: points, status: nil, detail: "cancelled")
        }
    }
}
