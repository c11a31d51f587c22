/// The most fence events one ingest request may cause, in all and at one point.
///
/// A request past either limit is refused whole (413, naming the limit) and nothing of it is stored, so
/// no request can create unbounded events, webhook deliveries or reply entries. The defaults leave room
/// for any real track: a phone's 500-point batch crossing a dense city of fences causes a few hundred.
/// A `Sendable` value.
public struct FenceEventLimits: Hashable, Sendable {
    /// Most events one request may cause.
    public var perRequest: Int
    /// Most events one point may cause (its own enters, exits and dwells, and the crossings of the segment
    /// that leads to it).
    public var perPoint: Int

    /// Makes limits; both must be at least 1.
    public init(perRequest: Int = 10_000, perPoint: Int = 200) {
        self.perRequest = perRequest
        self.perPoint = perPoint
    }

    /// No limit (library use on trusted data).
    public static let unlimited = FenceEventLimits(perRequest: .max, perPoint: .max)
}
