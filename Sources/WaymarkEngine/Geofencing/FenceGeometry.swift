import Foundation
import WaymarkGeo

/// A fence's shape prepared for decisions: the circle the OS monitors and, for polygons, the polygon.
///
/// Distances use the spherical approximation of ``FenceIndex`` (the same one the index measures
/// with), so a fence is judged identically wherever it is looked at. A `Sendable` value type.
struct FenceGeometry: Hashable, Sendable {
    /// The circle's centre, or the polygon's enclosing-circle centre.
    let center: Coordinate
    /// The circle's radius, or the polygon's enclosing-circle radius, metres.
    let radius: Double
    /// The polygon, for polygon fences.
    let polygon: Polygon?

    /// Prepares `shape`.
    /// - throws: ``GeoError`` with code ``GeoError/Code/invalidValue`` for a radius that is not
    ///   positive and finite, or a polygon with fewer than three vertices or around a pole.
    init(_ shape: FenceShape) throws(GeoError) {
        switch shape {
        case .circle(let center, let radiusMeters):
            guard radiusMeters.isFinite, radiusMeters > 0 else {
                throw GeoError(.invalidValue, "fence radius \(radiusMeters) m; expected a positive, finite number of metres")
            }
            self.center = center
            self.radius = radiusMeters
            self.polygon = nil
        case .polygon(let exterior, let holes):
            let polygon = try Polygon(exterior: exterior, holes: holes)
            let circle = polygon.boundingCircle
            self.center = circle.center
            self.radius = circle.radiusMeters
            self.polygon = polygon
        }
    }

    /// Signed distance in metres from `point` to the boundary: negative inside, positive outside.
    ///
    /// `centerDistance` is the distance from `point` to ``center`` as the index measured it. Far
    /// outside a polygon's enclosing circle the gap to that circle stands in (a lower bound).
    func signedDistance(to point: Coordinate, centerDistance d: Double) -> Double {
        guard let polygon else { return d - radius }
        if d > radius + 200 { return d - radius }
        let map = LocalProjection(origin: point)
        var nearest = Double.infinity
        for ring in [polygon.exterior] + polygon.holes {
            var previous = map.project(ring[ring.count - 1])
            for vertex in ring {
                let here = map.project(vertex)
                nearest = min(nearest, Self.distanceFromOrigin(toSegment: previous, here))
                previous = here
            }
        }
        return polygon.contains(point) ? -nearest : nearest
    }

    /// Distance from (0, 0) to the segment a–b on a flat map.
    static func distanceFromOrigin(toSegment a: (east: Double, north: Double), _ b: (east: Double, north: Double)) -> Double {
        let dx = b.east - a.east, dy = b.north - a.north
        let length2 = dx * dx + dy * dy
        let t = length2 > 0 ? max(0, min(1, -(a.east * dx + a.north * dy) / length2)) : 0
        let x = a.east + t * dx, y = a.north + t * dy
        return (x * x + y * y).squareRoot()
    }
}
