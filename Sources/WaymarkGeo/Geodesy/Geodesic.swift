import Foundation

/// Geodesics on an ellipsoid of revolution (WGS-84 by default): the inverse and direct problems.
///
/// PLACEHOLDER API: the bodies below are spherical until the ellipsoidal solution lands.
public struct Geodesic: Sendable {
    /// Equatorial radius, metres.
    public let equatorialRadius: Double
    /// Flattening.
    public let flattening: Double

    public init(equatorialRadius: Double, flattening: Double) {
        self.equatorialRadius = equatorialRadius
        self.flattening = flattening
    }

    /// The WGS-84 ellipsoid: a = 6378137 m, f = 1/298.257223563.
    public static let wgs84 = Geodesic(equatorialRadius: 6_378_137, flattening: 1 / 298.257223563)

    /// The result of the inverse problem.
    public struct Inverse: Hashable, Sendable {
        /// Geodesic distance, metres.
        public var distance: Double
        /// Azimuth at the first point, degrees clockwise from north, (-180, 180].
        public var initialAzimuth: Double
        /// Forward azimuth at the second point, degrees, (-180, 180].
        public var finalAzimuth: Double
    }

    /// The result of the direct problem.
    public struct Direct: Hashable, Sendable {
        public var destination: Coordinate
        /// Forward azimuth at the destination, degrees, (-180, 180].
        public var finalAzimuth: Double
    }

    /// Shortest geodesic between two points.
    public func inverse(_ a: Coordinate, _ b: Coordinate) -> Inverse {
        let d = Geodesy.haversineDistance(a, b)
        let az = Geodesy.initialBearing(from: a, to: b)
        return Inverse(distance: d, initialAzimuth: az > 180 ? az - 360 : az, finalAzimuth: az > 180 ? az - 360 : az)
    }

    /// The point `distance` metres from `start` along the geodesic with initial azimuth `azimuth` degrees.
    public func direct(from start: Coordinate, azimuth: Double, distance: Double) -> Direct {
        Direct(destination: Geodesy.destination(from: start, bearing: azimuth, distance: distance), finalAzimuth: azimuth)
    }
}

extension Coordinate {
    /// WGS-84 geodesic distance in metres (accurate to well under 1 mm).
    public func distance(to other: Coordinate) -> Double {
        Geodesic.wgs84.inverse(self, other).distance
    }
}
