import Foundation

/// Geodesics on an ellipsoid of revolution (WGS-84 by default): the inverse and direct problems.
///
/// The solution follows C. F. F. Karney, "Algorithms for geodesics", J. Geodesy 87 (2013):
/// the geodesic is mapped onto an auxiliary sphere, the distance and longitude integrals are
/// expanded in series of the ellipsoid's third flattening to sixth order, and the inverse
/// problem is solved by Newton's method on the initial azimuth (safeguarded by bisection),
/// starting from the astroid solution when the points are nearly antipodal.
///
/// Against GeographicLib, distances agree to a few nanometres and azimuths to about 1e-12°
/// for any pair of points on WGS-84, including nearly antipodal, polar, equatorial and
/// meridional ones (see `Scripts/check_geodesic.py`). The series are accurate for
/// |f| ≤ 1/100; other ellipsoids are accepted but lose accuracy as |f| grows.
///
/// ```swift
/// let jfk = try Coordinate(latitude: 40.64, longitude: -73.78)
/// let singapore = try Coordinate(latitude: 1.36, longitude: 103.99)
/// let line = Geodesic.wgs84.inverse(jfk, singapore)    // 15,347,512.94 m, initial azimuth 3.31°
/// let back = Geodesic.wgs84.direct(from: jfk, azimuth: line.initialAzimuth, distance: line.distance)
/// ```
///
/// `Geodesic` is an immutable `Sendable` value; its methods allocate nothing and are safe to
/// call from any thread.
public struct Geodesic: Sendable {
    /// Equatorial radius, metres.
    public let equatorialRadius: Double
    /// Flattening `(a − b)/a`, dimensionless (positive for an oblate ellipsoid).
    public let flattening: Double

    /// Polar semi-axis `b = a(1 − f)`, metres.
    @usableFromInline let polarRadius: Double
    /// First eccentricity squared `e² = f(2 − f)`.
    @usableFromInline let eccentricitySquared: Double
    /// Second eccentricity squared `e′² = e²/(1 − e²)`.
    @usableFromInline let secondEccentricitySquared: Double
    /// Third flattening `n = f/(2 − f)`.
    @usableFromInline let thirdFlattening: Double
    /// The longitude series of this ellipsoid.
    @usableFromInline let longitudeSeries: LongitudeSeries

    /// Makes the geodesic solver of an ellipsoid of revolution.
    ///
    /// - Parameters:
    ///   - equatorialRadius: the semi-major axis `a`, metres, positive and finite.
    ///   - flattening: `f`, below 1; the series are accurate for |f| ≤ 1/100.
    public init(equatorialRadius: Double, flattening: Double) {
        precondition(equatorialRadius.isFinite && equatorialRadius > 0, "equatorial radius must be positive")
        precondition(flattening.isFinite && flattening < 1, "flattening must be finite and below 1")
        self.equatorialRadius = equatorialRadius
        self.flattening = flattening
        polarRadius = equatorialRadius * (1 - flattening)
        eccentricitySquared = flattening * (2 - flattening)
        secondEccentricitySquared = eccentricitySquared / (1 - eccentricitySquared)
        thirdFlattening = flattening / (2 - flattening)
        longitudeSeries = LongitudeSeries(thirdFlattening: thirdFlattening)
    }

    /// The WGS-84 ellipsoid: a = 6378137 m, f = 1/298.257223563.
    public static let wgs84 = Geodesic(equatorialRadius: 6_378_137, flattening: 1 / 298.257223563)

    /// The result of the inverse problem: the shortest geodesic between two points.
    public struct Inverse: Hashable, Sendable {
        /// Geodesic distance, metres.
        public var distance: Double
        /// Azimuth at the first point, degrees clockwise from north, in (-180, 180].
        public var initialAzimuth: Double
        /// Forward azimuth at the second point (the direction of travel on arrival),
        /// degrees clockwise from north, in (-180, 180].
        public var finalAzimuth: Double
    }

    /// The result of the direct problem.
    public struct Direct: Hashable, Sendable {
        /// The point reached.
        public var destination: Coordinate
        /// Forward azimuth at the destination, degrees clockwise from north, in (-180, 180].
        public var finalAzimuth: Double
    }

    /// Solves the inverse problem: the shortest geodesic from `a` to `b`.
    ///
    /// Coincident points give distance 0 and azimuths 0. A point at a pole is treated as the
    /// limit of points approaching the pole along its meridian, so the azimuths there depend on
    /// the given longitude (as in GeographicLib). When several shortest geodesics exist (exactly
    /// antipodal points) one of them is returned.
    ///
    /// - Returns: distance in metres and azimuths in degrees, in (-180, 180].
    public func inverse(_ a: Coordinate, _ b: Coordinate) -> Inverse {
        let r = solveInverse(latitude1: a.latitude, longitude1: a.longitude,
                             latitude2: b.latitude, longitude2: b.longitude)
        return Inverse(distance: r.distance,
                       initialAzimuth: AngleMath.atan2Degrees(r.sinAzimuth1, r.cosAzimuth1),
                       finalAzimuth: AngleMath.atan2Degrees(r.sinAzimuth2, r.cosAzimuth2))
    }

    /// Solves the direct problem: the point `distance` metres from `start` along the geodesic
    /// that leaves `start` with azimuth `azimuth` (degrees clockwise from north).
    ///
    /// A negative distance travels backwards. Distances longer than half the meridian wrap
    /// around the ellipsoid as the geodesic does.
    public func direct(from start: Coordinate, azimuth: Double, distance: Double) -> Direct {
        precondition(azimuth.isFinite && distance.isFinite, "azimuth and distance must be finite")
        return solveDirect(latitude1: start.latitude, longitude1: start.longitude,
                           azimuth1: azimuth, distance: distance)
    }
}

extension Coordinate {
    /// WGS-84 geodesic distance in metres to `other`, accurate to well under 1 mm.
    ///
    /// This solves the full inverse problem (about a microsecond). For many short segments
    /// ``LocalApproximation/distance(_:_:)`` is several times faster and, under
    /// ``LocalApproximation/maximumRecommendedDistance``, still ellipsoid-accurate.
    public func distance(to other: Coordinate) -> Double {
        Geodesic.wgs84.inverse(self, other).distance
    }
}
