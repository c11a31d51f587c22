import Foundation

extension BoundingBox {
    /// True when `coordinate` lies inside the box or on its edges.
    public func contains(_ coordinate: Coordinate) -> Bool {
        guard coordinate.latitude >= minLatitude && coordinate.latitude <= maxLatitude else { return false }
        return Self.eastward(from: minLongitude, to: coordinate.longitude) <= longitudeSpan
    }

    /// True when `other` lies entirely inside this box (edges included).
    public func contains(_ other: BoundingBox) -> Bool {
        other.minLatitude >= minLatitude && other.maxLatitude <= maxLatitude && contains(longitudesOf: other)
    }

    /// True when the two boxes share at least one point (touching edges count).
    public func intersects(_ other: BoundingBox) -> Bool {
        guard other.minLatitude <= maxLatitude && other.maxLatitude >= minLatitude else { return false }
        return Self.eastward(from: minLongitude, to: other.minLongitude) <= longitudeSpan
            || Self.eastward(from: other.minLongitude, to: minLongitude) <= other.longitudeSpan
    }

    /// The smallest box holding both boxes.
    ///
    /// Of the two ways to join the longitude ranges around the circle, the narrower is taken;
    /// when they would cover 360° the result covers every longitude.
    public func union(_ other: BoundingBox) -> BoundingBox {
        let lat = (min(minLatitude, other.minLatitude), max(maxLatitude, other.maxLatitude))
        if contains(longitudesOf: other) { return Self.box(lat, start: minLongitude, span: longitudeSpan) }
        if other.contains(longitudesOf: self) { return Self.box(lat, start: other.minLongitude, span: other.longitudeSpan) }
        let selfFirst = max(longitudeSpan, Self.eastward(from: minLongitude, to: other.minLongitude) + other.longitudeSpan)
        let otherFirst = max(other.longitudeSpan, Self.eastward(from: other.minLongitude, to: minLongitude) + longitudeSpan)
        return selfFirst <= otherFirst
            ? Self.box(lat, start: minLongitude, span: selfFirst)
            : Self.box(lat, start: other.minLongitude, span: otherFirst)
    }

    /// The smallest box holding this box and `coordinate`.
    public func union(_ coordinate: Coordinate) -> BoundingBox {
        union(BoundingBox(coordinate))
    }

    /// Grows the box to hold `coordinate`, in O(1): for streaming bounds of a track.
    ///
    /// The longitude range grows on whichever side needs less, so points that arrive along a
    /// track crossing the antimeridian give a box across it. For scattered points the result
    /// can depend on their order; ``init(_:)-(S)`` gives the optimum.
    public mutating func formUnion(_ coordinate: Coordinate) {
        self = union(coordinate)
    }

    /// Grows the box to hold `other`.
    public mutating func formUnion(_ other: BoundingBox) {
        self = union(other)
    }

    /// The box grown by at least `meters` in every direction (conservatively, by up to ~1% more).
    ///
    /// Latitudes are clamped to ±90°; a box that then touches a pole, or whose longitude range
    /// would exceed 360°, covers every longitude.
    ///
    /// - Parameter meters: the margin, metres, zero or more.
    public func expanded(byMeters meters: Double) -> BoundingBox {
        precondition(meters >= 0 && meters.isFinite, "the margin must be a finite non-negative number of metres")
        // The smallest radius of curvature on WGS-84 is the meridional one at the equator,
        // a(1 − e²): dividing by it never underestimates the angle.
        let angle = meters / (6_378_137.0 * (1 - Geodesic.wgs84.eccentricitySquared))
        let dLat = angle / AngleMath.radiansPerDegree
        let south = max(-90, minLatitude - dLat), north = min(90, maxLatitude + dLat)
        let lat = (south, north)
        let polar = max(abs(south), abs(north))
        let cosPolar = cos(polar * AngleMath.radiansPerDegree)
        guard polar < 90, angle < .pi / 2, sin(angle) < cosPolar, !coversAllLongitudes else {
            return Self.box(lat, start: -180, span: 360)
        }
        // The widest longitude reach of a circle of angular radius `angle` at latitude `polar`.
        let dLon = asin(sin(angle) / cosPolar) / AngleMath.radiansPerDegree
        return Self.box(lat, start: minLongitude - dLon, span: longitudeSpan + 2 * dLon)
    }

    // MARK: - Longitude arcs

    /// Degrees travelled eastward from `a` to `b`, in [0, 360).
    @inlinable
    static func eastward(from a: Double, to b: Double) -> Double {
        let d = (b - a).truncatingRemainder(dividingBy: 360)
        return d < 0 ? d + 360 : d
    }

    /// True when the longitude range of `other` lies inside this one.
    func contains(longitudesOf other: BoundingBox) -> Bool {
        coversAllLongitudes
            || Self.eastward(from: minLongitude, to: other.minLongitude) + other.longitudeSpan <= longitudeSpan
    }

    /// A box from a latitude range and an eastward longitude arc.
    static func box(_ lat: (Double, Double), start: Double, span: Double) -> BoundingBox {
        if span >= 360 { return BoundingBox(minLatitude: lat.0, minLongitude: -180, maxLatitude: lat.1, maxLongitude: 180) }
        let west = Coordinate.normalizedLongitude(start)
        let east = west + span <= 180 ? west + span : west + span - 360
        return BoundingBox(minLatitude: lat.0, minLongitude: west, maxLatitude: lat.1, maxLongitude: east)
    }
}
