import Foundation

/// A tangent plane in metres around a reference coordinate (internal helper).
///
/// East and north offsets use the WGS-84 meridian radius of curvature `M` and the
/// prime-vertical radius `N` at the reference latitude, so offsets of a few
/// kilometres are ellipsoid-accurate to a few parts in 10⁴ of their length. Longitude differences
/// are wrapped into [-180, 180) so planes across the antimeridian work.
struct LocalPlane: Sendable {
    /// The reference point (the plane's origin).
    let origin: Coordinate
    /// Metres per degree of latitude at the origin.
    let metresPerDegreeLatitude: Double
    /// Metres per degree of longitude at the origin.
    let metresPerDegreeLongitude: Double

    init(origin: Coordinate) {
        self.origin = origin
        let (m, n) = LocalPlane.radiiOfCurvature(latitude: origin.latitude)
        let phi = origin.latitude * .pi / 180
        metresPerDegreeLatitude = m * .pi / 180
        // Keep a tiny positive scale at the poles so projecting back stays finite.
        metresPerDegreeLongitude = max(n * cos(phi), 1e-6) * .pi / 180
    }

    /// Meridian (M) and prime-vertical (N) radii of curvature, metres, at a geodetic latitude in degrees.
    static func radiiOfCurvature(latitude: Double) -> (meridian: Double, primeVertical: Double) {
        let a = Geodesic.wgs84.equatorialRadius, f = Geodesic.wgs84.flattening
        let e2 = f * (2 - f)
        let s = sin(latitude * .pi / 180)
        let w2 = 1 - e2 * s * s
        let w = w2.squareRoot()
        return (a * (1 - e2) / (w2 * w), a / w)
    }

    /// East and north offsets of `c` from the origin, metres.
    @inline(__always)
    func project(_ c: Coordinate) -> (x: Double, y: Double) {
        var dLon = c.longitude - origin.longitude
        if dLon >= 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        return (dLon * metresPerDegreeLongitude, (c.latitude - origin.latitude) * metresPerDegreeLatitude)
    }

    /// The coordinate at east/north offsets (metres) from the origin; latitude is clamped to [-90, 90].
    func unproject(x: Double, y: Double) -> Coordinate {
        let lat = max(-90, min(90, origin.latitude + y / metresPerDegreeLatitude))
        let lon = Coordinate.normalizedLongitude(origin.longitude + x / metresPerDegreeLongitude)
        return Coordinate(uncheckedLatitude: lat, longitude: lon)
    }
}
