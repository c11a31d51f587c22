/// A motion-activity classification with its confidence (`CMMotionActivity`).
public struct MotionActivity: Hashable, Sendable, Codable {
    /// What the device is doing.
    public var kind: Kind
    /// How sure the classifier is.
    public var confidence: Confidence

    /// Makes a classification.
    public init(_ kind: Kind, confidence: Confidence) {
        self.kind = kind
        self.confidence = confidence
    }

    /// The activity kinds iOS distinguishes.
    public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
        case stationary, walking, running, cycling, automotive, unknown
    }

    /// Classifier confidence.
    public enum Confidence: String, Hashable, Sendable, Codable, CaseIterable, Comparable {
        case low, medium, high

        private var rank: Int { self == .low ? 0 : self == .medium ? 1 : 2 }
        public static func < (a: Confidence, b: Confidence) -> Bool { a.rank < b.rank }
    }
}

