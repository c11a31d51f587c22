import Foundation
import WaymarkEngine
import WaymarkGeo

/// A circular area.
public struct CircleArea: Hashable, Sendable, Codable {
    /// Centre.
    public var center: Coordinate
    /// Radius in metres.
    public var radiusMeters: Double

    /// Makes an area.
    public init(center: Coordinate, radiusMeters: Double) {
        self.center = center
        self.radiusMeters = radiusMeters
    }

    /// Whether `point` is inside.
    public func contains(_ point: Coordinate) -> Bool {
        Geodesy.haversineDistance(center, point) <= radiusMeters
    }
}
