import Foundation

/// A flat map of the neighbourhood of a point: metres east and north of an origin (WGS-84).
///
/// This is the equirectangular projection scaled by the ellipsoid's radii of curvature at the
/// origin's latitude. It is linear in latitude and longitude, so a straight line on the map
/// is a straight line in latitude/longitude. Distances measured from the origin are within
/// about `1e-4 × tan φ` (relative) for points up to 1 km away; for distances between two
/// arbitrary points prefer ``LocalApproximation/distance(_:_:)``. Longitude differences are
/// wrapped, so the map works across the antimeridian. Not meant for the poles themselves.
///
/// ```swift
/// let map = LocalProjection(origin: try Coordinate(latitude: 52.52, longitude: 13.405))
/// let p = map.project(try Coordinate(latitude: 52.53, longitude: 13.405))   // (0, ≈1113 m)
/// let back = map.coordinate(east: p.east, north: p.north)
/// ```
///
/// `LocalProjection` is an immutable `Sendable` value; safe from any thread.
public struct LocalProjection: Hashable, Sendable {
    /// The point at (0, 0).
    public let origin: Coordinate
    /// Metres per radian of latitude (the meridional radius of curvature `M`).
    @usableFromInline let metresPerRadianNorth: Double
    /// Metres per radian of longitude (`N cos φ`), never below a tiny positive value.
    @usableFromInline let metresPerRadianEast: Double

    /// Makes the map centred on `origin`.
    public init(origin: Coordinate) {
        self.origin = origin
        let r = LocalApproximation.radii(latitude: origin.latitude)
        metresPerRadianNorth = r.north
        metresPerRadianEast = max(r.east, 1e-9)
    }

    /// The position of `coordinate` on the map, metres east and north of the origin.
    @inlinable
    public func project(_ coordinate: Coordinate) -> (east: Double, north: Double) {
        let dLon = remainder(coordinate.longitude - origin.longitude, 360)
        return (metresPerRadianEast * dLon * AngleMath.radiansPerDegree,
                metresPerRadianNorth * (coordinate.latitude - origin.latitude) * AngleMath.radiansPerDegree)
    }

    /// The coordinate at `east`, `north` metres from the origin (latitude clamped to ±90°).
    @inlinable
    public func coordinate(east: Double, north: Double) -> Coordinate {
        let lat = origin.latitude + north / metresPerRadianNorth / AngleMath.radiansPerDegree
        let lon = origin.longitude + east / metresPerRadianEast / AngleMath.radiansPerDegree
        return Coordinate(uncheckedLatitude: min(90, max(-90, lat)), longitude: Coordinate.normalizedLongitude(lon))
    }
}
