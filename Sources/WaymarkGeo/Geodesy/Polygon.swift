import Foundation

/// A polygon on the WGS-84 ellipsoid: an exterior ring and optional holes.
///
/// Edges are straight lines in latitude/longitude (the same convention as GeoJSON, RFC 7946
/// §3.1.1), each taking the short way round in longitude, so a polygon may cross the
/// antimeridian. Rings must not wind around a pole: a polygon that contains a pole is rejected.
///
/// ```swift
/// let park = try Polygon(exterior: [
///     try Coordinate(latitude: 51.500, longitude: -0.170),
///     try Coordinate(latitude: 51.500, longitude: -0.150),
///     try Coordinate(latitude: 51.510, longitude: -0.150),
///     try Coordinate(latitude: 51.510, longitude: -0.170),
/// ])
/// park.contains(try Coordinate(latitude: 51.505, longitude: -0.160))   // true
/// let circle = park.boundingCircle   // centre and radius in metres, for a quick distance test
/// ```
///
/// `Polygon` is an immutable `Sendable` value type.
public struct Polygon: Hashable, Sendable {
    /// The outer boundary, without a repeated closing vertex.
    public let exterior: [Coordinate]
    /// Inner boundaries (areas cut out of the polygon), each without a repeated closing vertex.
    public let holes: [[Coordinate]]

    /// Longitudes of every ring made continuous: each differs from the previous vertex by less
    /// than 180°, and the holes are shifted next to the exterior.
    package let unwrappedLongitudes: [[Double]]
    /// The middle of the exterior's continuous longitude range.
    package let referenceLongitude: Double

    /// Makes a polygon; the rings may be given open or closed (last vertex equal to the first).
    ///
    /// - throws: ``GeoError`` with code ``GeoError/Code/invalidValue`` when a ring has fewer
    ///   than three distinct vertices or winds around a pole.
    public init(exterior: [Coordinate], holes: [[Coordinate]] = []) throws(GeoError) {
        let rings = try ([exterior] + holes).enumerated().map { (index, ring) throws(GeoError) in
            try Polygon.openRing(ring, name: index == 0 ? "exterior ring" : "hole \(index)")
        }
        var unwrapped: [[Double]] = []
        var reference = 0.0
        for (index, ring) in rings.enumerated() {
            var xs = [Double]()
            xs.reserveCapacity(ring.count)
            var x = index == 0 ? ring[0].longitude : reference + remainder(ring[0].longitude - reference, 360)
            xs.append(x)
            for i in 1..<ring.count {
                x += remainder(ring[i].longitude - ring[i - 1].longitude, 360)
                xs.append(x)
            }
            let closing = x + remainder(ring[0].longitude - ring[ring.count - 1].longitude, 360)
            guard abs(closing - xs[0]) < 1e-9 else {
                throw GeoError(.invalidValue, "\(index == 0 ? "exterior ring" : "hole \(index)") winds around a pole; "
                               + "expected a ring whose edges do not circle the globe")
            }
            if index == 0 { reference = (xs.min()! + xs.max()!) / 2 }
            unwrapped.append(xs)
        }
        self.exterior = rings[0]
        self.holes = Array(rings.dropFirst())
        self.unwrappedLongitudes = unwrapped
        self.referenceLongitude = reference
    }

    /// Drops a closing vertex and checks that at least three distinct vertices remain.
    private static func openRing(_ ring: [Coordinate], name: String) throws(GeoError) -> [Coordinate] {
        var open = ring
        if open.count > 1 && open.first == open.last { open.removeLast() }
        guard Set(open).count >= 3 else {
            throw GeoError(.invalidValue, "\(name) has \(Set(open).count) distinct vertices; expected at least 3")
        }
        return open
    }

    /// All rings, exterior first, with their continuous longitudes.
    var rings: some Sequence<([Coordinate], [Double])> {
        zip([exterior] + holes, unwrappedLongitudes)
    }

    /// The smallest latitude/longitude box holding the polygon (it crosses the antimeridian when
    /// the polygon does).
    public var boundingBox: BoundingBox {
        let xs = unwrappedLongitudes[0]
        let lats = exterior.map(\.latitude)
        return BoundingBox.box((lats.min()!, lats.max()!), start: xs.min()!, span: xs.max()! - xs.min()!)
    }
}
