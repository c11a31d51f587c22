import Foundation
import WaymarkGeo

/// Shows permission prompts one at a time, in the order asked, so that they never collide.
///
/// Each request waits for the user's answer, for notifications also the remote-registration
/// token or failure, or a timeout, before the next one is issued. Location requests are decided
/// from the authorization callback: already-determined permissions are skipped without a prompt.
/// A location or motion request that gets no callback within the timeout is reported as
/// ``PermissionResult/misconfigured(missingUsageDescription:)``: that is how a missing Info.plist
/// key looks on iOS (PLATFORM.md §1). Declaring the keys in ``Configuration/declaredUsageDescriptions``
/// reports it at once instead.
///
/// A pure state machine: no clock, no OS. Time comes from the `at:` arguments; call
/// ``deadlineReached(at:)`` at ``nextDeadline``.
///
/// ```swift
/// var sequencer = PermissionSequencer(memory: stored)
/// var out = sequencer.enqueue([.notifications([.alert]), .locationWhenInUse], batch: 1, at: now)
/// // perform out.commands; feed device events to sequencer.handle(_:at:) ...
/// ```
///
/// A `Sendable` value type; owned by one task (the ``Engine`` or a simulated app).
public struct PermissionSequencer: Sendable {
    /// Timeouts and the declared Info.plist keys.
    public struct Configuration: Hashable, Sendable {
        /// How long to wait for the answer to a prompt, in seconds (default 30).
        public var promptTimeout: TimeInterval
        /// How long to wait for the remote-registration token or failure, in seconds (default 10).
        public var remoteRegistrationTimeout: TimeInterval
        /// Whether a granted notification permission is followed by remote registration (default true).
        public var registersForRemoteNotifications: Bool
        /// The usage-description keys the app's Info.plist declares, when known; nil means unknown
        /// (a missing key is then detected by the timeout).
        public var declaredUsageDescriptions: Set<UsageDescriptionKey>?

        /// Makes a configuration.
        public init(promptTimeout: TimeInterval = 30, remoteRegistrationTimeout: TimeInterval = 10,
                    registersForRemoteNotifications: Bool = true,
                    declaredUsageDescriptions: Set<UsageDescriptionKey>? = nil) {
            self.promptTimeout = promptTimeout
            self.remoteRegistrationTimeout = remoteRegistrationTimeout
            self.registersForRemoteNotifications = registersForRemoteNotifications
            self.declaredUsageDescriptions = declaredUsageDescriptions
        }
    }

    /// What the sequencer publishes.
    public enum Update: Hashable, Sendable {
        /// One request of a batch finished.
        case outcome(batch: Int, PermissionOutcome)
        /// Every request of a batch finished; outcomes in the order asked.
        case batchCompleted(batch: Int, [PermissionOutcome])
        /// The memory changed; the app should store it.
        case memoryChanged(PermissionMemory)
        /// The location authorization changed (including the first callback of the launch).
        case authorizationChanged(LocationAuthorization)
    }

    /// The output type of every step.
    public typealias Output = ComponentOutput<Update>

    struct Queued: Hashable, Sendable {
        var batch: Int
        var request: PermissionRequest
    }

    enum Waiting: Hashable, Sendable {
        case locationStatus
        case notificationAnswer
        case remoteRegistration
        case locationAnswer
        case motionAnswer
        case alwaysAnswer
    }

    /// The configuration in force.
    public internal(set) var configuration: Configuration
    /// The persisted memory (see ``PermissionMemory``).
    public internal(set) var memory: PermissionMemory
    /// The latest location authorization callback, nil before the first one of this launch.
    public internal(set) var authorization: LocationAuthorization?
    var queue: [Queued] = []
    var batches: [Int: (expected: Int, outcomes: [PermissionOutcome])] = [:]
    var waiting: (what: Waiting, deadline: Date)?
    var whenInUsePromptedThisProcess = false

    /// Makes a sequencer with the app's stored memory.
    ///
    /// - precondition: both of `configuration`'s timeouts are positive and finite.
    public init(configuration: Configuration = Configuration(), memory: PermissionMemory = PermissionMemory()) {
        var check = ContractCheck()
        check.finitePositive("promptTimeout", configuration.promptTimeout)
        check.finitePositive("remoteRegistrationTimeout", configuration.remoteRegistrationTimeout)
        ContractCheck.require(check.violations, in: "PermissionSequencer.Configuration")
        self.configuration = configuration
        self.memory = memory
    }

    /// When the sequencer must be woken with ``deadlineReached(at:)``; nil when nothing times out.
    public var nextDeadline: Date? { waiting?.deadline }

    /// Whether a request is in flight or queued.
    public var isBusy: Bool { waiting != nil || !queue.isEmpty }

    /// Queues `requests` as one batch; its outcomes are published together under `batch`.
    public mutating func enqueue(_ requests: [PermissionRequest], batch: Int, at now: Date) -> Output {
        var out = Output()
        batches[batch] = (requests.count, [])
        queue += requests.map { Queued(batch: batch, request: $0) }
        if requests.isEmpty {
            batches[batch] = nil
            out.updates.append(.batchCompleted(batch: batch, []))
        }
        advance(at: now, into: &out)
        return out
    }

    /// Handles one device event.
    public mutating func handle(_ event: DeviceEvent, at now: Date) -> Output {
        var out = Output()
        switch event {
        case .authorizationChanged(let auth):
            if auth != authorization { out.updates.append(.authorizationChanged(auth)) }
            authorization = auth
            receiveAuthorization(auth, at: now, into: &out)
        case .notificationAuthorization(let granted) where waiting?.what == .notificationAnswer:
            if granted && configuration.registersForRemoteNotifications {
                waiting = (.remoteRegistration, now.addingTimeInterval(configuration.remoteRegistrationTimeout))
                out.commands.append(.registerForRemoteNotifications)
            } else {
                finish(granted ? .granted : .denied, into: &out)
            }
        case .remoteRegistration(let registration) where waiting?.what == .remoteRegistration:
            finish(.granted, remoteRegistration: registration, into: &out)
        case .motionAuthorization(let granted) where waiting?.what == .motionAnswer:
            finish(granted ? .granted : .denied, into: &out)
        default:
            return out
        }
        advance(at: now, into: &out)
        return out
    }

    /// Handles the wake-up at ``nextDeadline``; does nothing if `now` is earlier.
    public mutating func deadlineReached(at now: Date) -> Output {
        var out = Output()
        guard let waiting, now >= waiting.deadline else { return out }
        switch waiting.what {
        case .locationStatus, .notificationAnswer:
            finish(.timedOut, into: &out)
        case .remoteRegistration:
            finish(.granted, into: &out)
        case .locationAnswer:
            finish(.misconfigured(missingUsageDescription: .locationWhenInUse), into: &out)
        case .motionAnswer:
            finish(.misconfigured(missingUsageDescription: .motion), into: &out)
        case .alwaysAnswer:
            // After a when-in-use prompt in this process the grant may be "Allow Once", under which
            // iOS ignores the upgrade request: that is not a configuration error.
            finish(whenInUsePromptedThisProcess ? .timedOut
                   : .misconfigured(missingUsageDescription: .locationAlwaysAndWhenInUse), into: &out)
        }
        advance(at: now, into: &out)
        return out
    }
}
