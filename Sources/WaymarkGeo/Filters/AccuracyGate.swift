/// Drops fixes whose horizontal accuracy is worse than a limit.
///
/// Accuracy is the 68% radius in metres (``Fix/horizontalAccuracy``). A negative
/// accuracy (CoreLocation's "invalid") is always dropped; a missing one is kept
/// unless ``acceptsUnknownAccuracy`` is false. A `Sendable` value type.
public struct AccuracyGate: FixFilter {
    /// Largest accepted horizontal accuracy radius, metres.
    public var maximumHorizontalAccuracy: Double
    /// Whether fixes without a horizontal accuracy pass.
    public var acceptsUnknownAccuracy: Bool

    /// Makes a gate at `maximumHorizontalAccuracy` metres.
    public init(maximumHorizontalAccuracy: Double, acceptsUnknownAccuracy: Bool = true) {
        self.maximumHorizontalAccuracy = maximumHorizontalAccuracy
        self.acceptsUnknownAccuracy = acceptsUnknownAccuracy
    }

    /// Returns `fix` if its accuracy is good enough.
    public mutating func process(_ fix: Fix) -> Fix? {
        guard let accuracy = fix.horizontalAccuracy else { return acceptsUnknownAccuracy ? fix : nil }
        return accuracy >= 0 && accuracy <= maximumHorizontalAccuracy ? fix : nil
    }
}
