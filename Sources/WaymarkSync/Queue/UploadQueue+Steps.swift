import Foundation
import WaymarkEngine

extension UploadQueue {
    /// Decides the next action when idle: form a batch, refresh credentials, send, or rest.
    mutating func step(at now: Date) -> [UploadAction] {
        guard phase == .idle else { return [] }
        if let due = retryAt, due <= now { retryAt = nil }
        guard let next = backlog.pending.first else {
            if backlog.hasUnbatched, shouldFormBatch(at: now) {
                phase = .updatingStore
                return [.formBatch(maxPoints: configuration.maxBatchPoints, maxBytes: configuration.maxBatchBytes)]
            }
            return endBackgroundTask()
        }
        guard online, retryAt == nil else { return endBackgroundTask() }
        var actions: [UploadAction] = []
        if !foreground {
            let remaining = (windowStart ?? now).addingTimeInterval(configuration.backgroundBudget).timeIntervalSince(now)
            guard !budgetExhausted, remaining >= configuration.minimumBudget else {
                budgetExhausted = true
                return endBackgroundTask()
            }
        }
        if backgroundTask == nil {
            backgroundTask = nextTaskID
            nextTaskID += 1
            actions.append(.device(.beginBackgroundTask(id: backgroundTask!)))
        }
        if needsCredentials {
            phase = .refreshingCredentials
            return actions + [.refreshCredentials]
        }
        phase = .sending(key: next.key)
        return actions + [.send(key: next.key)]
    }

    func shouldFormBatch(at now: Date) -> Bool {
        if flushRequested || backlog.unbatchedPoints >= configuration.maxBatchPoints
            || backlog.unbatchedBytes >= configuration.maxBatchBytes { return true }
        guard let due = formBatchDue else { return false }
        return now >= due
    }

    /// When the oldest unbatched entry has waited long enough: fixes and gap markers
    /// ``Configuration/maxBatchAge``, geofence events ``Configuration/maxFenceEventAge``.
    var formBatchDue: Date? {
        let byAge = backlog.oldestUnbatched.map { $0.addingTimeInterval(configuration.maxBatchAge) }
        let byEvent = backlog.oldestUnbatchedFenceEvent.map { $0.addingTimeInterval(configuration.maxFenceEventAge) }
        return [byAge, byEvent].compactMap { $0 }.min()
    }

    mutating func endBackgroundTask() -> [UploadAction] {
        guard let id = backgroundTask else { return [] }
        backgroundTask = nil
        return [.device(.endBackgroundTask(id: id))]
    }

    mutating func handleDevice(_ event: DeviceEvent, at now: Date) -> [UploadAction] {
        switch event {
        case .networkReachability(let reachable):
            // Coming back online ends the wait; a report that it still is (a new process's first
            // path update) keeps the backoff saved by the previous process.
            if reachable && !online { retryAt = nil }
            online = reachable
        case .didEnterBackground:
            foreground = false
            freshWindow(at: now)
            flushRequested = true
        case .willEnterForeground:
            foreground = true
            budgetExhausted = false
        case .launched(let reason):
            foreground = reason == .user
            freshWindow(at: now)
        case .locations, .significantChange, .regionEntered, .regionExited:
            // The app is running in the background for location: iOS gives it time again.
            if !foreground { freshWindow(at: now) }
        case .appRefresh:
            // iOS runs the app for its app-refresh task (the engine's heartbeat): time to send what waits.
            if !foreground { freshWindow(at: now) }
            flushRequested = true
        case .backgroundTaskExpired(let id):
            guard id == backgroundTask else { return [] }
            var actions: [UploadAction] = []
            if case .sending(let key) = phase {
                phase = .idle
                actions.append(.cancelSend(key: key))
            }
            if !foreground { budgetExhausted = true }
            return actions + endBackgroundTask()
        default:
            break
        }
        return []
    }

    mutating func freshWindow(at now: Date) {
        windowStart = now
        budgetExhausted = false
    }

    mutating func handleResponse(_ response: UploadResponse, key: String, at now: Date) -> [UploadAction] {
        guard case .sending(let sending) = phase, sending == key else { return [] }
        phase = .idle
        let points = backlog.pending.first { $0.key == key }?.points ?? 1
        if response.isAcknowledgement {
            failures = 0
            retryAt = nil
            consecutiveUnauthorized = 0
            phase = .updatingStore
            return [.acknowledge(key: key, rejected: response.rejections)]
        }
        guard case .status(let code, _) = response else {
            if response != .cancelled { scheduleRetry(at: now) }
            return []
        }
        if code != 401 && code != 403 { consecutiveUnauthorized = 0 }
        let detail = response.serverMessage.map { ": \($0)" } ?? ""
        switch code {
        case 401, 403:
            needsCredentials = true
            consecutiveUnauthorized += 1
            if consecutiveUnauthorized > 1 { scheduleRetry(at: now) }
            return []
        case 413 where points > 1:
            phase = .updatingStore
            return [.split(key: key)]
        case 413:
            phase = .updatingStore
            return [.quarantine(key: key, reason: "HTTP 413: one point is larger than the server accepts\(detail)")]
        case 409, 422:
            phase = .updatingStore
            if configuration.isolateRejectedPoints && points > 1 { return [.split(key: key)] }
            return [.quarantine(key: key, reason: "HTTP \(code): the server refused the batch\(detail)")]
        case 400:
            phase = .updatingStore
            return [.quarantine(key: key, reason: "HTTP 400: the server could not read the batch\(detail)")]
        default:
            scheduleRetry(at: now)
            return []
        }
    }
}

extension UploadQueue {
    /// What the queue needs of a device event, so callers can forward events cheaply: network,
    /// lifecycle, background-task and location-wake events as they are; a location delivery without
    /// its fixes (only the fact that iOS ran the app for location matters); nil for anything else.
    /// The same filter as `DeviceEvent.systemPart`, which the engine's `system.events` applies.
    public static func relevantPart(of event: DeviceEvent) -> DeviceEvent? { event.systemPart }
}
