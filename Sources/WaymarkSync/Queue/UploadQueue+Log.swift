import Foundation
import WaymarkEngine

extension UploadQueue {
    /// Handles `event` as ``handle(_:at:)`` does and writes what it learnt to `log`: the outcome of
    /// a finished send (accepted, accepted with points rejected, refused and split, rejected and
    /// quarantined, unauthorized, failed with the retry it scheduled, cancelled) and the result of
    /// a credential refresh. Both runners (``UploadDriver`` and the simulated phone's uploader) feed
    /// the queue through this, so the field log has every upload outcome.
    public mutating func handle(_ event: UploadQueueEvent, at now: Date, log: FieldLog?) -> [UploadAction] {
        guard let log else { return handle(event, at: now) }
        switch event {
        case .sendFinished(let key, let response):
            guard phase == .sending(key: key) else { return handle(event, at: now) }
            let points = backlog.pending.first { $0.key == key }?.points ?? 0
            let actions = handle(event, at: now)
            log.record(outcome(key: key, points: points, response: response, actions: actions, at: now))
            return actions
        case .credentialsRefreshed(let succeeded):
            log.record(succeeded ? .info : .warning, .upload,
                       succeeded ? "device credentials refreshed" : "device credentials could not be refreshed; retrying later",
                       at: now)
            return handle(event, at: now)
        default:
            return handle(event, at: now)
        }
    }

    /// The field-log entry for a send's outcome, from the queue's state after it decided.
    func outcome(key: String, points: Int, response: UploadResponse, actions: [UploadAction], at now: Date) -> FieldLogEntry {
        let batch = "batch \(key) (\(points) point\(points == 1 ? "" : "s"))"
        func entry(_ level: FieldLogLevel, _ message: String) -> FieldLogEntry {
            FieldLogEntry(time: now, level: level, category: .upload, message: message)
        }
        let http: String = switch response {
        case .status(let code, _): "HTTP \(code)" + (response.serverMessage.map { ": \(Self.short($0))" } ?? "")
        case .timedOut: "timed out"
        case .connectionFailed(let reason): "connection failed: \(Self.short(reason))"
        case .cancelled: "cancelled"
        }
        for action in actions {
            switch action {
            case .acknowledge(_, let rejected) where rejected.isEmpty:
                return entry(.info, "upload accepted: \(batch), \(http.prefix { $0 != ":" })")
            case .acknowledge(_, let rejected):
                let reasons = rejected.prefix(3).map { "#\($0.index) \(Self.short($0.reason))" }.joined(separator: "; ")
                return entry(.warning, "upload accepted with \(rejected.count) of \(points) points rejected by the server "
                             + "(kept aside, never sent again): \(batch): \(reasons)")
            case .split:
                return entry(.notice, "upload refused (\(http)): \(batch) split in two to find what the server takes")
            case .quarantine(_, let reason):
                return entry(.error, "upload rejected: \(batch) kept aside, never sent again: \(Self.short(reason))")
            default:
                continue
            }
        }
        if response == .cancelled {
            return entry(.notice, "upload cancelled (background time ran out or the app stopped it): \(batch) stays pending, same key")
        }
        if case .status(let code, _) = response, code == 401 || code == 403 {
            return entry(.warning, "upload unauthorized (\(http)): \(batch); refreshing the device's credentials")
        }
        let retry = retryAt.map { " in \(Int($0.timeIntervalSince(now).rounded())) s" } ?? " when the network returns"
        return entry(.warning, "upload failed (\(http)): \(batch), attempt \(failures) in a row; retried\(retry), same key")
    }

    /// A server's or transport's text, cut to one short line.
    static func short(_ text: String) -> String {
        let line = text.replacingOccurrences(of: "\n", with: " ")
        return line.count > 160 ? String(line.prefix(157)) + "…" : line
    }
}
