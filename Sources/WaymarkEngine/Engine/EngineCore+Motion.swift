import Foundation

extension EngineCore {
    /// The batch number under which the core asks for motion permission on the ride's behalf.
    ///
    /// Its ``PermissionSequencer/Update/outcome(batch:_:)`` reaches the app like any other; apps
    /// number their own batches from 0 upwards and never collide with it.
    public static let motionPermissionBatch = Int.min

    /// Where this process stands with motion permission: starting motion-activity updates while
    /// it is not determined shows the system prompt, so the core asks through the sequencer first.
    enum MotionGate: Hashable, Sendable {
        /// Nothing known in this process yet.
        case unknown
        /// A motion request is queued or on screen.
        case asking
        /// Granted: motion updates may start.
        case granted
        /// Denied, restricted, missing usage description or no answer: motion updates stay off.
        case refused
    }

    /// Holds back `startMotionActivityUpdates` until the permission sequencer has the motion answer.
    ///
    /// On iOS the first motion query shows a system prompt; issued while another prompt (the
    /// notification prompt of a first launch) is on screen it collides (PLATFORM.md §1, §7). So the
    /// ride's start command waits: if the app has not asked for motion already, the core queues a
    /// motion request (batch ``motionPermissionBatch``) behind the app's own requests; once it is
    /// granted the held command is issued, and if it is refused motion updates never start (the
    /// ride tracker then decides from speed alone). A stop command cancels a held start.
    mutating func gateMotion(_ out: inout EngineOutput, at now: Date) {
        for update in out.updates {
            if case .permission(.outcome(_, let outcome)) = update, outcome.request == .motion {
                motionGate = outcome.result == .granted ? .granted : .refused
            }
        }
        var held = false
        out.commands.removeAll { command in
            switch command {
            case .startMotionActivityUpdates where motionGate != .granted:
                held = true
                return true
            case .stopMotionActivityUpdates where motionStartHeld:
                motionStartHeld = false
                return true
            default:
                return false
            }
        }
        if held { motionStartHeld = true }
        if motionStartHeld, motionGate == .unknown, !waitsForAppPrompts {
            motionGate = .asking
            if !permissions.asksForMotion {
                out.absorb(permissions.enqueue([.motion], batch: Self.motionPermissionBatch, at: now), as: EngineUpdate.permission)
                gateMotion(&out, at: now)          // the answer may come at once (a usage description known missing)
                return
            }
        }
        if motionStartHeld, motionGate == .granted {
            motionStartHeld = false
            out.commands.append(.startMotionActivityUpdates)
        } else if motionStartHeld, motionGate == .refused {
            motionStartHeld = false
        }
    }
}

extension EngineCore {
    /// Whether the motion request automatic tracking needs waits for the app's own prompts.
    ///
    /// Automatic tracking starts motion at every launch, before the app has asked for anything;
    /// the app's first-launch prompts (notifications, location) come first, and motion, useless
    /// without location, is asked once location is determined.
    var waitsForAppPrompts: Bool {
        guard configuration.ride.automatic.enabled else { return false }
        return launchStep || (permissions.authorization?.status ?? .notDetermined) == .notDetermined
    }
}

extension PermissionSequencer {
    /// Whether a motion request is queued or waiting for its answer.
    var asksForMotion: Bool {
        waiting?.what == .motionAnswer || queue.contains { $0.request == .motion }
    }
}
