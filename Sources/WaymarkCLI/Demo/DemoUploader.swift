import Foundation
import WaymarkEngine
import WaymarkSync

/// The app's upload side in the demo: WaymarkSync's ``VirtualTimeUploader`` over the device's
/// ``RideStore`` and real HTTP, on the simulation's virtual clock, plus the demo's way of
/// describing attempts and of sending what is left at home. One uploader lives as long as one app
/// process.
struct DemoUploader {
    /// One finished upload attempt, for the timeline.
    struct Attempt: Hashable, Sendable {
        var time: Date
        var points: Int
        /// HTTP status, or nil when no answer came (offline, timeout, broken connection).
        var status: Int?
        var detail: String
    }

    var uploader: VirtualTimeUploader

    init(store: RideStore, server: URL, token: String, deviceID: String, configuration: UploadQueue.Configuration,
         seed: UInt64, now: Date, foreground: Bool, online: Bool) throws {
        uploader = try VirtualTimeUploader(store: store, transport: try HTTPUploadTransport(server: server, timeout: .seconds(10)),
                                           credentials: DeviceCredentials(token: token), configuration: configuration,
                                           deviceID: deviceID, seed: seed, now: now, foreground: foreground, online: online)
    }

    /// While true the simulated radio is off.
    var offline: Bool {
        get { uploader.offline }
        set { uploader.offline = newValue }
    }

    /// Every finished attempt, in order.
    var attempts: [Attempt] { uploader.sends.map(Self.attempt) }

    /// Feeds an event (a deadline when nil) at `now` and carries out every resulting action.
    mutating func feed(_ event: UploadQueueEvent?, at now: Date) async throws {
        try await uploader.feed(event, at: now)
    }

    /// Runs due deadlines up to `now`.
    mutating func runDeadlines(upTo now: Date) async throws {
        try await uploader.runDeadlines(upTo: now)
    }

    /// Sends everything left (the rider opened the app at home, online): flush and drain.
    mutating func drain(from start: Date) async throws -> Date {
        var now = start
        uploader.offline = false
        try await feed(.device(.networkReachability(online: true)), at: now)
        try await feed(.device(.willEnterForeground), at: now)
        try await feed(.flush, at: now)
        try await feed(.backlogChanged(try uploader.executor.store.backlog()), at: now)
        var steps = 0
        while !uploader.queue.backlog.isEmpty, steps < 1000 {
            steps += 1
            guard let deadline = uploader.queue.nextDeadline else { try await feed(.flush, at: now); continue }
            now = max(now, deadline)
            try await feed(nil, at: now)
        }
        return now
    }

    private static func attempt(_ send: VirtualTimeUploader.Send) -> Attempt {
        let response = send.response
        switch response {
        case .status(let code, _):
            let detail = response.isAcknowledgement ? "acknowledged" : (response.serverMessage ?? "refused")
            return Attempt(time: send.at, points: send.points, status: code, detail: detail)
        case .timedOut: return Attempt(time: send.at, points: send.points, status: nil, detail: "timed out")
        case .connectionFailed(let reason): return Attempt(time: send.at, points: send.points, status: nil, detail: reason)
        case .cancelled: return Attempt(time: send.at, points: send.points, status: nil, detail: "cancelled")
        }
    }
}
