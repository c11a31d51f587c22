import Foundation

extension Polygon {
    /// True when `point` is inside the polygon or on its boundary.
    ///
    /// Uses the even-odd rule over all rings in the latitude/longitude plane: a point is inside
    /// when a ray from it crosses the rings an odd number of times, so it must be inside the
    /// exterior and outside every hole. A point exactly on an edge or vertex of any ring (the
    /// exterior or a hole) is on the boundary and counts as **inside**; "exactly" is decided by
    /// the sign of a floating-point cross product, so the answer is deterministic. The point's
    /// longitude is compared the short way round, so polygons across the antimeridian work.
    public func contains(_ point: Coordinate) -> Bool {
        let px = referenceLongitude + remainder(point.longitude - referenceLongitude, 360)
        let py = point.latitude
        var inside = false
        for (ring, xs) in rings {
            var j = ring.count - 1
            for i in 0..<ring.count {
                let xi = xs[i], yi = ring[i].latitude
                let xj = xs[j], yj = ring[j].latitude
                let cross = (xj - xi) * (py - yi) - (yj - yi) * (px - xi)
                if cross == 0 && px >= min(xi, xj) && px <= max(xi, xj) && py >= min(yi, yj) && py <= max(yi, yj) {
                    return true
                }
                // The edge straddles the ray's latitude and crosses it east of the point.
                if (yi > py) != (yj > py) && (cross > 0) == (yj > yi) {
                    inside.toggle()
                }
                j = i
            }
        }
        return inside
    }
}

extension Polygon {
    /// A circle that encloses the whole polygon, for cheap "certainly outside" tests.
    ///
    /// The centre is the centre of ``boundingBox``; the radius is the largest geodesic distance
    /// from it to points sampled along every exterior edge (16 per edge), enlarged by 1/256 to
    /// cover the edges between samples. It is not the minimal enclosing circle and can be noticeably
    /// larger for lopsided shapes. Computed on each call: O(n) geodesic evaluations.
    public var boundingCircle: BoundingCircle {
        let center = boundingBox.center
        let xs = unwrappedLongitudes[0]
        var radius = 0.0
        let samples = 16
        for i in 0..<exterior.count {
            let j = (i + 1) % exterior.count
            let y0 = exterior[i].latitude, y1 = exterior[j].latitude
            let x0 = xs[i], x1 = i + 1 < exterior.count ? xs[j] : xs[i] + remainder(xs[0] - xs[i], 360)
            for k in 0..<samples {
                let t = Double(k) / Double(samples)
                let p = Coordinate(uncheckedLatitude: y0 + t * (y1 - y0),
                                   longitude: Coordinate.normalizedLongitude(x0 + t * (x1 - x0)))
                radius = max(radius, Geodesic.wgs84.inverse(center, p).distance)
            }
        }
        return BoundingCircle(center: center, radiusMeters: radius * (1 + 1.0 / 256))
    }
}
