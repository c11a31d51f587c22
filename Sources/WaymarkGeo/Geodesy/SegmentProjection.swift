import Foundation

/// The point of a segment nearest to a given point, and how far away it is.
///
/// ```swift
/// let p = try Coordinate(latitude: 47.001, longitude: 8.0005)
/// let hit = p.projection(ontoSegmentFrom: try Coordinate(latitude: 47, longitude: 8),
///                        to: try Coordinate(latitude: 47, longitude: 8.001))
/// hit.distance   // ≈ 111.2 m, hit.fraction ≈ 0.5
/// ```
public struct SegmentProjection: Hashable, Sendable {
    /// Ellipsoidal distance in metres from the point to ``nearest``.
    public var distance: Double
    /// Where ``nearest`` lies along the segment: 0 at its start, 1 at its end.
    public var fraction: Double
    /// The nearest point of the segment.
    public var nearest: Coordinate
}

/// The point of a polyline nearest to a given point.
public struct PolylineProjection: Hashable, Sendable {
    /// Ellipsoidal distance in metres from the point to ``nearest``.
    public var distance: Double
    /// The segment holding ``nearest``: from vertex `segmentIndex` to vertex `segmentIndex + 1`
    /// (0 for a one-vertex polyline).
    public var segmentIndex: Int
    /// Where ``nearest`` lies along that segment, 0 … 1.
    public var fraction: Double
    /// The nearest point of the polyline.
    public var nearest: Coordinate
}

extension Coordinate {
    /// The nearest point to `self` on the segment from `a` to `b`, and the distance to it.
    ///
    /// The segment is straight on a ``LocalProjection`` centred on `self` (so straight in
    /// latitude/longitude, taking the short way across the antimeridian). For segments up to
    /// ``LocalApproximation/maximumRecommendedDistance`` this is the geodesic segment to within
    /// millimetres; longer segments should be split first. The distance to the nearest point is
    /// measured with ``LocalApproximation/segmentDistance(_:_:)``, so it is ellipsoid-accurate.
    /// A zero-length segment gives fraction 0.
    public func projection(ontoSegmentFrom a: Coordinate, to b: Coordinate) -> SegmentProjection {
        let map = LocalProjection(origin: self)
        let pa = map.project(a), pb = map.project(b)
        let dx = pb.east - pa.east, dy = pb.north - pa.north
        let lengthSquared = dx * dx + dy * dy
        var t = lengthSquared > 0 ? -(pa.east * dx + pa.north * dy) / lengthSquared : 0
        t = min(1, max(0, t))
        let nearest: Coordinate
        if t == 0 {
            nearest = a
        } else if t == 1 {
            nearest = b
        } else {
            nearest = map.coordinate(east: pa.east + t * dx, north: pa.north + t * dy)
        }
        return SegmentProjection(distance: LocalApproximation.segmentDistance(self, nearest),
                                 fraction: t, nearest: nearest)
    }

    /// The nearest point to `self` on the polyline through `vertices`, or nil when it is empty.
    ///
    /// Each segment is handled as in ``projection(ontoSegmentFrom:to:)``; ties go to the
    /// earliest segment. O(n) in the number of vertices.
    public func projection<C: Collection>(ontoPolyline vertices: C) -> PolylineProjection? where C.Element == Coordinate {
        var iterator = vertices.makeIterator()
        guard var previous = iterator.next() else { return nil }
        var best = PolylineProjection(distance: LocalApproximation.segmentDistance(self, previous),
                                      segmentIndex: 0, fraction: 0, nearest: previous)
        var index = 0
        while let next = iterator.next() {
            let hit = projection(ontoSegmentFrom: previous, to: next)
            if hit.distance < best.distance || (index == 0 && hit.distance <= best.distance) {
                best = PolylineProjection(distance: hit.distance, segmentIndex: index,
                                          fraction: hit.fraction, nearest: hit.nearest)
            }
            previous = next
            index += 1
        }
        return best
    }
}
