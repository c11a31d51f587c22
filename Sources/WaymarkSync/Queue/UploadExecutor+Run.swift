import Foundation
import WaymarkEngine

/// The part of an action that only the runner of a queue can carry out: ``UploadDriver`` sends in
/// a task of its own, the simulated-time uploader inline.
public enum UploadEffect: Hashable, Sendable {
    /// Send the pending batch with this key.
    case send(key: String)
    /// Cancel the send in flight.
    case cancelSend
    /// Hand this command to the device (background tasks).
    case device(DeviceCommand)
}

/// What a runner answers for an ``UploadEffect``.
public enum UploadEffectResult: Sendable {
    /// Nothing to feed back now (a send in a task of its own reports later).
    case done
    /// Feed this event to the queue and carry out what it answers.
    case feed(UploadQueueEvent)
    /// Stop here: the process died before it could act (fault injection).
    case stop
}

extension UploadExecutor {
    /// Carries out a queue's actions in order: the one loop every runner of an ``UploadQueue`` uses.
    ///
    /// Store and credential actions are performed here and their results fed back through
    /// `handle`, whose new actions join the list; sends, cancels and device commands go to
    /// `effect`. Runs on the caller's isolation, so `handle` and `effect` may touch its state.
    ///
    /// - parameter actions: what the queue answered, in order.
    /// - parameter now: the time to stamp store actions with.
    /// - parameter handle: feeds an event back to the queue and returns its new actions.
    /// - parameter effect: carries out a send, a cancel or a device command.
    /// - parameter storeFailed: called when a store or credential action throws; rethrow to stop,
    ///   or return to go on with the next action (the queue then waits for a `.backlogChanged`).
    /// - parameter isolation: the caller's actor (inferred), on which the whole loop runs.
    /// - returns: false when `effect` answered ``UploadEffectResult/stop``.
    public func run(_ actions: [UploadAction], at now: () -> Date,
                    handle: (UploadQueueEvent) -> [UploadAction],
                    effect: (UploadEffect) async throws -> UploadEffectResult,
                    storeFailed: (UploadAction, any Error) throws -> Void,
                    isolation: isolated (any Actor)? = #isolation) async throws -> Bool {
        var actions = actions
        while !actions.isEmpty {
            let action = actions.removeFirst()
            let result: UploadEffectResult
            switch action {
            case .send(let key): result = try await effect(.send(key: key))
            case .cancelSend: result = try await effect(.cancelSend)
            case .device(let command): result = try await effect(.device(command))
            default:
                do {
                    result = try await perform(action, at: now()).map(UploadEffectResult.feed) ?? .done
                } catch {
                    try storeFailed(action, error)
                    result = .done
                }
            }
            switch result {
            case .done: break
            case .feed(let event): actions += handle(event)
            case .stop: return false
            }
        }
        return true
    }
}
