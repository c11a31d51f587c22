import Foundation
import WaymarkEngine
import WaymarkGeo

/// A virtual time window in seconds since the scenario start; `to` absent means "until the end".
public struct TimeWindow: Hashable, Sendable, Codable {
    /// Start, seconds.
    public var from: Double
    /// End, seconds.
    public var to: Double?

    /// Makes a window.
    public init(from: Double, to: Double? = nil) {
        self.from = from
        self.to = to
    }

    /// Whether `t` is inside.
    public func contains(_ t: Double) -> Bool { t >= from && t < (to ?? .infinity) }
}
