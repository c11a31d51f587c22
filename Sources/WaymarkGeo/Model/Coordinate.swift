/// A position on the WGS-84 ellipsoid, in degrees.
///
/// Latitude is in [-90, 90]; longitude is normalised to [-180, 180). NaN and
/// infinities are rejected:
///
/// ```swift
/// let zurich = try Coordinate(latitude: 47.3769, longitude: 8.5417)
/// let wrapped = try Coordinate(latitude: 0, longitude: 190)   // longitude -170
/// ```
///
/// `Coordinate` is a `Sendable` value type.
public struct Coordinate: Hashable, Sendable {
    /// Degrees north of the equator, in [-90, 90].
    public let latitude: Double
    /// Degrees east of Greenwich, in [-180, 180).
    public let longitude: Double

    /// Makes a coordinate, normalising the longitude into [-180, 180).
    ///
    /// - throws: ``GeoError`` with code ``GeoError/Code/invalidCoordinate`` when
    ///   either value is NaN or infinite, or the latitude is outside [-90, 90].
    public init(latitude: Double, longitude: Double) throws(GeoError) {
        guard latitude.isFinite, longitude.isFinite else {
            throw GeoError(.invalidCoordinate, "coordinate (\(latitude), \(longitude)) is not finite; expected numbers")
        }
        guard (-90.0...90.0).contains(latitude) else {
            throw GeoError(.invalidCoordinate, "latitude \(latitude) is out of range; expected a value in [-90, 90]")
        }
        self.latitude = latitude
        self.longitude = Coordinate.normalizedLongitude(longitude)
    }

    /// Makes a coordinate from values the caller has already validated.
    ///
    /// Use on hot paths only. A precondition checks the ranges in debug builds.
    @inlinable
    public init(uncheckedLatitude latitude: Double, longitude: Double) {
        assert(latitude.isFinite && longitude.isFinite && abs(latitude) <= 90 && longitude >= -180 && longitude < 180,
               "invalid unchecked coordinate \(latitude), \(longitude)")
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Wraps any finite longitude into [-180, 180).
    @inlinable
    public static func normalizedLongitude(_ longitude: Double) -> Double {
        if longitude >= -180 && longitude < 180 { return longitude }
        var l = (longitude + 180).truncatingRemainder(dividingBy: 360)
        if l < 0 { l += 360 }
        let result = l - 180
        return result >= 180 ? -180 : result
    }
}

extension Coordinate: CustomStringConvertible {
    public var description: String { "(\(latitude), \(longitude))" }
}

extension Coordinate: Codable {
    private enum CodingKeys: String, CodingKey { case latitude, longitude }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let lat = try c.decode(Double.self, forKey: .latitude)
        let lon = try c.decode(Double.self, forKey: .longitude)
        do {
            try self.init(latitude: lat, longitude: lon)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .latitude, in: c, debugDescription: error.message)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(latitude, forKey: .latitude)
        try c.encode(longitude, forKey: .longitude)
    }
}
