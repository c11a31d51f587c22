import Foundation

/// A circle on the ellipsoid: every point within `radiusMeters` (geodesic distance) of `center`.
///
/// ```swift
/// let fence = BoundingCircle(center: try Coordinate(latitude: 48.8584, longitude: 2.2945), radiusMeters: 150)
/// fence.contains(try Coordinate(latitude: 48.8590, longitude: 2.2950))   // true
/// ```
public struct BoundingCircle: Hashable, Sendable, Codable {
    /// The centre.
    public var center: Coordinate
    /// The radius, metres.
    public var radiusMeters: Double

    /// Makes a circle from its centre and radius in metres.
    public init(center: Coordinate, radiusMeters: Double) {
        self.center = center
        self.radiusMeters = radiusMeters
    }

    /// True when `point` is within the radius of the centre (ellipsoid-accurate distance).
    public func contains(_ point: Coordinate) -> Bool {
        LocalApproximation.segmentDistance(center, point) <= radiusMeters
    }
}
