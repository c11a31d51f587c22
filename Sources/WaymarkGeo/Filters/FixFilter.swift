/// One step of a pipeline that cleans a stream of fixes: it passes, changes or drops each fix.
///
/// Filters are small value types whose state is only what they have seen, so they
/// work online (call ``process(_:)`` as fixes arrive) and offline (over an array).
/// Chain them with ``then(_:)``:
///
/// ```swift
/// var pipeline = TimestampOrderFilter()
///     .then(AccuracyGate(maximumHorizontalAccuracy: 50))
///     .then(SpeedOutlierFilter(maximumSpeed: 70))
///     .then(KalmanFilter())
/// for fix in incoming { if let clean = pipeline.process(fix) { store(clean) } }
/// let cleaned = recordedFixes.filtered(through: pipeline)
/// ```
///
/// Conforming types are `Sendable` values; a filter instance is used from one task at a time.
public protocol FixFilter: Sendable {
    /// Returns the fix to pass on (possibly changed), or nil to drop it.
    mutating func process(_ fix: Fix) -> Fix?
}

extension FixFilter {
    /// A filter that runs `self`, then `next` on whatever `self` passed on.
    public func then<Next: FixFilter>(_ next: Next) -> FixFilterChain<Self, Next> {
        FixFilterChain(first: self, second: next)
    }
}

/// Two filters run one after the other; made by ``FixFilter/then(_:)``.
public struct FixFilterChain<First: FixFilter, Second: FixFilter>: FixFilter {
    /// The filter that sees each fix first.
    public var first: First
    /// The filter that sees what ``first`` passes on.
    public var second: Second

    /// Chains `first` and `second`.
    public init(first: First, second: Second) {
        self.first = first
        self.second = second
    }

    /// Runs ``first``, then ``second`` on its output.
    public mutating func process(_ fix: Fix) -> Fix? {
        guard let passed = first.process(fix) else { return nil }
        return second.process(passed)
    }
}

extension Sequence where Element == Fix {
    /// The fixes that `filter` passes on, in order; `filter` starts from the state it is given.
    public func filtered(through filter: some FixFilter) -> [Fix] {
        var filter = filter
        return compactMap { filter.process($0) }
    }
}
