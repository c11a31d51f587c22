import Foundation
import WaymarkEngine
import WaymarkGeo

/// How motion activity is produced.
public struct MotionSetup: Hashable, Sendable, Codable {
    /// `derived` from the route's true activity (with lag), or `scripted`.
    public var mode: Mode
    /// The scripted classifications (mode `scripted`), reported at their times as given.
    public var script: [ScriptedActivity]?

    /// Makes a motion setup.
    public init(mode: Mode, script: [ScriptedActivity]? = nil) {
        self.mode = mode
        self.script = script
    }

    /// Modes.
    public enum Mode: String, Hashable, Sendable, Codable, CaseIterable {
        /// Classified from the route's speed and activities, with the platform's lag.
        case derived
        /// Reported exactly as the script says, at its times.
        case scripted
    }

    /// A scripted classification.
    public struct ScriptedActivity: Hashable, Sendable, Codable {
        /// Seconds since the start.
        public var at: Double
        /// The activity.
        public var activity: MotionActivity.Kind
        /// The confidence; high when absent.
        public var confidence: MotionActivity.Confidence?

        /// Makes a scripted classification.
        public init(at: Double, activity: MotionActivity.Kind, confidence: MotionActivity.Confidence? = nil) {
            self.at = at
            self.activity = activity
            self.confidence = confidence
        }
    }
}
