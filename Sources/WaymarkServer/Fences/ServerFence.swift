import Foundation
import WaymarkGeo

/// A server geofence: a circle or a polygon, with an optional dwell time.
///
/// ```swift
/// let depot = ServerFence(id: "f_depot", name: "Depot",
///                   shape: .circle(center: try Coordinate(latitude: 46.05, longitude: 14.5), radiusMeters: 150),
///                   dwellSeconds: 300)
/// ```
///
/// A `Sendable` value type.
public struct ServerFence: Hashable, Sendable {
    /// The area a fence covers.
    public enum Shape: Hashable, Sendable {
        /// Every point within `radiusMeters` (great-circle distance) of `center`.
        case circle(center: Coordinate, radiusMeters: Double)
        /// The inside of a polygon (edges straight in latitude/longitude, as in GeoJSON).
        case polygon(Polygon)
    }

    /// Stable identifier.
    public var id: String
    /// Human-readable name.
    public var name: String
    /// The area.
    public var shape: Shape
    /// Seconds inside after which one `dwell` event is emitted; nil for none.
    public var dwellSeconds: TimeInterval?

    /// Makes a fence.
    public init(id: String, name: String, shape: Shape, dwellSeconds: TimeInterval? = nil) {
        self.id = id
        self.name = name
        self.shape = shape
        self.dwellSeconds = dwellSeconds
    }

    /// The largest circle radius the server accepts: 20,000 km (half the Earth's circumference).
    public static let maximumRadiusMeters = 20_000_000.0

    /// The most vertices a polygon fence may have, all its rings together.
    public static let maximumPolygonVertices = 10_000
    /// The most holes a polygon fence may have.
    public static let maximumPolygonHoles = 100

    /// What makes this fence unfit to store, or nil: an id of 0 or more than 200 bytes, a name over
    /// 200 UTF-8 bytes, a radius outside (0, ``maximumRadiusMeters``], a negative or non-finite dwell,
    /// a polygon with more than ``maximumPolygonVertices`` vertices or ``maximumPolygonHoles`` holes.
    /// The stores refuse such a fence, so one bad fence can never stop fence loading (and ingest).
    public var problem: String? {
        if id.isEmpty || id.utf8.count > 200 { return "an id must have 1 to 200 bytes" }
        if name.utf8.count > 200 { return "the name is longer than 200 bytes of UTF-8" }
        if case .circle(_, let r) = shape, !(r > 0 && r <= Self.maximumRadiusMeters) {
            return "radiusMeters must be a number of metres in (0, \(Int(Self.maximumRadiusMeters))]"
        }
        if let dwellSeconds, !(dwellSeconds.isFinite && dwellSeconds >= 0) { return "dwellSeconds must be a non-negative number" }
        if case .polygon(let polygon) = shape {
            if polygon.holes.count > Self.maximumPolygonHoles {
                return "a polygon may have at most \(Self.maximumPolygonHoles) holes; this one has \(polygon.holes.count)"
            }
            let vertices = polygon.exterior.count + polygon.holes.reduce(0) { $0 + $1.count }
            if vertices > Self.maximumPolygonVertices {
                return "a polygon may have at most \(Self.maximumPolygonVertices) vertices in all its rings; this one has \(vertices)"
            }
        }
        return nil
    }

    /// Throws ``ServerError/Code/badRequest`` naming the first fence with a ``problem``.
    static func checkAll(_ fences: [ServerFence]) throws {
        for fence in fences {
            if let problem = fence.problem { throw ServerError(.badRequest, "fence \(fence.id): \(problem)") }
        }
    }

    /// Whether `point` is inside (the boundary counts as inside for circles).
    public func contains(_ point: Coordinate) -> Bool {
        switch shape {
        case .circle(let center, let radius): Geodesy.haversineDistance(center, point) <= radius
        case .polygon(let polygon): polygon.contains(point)
        }
    }

    /// A box enclosing the fence, in degrees (longitudes may exceed ±180 near the antimeridian).
    ///
    /// For a circle the box holds both the haversine circle ``contains(_:)`` tests and the
    /// projected disk ``SegmentCrossing/crossing(_:from:to:)`` intersects, with a relative margin of
    /// 1e-9, so a box test never rejects a point or a segment either of them accepts. A circle
    /// reaching a pole spans every longitude.
    var bounds: (minLat: Double, minLon: Double, maxLat: Double, maxLon: Double) {
        switch shape {
        case .circle(let c, let r):
            let margin = 1 + 1e-9
            let dLat = r / SegmentCrossing.metersPerDegree * margin + 1e-12
            let angle = r / Geodesy.meanEarthRadius
            let cosLat = cos(c.latitude * .pi / 180)
            guard angle < .pi / 2, sin(angle) < cosLat * (1 - 1e-9) else {
                return (c.latitude - dLat, c.longitude - 180, c.latitude + dLat, c.longitude + 180)
            }
            // The haversine circle's widest longitude (asin form) is at least the projected disk's.
            let haversine = asin(sin(angle) / cosLat) * 180 / .pi
            let projected = r / (SegmentCrossing.metersPerDegree * cosLat)
            let dLon = min(180, max(haversine, projected) * margin + 1e-12)
            return (c.latitude - dLat, c.longitude - dLon, c.latitude + dLat, c.longitude + dLon)
        case .polygon(let p):
            let lats = p.exterior.map(\.latitude)
            var lons = [p.exterior[0].longitude]
            for v in p.exterior.dropFirst() {
                lons.append(lons[lons.count - 1] + remainder(v.longitude - p.exterior[lons.count - 1].longitude, 360))
            }
            return (lats.min()!, lons.min()!, lats.max()!, lons.max()!)
        }
    }
}

/// Planar helpers for short segments: an equirectangular projection around a reference point.
enum SegmentCrossing {
    /// Metres per degree of latitude on a sphere of radius 6 371 008.8 m.
    static let metersPerDegree = 6_371_008.8 * .pi / 180

    /// `remainder(to - from, 360)`: the signed difference of two longitudes the short way, in
    /// [−180°, 180°]; one comparison instead of a library call for normalized longitudes.
    @inline(__always)
    static func longitudeDifference(_ to: Double, _ from: Double) -> Double {
        let d = to - from
        if d > 180 { return d <= 540 ? d - 360 : remainder(d, 360) }
        if d < -180 { return d >= -540 ? d + 360 : remainder(d, 360) }
        return d
    }

    /// ``crossing(_:from:to:)`` for a circle, with the projection's east-west scale
    /// (`cos(centre latitude) × metersPerDegree`) computed once by the caller.
    @inline(__always)
    static func circleCrossing(center: Coordinate, radius: Double, scale: Double,
                               from a: Coordinate, to b: Coordinate) -> (enter: Double, exit: Double)? {
        // |A + t(B − A)|² = r² with the circle's centre at the origin.
        let pa = (x: longitudeDifference(a.longitude, center.longitude) * scale, y: (a.latitude - center.latitude) * metersPerDegree)
        let pb = (x: longitudeDifference(b.longitude, center.longitude) * scale, y: (b.latitude - center.latitude) * metersPerDegree)
        let dx = pb.x - pa.x, dy = pb.y - pa.y
        let qa = dx * dx + dy * dy
        guard qa > 0 else { return nil }
        let qb = 2 * (pa.x * dx + pa.y * dy)
        let qc = pa.x * pa.x + pa.y * pa.y - radius * radius
        let discriminant = qb * qb - 4 * qa * qc
        guard discriminant > 0 else { return nil }
        let root = discriminant.squareRoot()
        let t1 = (-qb - root) / (2 * qa), t2 = (-qb + root) / (2 * qa)
        guard t1 <= 1, t2 >= 0 else { return nil }
        return (max(0, t1), min(1, t2))
    }

    /// The interval of the segment parameter t ∈ [0, 1] from `a` to `b` that lies inside the
    /// fence, when both ends are outside; nil when the segment misses it.
    static func crossing(_ fence: ServerFence, from a: Coordinate, to b: Coordinate) -> (enter: Double, exit: Double)? {
        switch fence.shape {
        case .circle(let center, let radius):
            return circleCrossing(center: center, radius: radius, scale: cos(center.latitude * .pi / 180) * metersPerDegree,
                                  from: a, to: b)
        case .polygon(let polygon):
            // Intersections with every edge, in degrees with longitudes unwrapped around `a`.
            let ax = a.longitude, ay = a.latitude
            let bx = ax + remainder(b.longitude - ax, 360), by = b.latitude
            var ts: [Double] = []
            for ring in [polygon.exterior] + polygon.holes {
                for i in ring.indices {
                    let p = ring[i], q = ring[(i + 1) % ring.count]
                    let px = ax + remainder(p.longitude - ax, 360), py = p.latitude
                    let qx = px + remainder(q.longitude - p.longitude, 360), qy = q.latitude
                    let rX = bx - ax, rY = by - ay, sX = qx - px, sY = qy - py
                    let denominator = rX * sY - rY * sX
                    guard denominator != 0 else { continue }
                    let t = ((px - ax) * sY - (py - ay) * sX) / denominator
                    let u = ((px - ax) * rY - (py - ay) * rX) / denominator
                    if (0...1).contains(t), (0...1).contains(u) { ts.append(t) }
                }
            }
            guard ts.count >= 2, let first = ts.min(), let last = ts.max() else { return nil }
            return (first, last)
        }
    }
}
