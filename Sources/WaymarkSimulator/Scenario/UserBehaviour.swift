import Foundation
import WaymarkEngine
import WaymarkGeo

/// What the user does: prompt answers and actions at times.
public struct UserBehaviour: Hashable, Sendable, Codable {
    /// Answers per prompt kind; "allow" after the default think time when absent.
    public var prompts: [PromptKind: PromptResponse]?
    /// Actions in time order.
    public var actions: [UserAction]?

    /// Makes user behaviour.
    public init(prompts: [PromptKind: PromptResponse]? = nil, actions: [UserAction]? = nil) {
        self.prompts = prompts
        self.actions = actions
    }
}

/// The system prompts.
public enum PromptKind: String, Hashable, Sendable, Codable, CaseIterable, CodingKeyRepresentable {
    /// Notifications (alert, sound, badge).
    case notifications
    /// Location while using the app (with "Allow Once" and "Precise").
    case locationWhenInUse
    /// The one-time upgrade from when-in-use to always; its answer also decides the confirmation
    /// iOS shows for provisional Always ("Change to Always Allow" = allow, "Keep Only While Using"
    /// = deny).
    case locationAlways
    /// Motion & Fitness.
    case motion
    /// Temporary full accuracy while the user chose approximate location
    /// (`requestTemporaryFullAccuracyAuthorization(withPurposeKey:)`); allow or deny.
    case temporaryFullAccuracy
}

/// How the user answers one prompt.
public struct PromptResponse: Hashable, Sendable, Codable {
    /// The answer.
    public var answer: Answer
    /// Seconds before answering; the platform's think time when absent.
    public var thinkSeconds: Double?
    /// Whether "Precise" stays on (location prompts); true when absent.
    public var preciseLocation: Bool?

    /// Makes a response.
    public init(_ answer: Answer, thinkSeconds: Double? = nil, preciseLocation: Bool? = nil) {
        self.answer = answer
        self.thinkSeconds = thinkSeconds
        self.preciseLocation = preciseLocation
    }

    /// Prompt answers; `allowOnce` applies to location when-in-use only.
    public enum Answer: String, Hashable, Sendable, Codable, CaseIterable {
        /// Allow (for location: while using the app, or always for the upgrade prompt).
        case allow
        /// Allow once: when-in-use for this process only.
        case allowOnce
        /// Don't allow.
        case deny
    }
}
