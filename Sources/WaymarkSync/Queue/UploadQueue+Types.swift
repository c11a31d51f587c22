import Foundation
import WaymarkEngine
import WaymarkGeo

extension UploadQueue {
    /// Batching, backoff and background-budget limits.
    ///
    /// A `Sendable` value type; times in seconds, sizes in bytes of the encoded body.
    public struct Configuration: Hashable, Sendable {
        /// Most points in one batch.
        public var maxBatchPoints: Int
        /// Largest encoded batch body, in bytes (one point is always allowed).
        public var maxBatchBytes: Int
        /// Unbatched points older than this (by fix timestamp) are sent even if the batch is small, s.
        public var maxBatchAge: TimeInterval
        /// First backoff ceiling after a failure, s; doubles with each further failure.
        public var backoffBase: TimeInterval
        /// Largest backoff ceiling, s. The actual wait is uniform in [0, ceiling] (full jitter).
        public var backoffCap: TimeInterval
        /// Background time iOS gives after entering the background or a background wake, s.
        public var backgroundBudget: TimeInterval
        /// No upload starts in the background with less budget than this left, s; keep it at
        /// least the transport's timeout.
        public var minimumBudget: TimeInterval
        /// On 409 or 422 for a batch of several points, split it to find the refused points and
        /// quarantine only them; when false the whole batch is quarantined.
        public var isolateRejectedPoints: Bool
        /// First identifier used for `beginBackgroundTask` commands (keeps clear of other components).
        public var backgroundTaskIDBase: Int
        /// Most points in one batch handed to the system when the app is about to be suspended
        /// (``UploadDriver`` with a `HandOffUploadTransport`): fewer, larger transfers, as Apple asks of
        /// background sessions ("Downloading files in the background").
        public var handOffBatchPoints: Int
        /// Largest encoded body of such a batch, in bytes.
        public var handOffBatchBytes: Int
        /// A geofence event waits at most this long (after the engine decided it) before a batch
        /// is formed to carry it, s. The default, 0, sends an arrival as soon as it is stored, with
        /// whatever fixes wait: an app that tells its server "arrived at school" wants it there now,
        /// and events are few.
        public var maxFenceEventAge: TimeInterval

        /// Makes a configuration; the defaults suit a phone on a cellular network.
        ///
        /// - precondition: positive batch limits; a positive, finite backoff base no larger than a
        ///   finite cap; no negative age or budget (the message names every offending field).
        public init(maxBatchPoints: Int = 500, maxBatchBytes: Int = 256 * 1024, maxBatchAge: TimeInterval = 120,
                    backoffBase: TimeInterval = 2, backoffCap: TimeInterval = 600,
                    backgroundBudget: TimeInterval = 25, minimumBudget: TimeInterval = 10,
                    isolateRejectedPoints: Bool = true, backgroundTaskIDBase: Int = 6_000,
                    handOffBatchPoints: Int = 5_000, handOffBatchBytes: Int = 2 * 1024 * 1024,
                    maxFenceEventAge: TimeInterval = 0) {
            self.maxFenceEventAge = maxFenceEventAge
            self.maxBatchPoints = maxBatchPoints
            self.maxBatchBytes = maxBatchBytes
            self.maxBatchAge = maxBatchAge
            self.backoffBase = backoffBase
            self.backoffCap = backoffCap
            self.backgroundBudget = backgroundBudget
            self.minimumBudget = minimumBudget
            self.isolateRejectedPoints = isolateRejectedPoints
            self.backgroundTaskIDBase = backgroundTaskIDBase
            self.handOffBatchPoints = handOffBatchPoints
            self.handOffBatchBytes = handOffBatchBytes
            ContractCheck.require(contractViolations, in: "UploadQueue.Configuration")
        }

        /// What breaks ``UploadQueue``'s contract (see `ContractCheck`); empty for a usable configuration.
        var contractViolations: [String] {
            var check = ContractCheck()
            check.require(maxBatchPoints > 0, "maxBatchPoints must be positive, not \(maxBatchPoints)")
            check.require(maxBatchBytes > 0, "maxBatchBytes must be positive, not \(maxBatchBytes)")
            check.require(handOffBatchPoints > 0, "handOffBatchPoints must be positive, not \(handOffBatchPoints)")
            check.require(handOffBatchBytes > 0, "handOffBatchBytes must be positive, not \(handOffBatchBytes)")
            check.nonNegative("maxBatchAge", maxBatchAge)
            check.nonNegative("maxFenceEventAge", maxFenceEventAge)
            check.finitePositive("backoffBase", backoffBase)
            check.require(backoffCap >= backoffBase && backoffCap.isFinite,
                          "backoffCap (\(backoffCap)) must be finite and at least backoffBase (\(backoffBase))")
            check.nonNegative("backgroundBudget", backgroundBudget)
            check.nonNegative("minimumBudget", minimumBudget)
            return check.violations
        }
    }

    /// What the queue is doing.
    public enum Phase: Hashable, Sendable {
        /// Deciding on the next step (or waiting for a deadline or an event).
        case idle
        /// Waiting for the store to carry out a batch action (form, acknowledge, split, quarantine).
        case updatingStore
        /// Waiting for the answer to sending the batch with this key.
        case sending(key: String)
        /// Waiting for the credential-refresh hook.
        case refreshingCredentials
    }
}

/// Something the ``UploadQueue`` is told.
///
/// A `Sendable` value type.
public enum UploadQueueEvent: Hashable, Sendable {
    /// The store's backlog now looks like this (after recording, or after a store action).
    case backlogChanged(UploadBacklog)
    /// A device event (reachability, lifecycle, background-task expiry, location deliveries).
    case device(DeviceEvent)
    /// Sending a batch finished with this response.
    case sendFinished(key: String, response: UploadResponse)
    /// The credential-refresh hook finished.
    case credentialsRefreshed(succeeded: Bool)
    /// Send everything now, however small the batch (app going away, user pulled to refresh).
    case flush
}

/// Something the ``UploadQueue`` asks its driver to do; the driver reports back with an event.
///
/// A `Sendable` value type.
public enum UploadAction: Hashable, Sendable {
    /// Form a batch from the oldest unbatched fixes, then report `.backlogChanged`.
    case formBatch(maxPoints: Int, maxBytes: Int)
    /// Send the batch, then report `.sendFinished`.
    case send(key: String)
    /// Abandon the send in flight (its batch stays pending, to be sent again under the same key).
    case cancelSend(key: String)
    /// Delete the acknowledged batch and its fixes, except the points the server listed as
    /// rejected, which are quarantined with its reasons; then report `.backlogChanged`.
    case acknowledge(key: String, rejected: [UploadRejection])
    /// Split the batch in two, then report `.backlogChanged`.
    case split(key: String)
    /// Quarantine the batch with this reason, then report `.backlogChanged`.
    case quarantine(key: String, reason: String)
    /// Call the credential-refresh hook, then report `.credentialsRefreshed`.
    case refreshCredentials
    /// Persist the retry state (so a relaunch keeps waiting); no event is reported back.
    case saveBackoff(UploadBackoff)
    /// Perform a device command (`beginBackgroundTask`, `endBackgroundTask`).
    case device(DeviceCommand)
}
