import Foundation

/// Spherical formulas for hot paths: haversine distance, initial bearing and destination point.
///
/// They use the mean Earth radius (IUGG R1, 6,371,008.8 m) and are off from the
/// ellipsoid by up to about 0.5%. For statistics use ``Geodesic`` or
/// ``LocalApproximation``, which are ellipsoid-accurate.
public enum Geodesy {
    /// The IUGG mean Earth radius R1, metres.
    public static let meanEarthRadius = 6_371_008.8

    /// Great-circle distance in metres on the mean sphere.
    @inlinable
    public static func haversineDistance(_ a: Coordinate, _ b: Coordinate) -> Double {
        let phi1 = a.latitude * .pi / 180, phi2 = b.latitude * .pi / 180
        let dPhi = phi2 - phi1
        let dLambda = (b.longitude - a.longitude) * .pi / 180
        let s1 = sin(dPhi / 2), s2 = sin(dLambda / 2)
        let h = s1 * s1 + cos(phi1) * cos(phi2) * s2 * s2
        return 2 * meanEarthRadius * asin(min(1, h.squareRoot()))
    }

    /// Initial great-circle bearing from `a` to `b`, degrees clockwise from north in [0, 360).
    @inlinable
    public static func initialBearing(from a: Coordinate, to b: Coordinate) -> Double {
        let phi1 = a.latitude * .pi / 180, phi2 = b.latitude * .pi / 180
        let dLambda = (b.longitude - a.longitude) * .pi / 180
        let y = sin(dLambda) * cos(phi2)
        let x = cos(phi1) * sin(phi2) - sin(phi1) * cos(phi2) * cos(dLambda)
        let deg = atan2(y, x) * 180 / .pi
        let wrapped = deg < 0 ? deg + 360 : deg
        return wrapped >= 360 ? 0 : wrapped
    }

    /// The point reached by travelling `distance` metres from `start` on a great circle
    /// with initial bearing `bearing` (degrees), on the mean sphere.
    public static func destination(from start: Coordinate, bearing: Double, distance: Double) -> Coordinate {
        let delta = distance / meanEarthRadius
        let theta = bearing * .pi / 180
        let phi1 = start.latitude * .pi / 180, lambda1 = start.longitude * .pi / 180
        let sinPhi2 = sin(phi1) * cos(delta) + cos(phi1) * sin(delta) * cos(theta)
        let phi2 = asin(max(-1, min(1, sinPhi2)))
        let y = sin(theta) * sin(delta) * cos(phi1)
        let x = cos(delta) - sin(phi1) * sinPhi2
        let lambda2 = lambda1 + atan2(y, x)
        return Coordinate(uncheckedLatitude: max(-90, min(90, phi2 * 180 / .pi)),
                          longitude: Coordinate.normalizedLongitude(lambda2 * 180 / .pi))
    }
}

extension Coordinate {
    /// Great-circle distance in metres on the mean sphere (fast, ~0.5% error). See ``Geodesy``.
    @inlinable
    public func haversineDistance(to other: Coordinate) -> Double {
        Geodesy.haversineDistance(self, other)
    }
}
