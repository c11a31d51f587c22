import Foundation

/// A fast ellipsoidal distance and azimuth for short segments (WGS-84).
///
/// The segment is flattened onto the plane tangent at its mid-latitude φₘ, scaled by the
/// ellipsoid's radii of curvature there: the meridional radius `M = a(1 − e²)/(1 − e² sin²φₘ)^{3/2}`
/// north–south and the prime-vertical radius `N = a/√(1 − e² sin²φₘ)` times `cos φₘ`
/// east–west. The longitude difference is wrapped into [-180°, 180°], so segments that cross
/// the antimeridian are measured the short way.
///
/// **Error bound** (measured against ``Geodesic`` with `Scripts`-style random sampling, and
/// checked by the test suite): the relative error is below ``relativeErrorBound`` (5 × 10⁻⁶,
/// i.e. 5 cm in 10 km) for segments up to ``maximumRecommendedDistance`` (10 km) whose ends
/// both lie within ``maximumRecommendedLatitude`` (80°) of the equator. It grows with the
/// square of the length and with `tan φ`: under 1 km it is below 4 × 10⁻⁸ up to 80°;
/// at 89° and 10 km it reaches 3 × 10⁻⁴. Beyond those limits use ``Geodesic``, or
/// ``segmentDistance(_:_:)`` which switches automatically.
///
/// ```swift
/// let a = try Coordinate(latitude: 47.3769, longitude: 8.5417)
/// let b = try Coordinate(latitude: 47.3780, longitude: 8.5400)
/// let metres = LocalApproximation.distance(a, b)       // 177.31 m, within 1 µm of the geodesic
/// ```
///
/// All members are pure functions, safe from any thread, and allocate nothing.
public enum LocalApproximation {
    /// The longest segment, in metres, for which ``relativeErrorBound`` is guaranteed (10 km).
    ///
    /// Statistics code measures a segment with ``distance(_:_:)`` and switches to
    /// ``Geodesic`` when the result is longer than this (see ``segmentDistance(_:_:)``).
    public static let maximumRecommendedDistance = 10_000.0

    /// The highest absolute latitude, in degrees, of either end for which
    /// ``relativeErrorBound`` is guaranteed (80°).
    public static let maximumRecommendedLatitude = 80.0

    /// The documented bound on `|local − geodesic| / geodesic` inside the recommended limits (5 × 10⁻⁶).
    public static let relativeErrorBound = 5e-6

    @usableFromInline static let equatorialRadius = 6_378_137.0
    @usableFromInline static let eccentricitySquared = Geodesic.wgs84.eccentricitySquared

    /// The metres per radian north (`M`) and east (`N cos φ`) at latitude `latitude` (degrees).
    @inlinable
    static func radii(latitude: Double) -> (north: Double, east: Double) {
        let s = sin(latitude * AngleMath.radiansPerDegree)
        let w = 1 - eccentricitySquared * s * s
        let n = equatorialRadius / w.squareRoot()
        let cosPhi = max(0, 1 - s * s).squareRoot()
        return (n * (1 - eccentricitySquared) / w, n * cosPhi)
    }

    /// East and north offsets in metres from `a` to `b` on the mid-latitude tangent plane.
    @inlinable
    public static func offset(from a: Coordinate, to b: Coordinate) -> (east: Double, north: Double) {
        let r = radii(latitude: (a.latitude + b.latitude) / 2)
        let raw = b.longitude - a.longitude
        // remainder(x, 360) is x itself for |x| <= 180; skip the libm call on that common path.
        let dLon = abs(raw) <= 180 ? raw : remainder(raw, 360)
        return (r.east * dLon * AngleMath.radiansPerDegree,
                r.north * (b.latitude - a.latitude) * AngleMath.radiansPerDegree)
    }

    /// Approximate ellipsoidal distance in metres between two nearby points.
    ///
    /// Within ``maximumRecommendedDistance`` and ``maximumRecommendedLatitude`` the relative
    /// error against the WGS-84 geodesic is below ``relativeErrorBound``.
    @inlinable
    public static func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        let d = offset(from: a, to: b)
        return (d.east * d.east + d.north * d.north).squareRoot()
    }

    /// Approximate azimuth from `a` to `b`, degrees clockwise from north in (-180, 180].
    ///
    /// This is the direction of the chord on the tangent plane at the mid-latitude; within the
    /// recommended limits it is within 10⁻⁴° of the mean of the geodesic's azimuths at the two
    /// ends (which differ from each other by the meridian convergence). Coincident points give 0.
    @inlinable
    public static func azimuth(from a: Coordinate, to b: Coordinate) -> Double {
        let d = offset(from: a, to: b)
        return AngleMath.atan2Degrees(d.east, d.north)
    }

    /// Ellipsoid-accurate distance in metres: the local approximation for short segments
    /// away from the poles, the full geodesic otherwise.
    ///
    /// The result is within ``relativeErrorBound`` of ``Geodesic/inverse(_:_:)`` for any pair.
    @inlinable
    public static func segmentDistance(_ a: Coordinate, _ b: Coordinate) -> Double {
        if abs(a.latitude) <= maximumRecommendedLatitude && abs(b.latitude) <= maximumRecommendedLatitude {
            let d = distance(a, b)
            if d <= maximumRecommendedDistance { return d }
        }
        return Geodesic.wgs84.inverse(a, b).distance
    }
}
