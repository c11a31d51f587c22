/// Running latitude/longitude extremes that find the narrower box across the antimeridian
/// (internal helper of ``TrackStatisticsAccumulator``).
struct BoundsAccumulator: Sendable {
    private var minLatitude = Double.infinity
    private var maxLatitude = -Double.infinity
    private var minLongitude = Double.infinity
    private var maxLongitude = -Double.infinity
    /// Longitudes shifted into [0, 360), for tracks that cross the antimeridian.
    private var minShifted = Double.infinity
    private var maxShifted = -Double.infinity

    @inline(__always)
    mutating func add(_ c: Coordinate) {
        minLatitude = min(minLatitude, c.latitude)
        maxLatitude = max(maxLatitude, c.latitude)
        minLongitude = min(minLongitude, c.longitude)
        maxLongitude = max(maxLongitude, c.longitude)
        let shifted = c.longitude < 0 ? c.longitude + 360 : c.longitude
        minShifted = min(minShifted, shifted)
        maxShifted = max(maxShifted, shifted)
    }

    /// The smallest box, or nil when no point was added. A box that crosses the
    /// antimeridian has `minLongitude > maxLongitude`.
    var box: BoundingBox? {
        guard minLatitude <= maxLatitude else { return nil }
        if maxShifted - minShifted < maxLongitude - minLongitude {
            return BoundingBox(minLatitude: minLatitude, minLongitude: Coordinate.normalizedLongitude(minShifted),
                               maxLatitude: maxLatitude, maxLongitude: Coordinate.normalizedLongitude(maxShifted))
        }
        return BoundingBox(minLatitude: minLatitude, minLongitude: minLongitude,
                           maxLatitude: maxLatitude, maxLongitude: maxLongitude)
    }
}
