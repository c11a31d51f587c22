import Foundation

/// A latitude/longitude rectangle, in degrees.
///
/// Latitudes run from ``minLatitude`` to ``maxLatitude``; longitudes run **eastward** from
/// ``minLongitude`` to ``maxLongitude``. A box that crosses the antimeridian therefore has
/// `minLongitude > maxLongitude` (for example 170° … -170° is 20° wide), and the box that
/// covers every longitude is -180° … 180°.
///
/// ```swift
/// let box = BoundingBox([try Coordinate(latitude: 10, longitude: 179),
///                        try Coordinate(latitude: 12, longitude: -179)])!
/// box.crossesAntimeridian                  // true: 179° … -179°, 2° wide
/// box.contains(try Coordinate(latitude: 11, longitude: 180))   // true
/// let padded = box.expanded(byMeters: 500)
/// ```
///
/// `BoundingBox` is a `Sendable` value type.
public struct BoundingBox: Hashable, Sendable {
    /// Southern edge, degrees in [-90, 90].
    public var minLatitude: Double
    /// Western edge, degrees in [-180, 180).
    public var minLongitude: Double
    /// Northern edge, degrees in [-90, 90].
    public var maxLatitude: Double
    /// Eastern edge, degrees in [-180, 180]; less than ``minLongitude`` when the box crosses
    /// the antimeridian.
    public var maxLongitude: Double

    /// Makes a box from its edges, in degrees; no validation.
    public init(minLatitude: Double, minLongitude: Double, maxLatitude: Double, maxLongitude: Double) {
        self.minLatitude = minLatitude
        self.minLongitude = minLongitude
        self.maxLatitude = maxLatitude
        self.maxLongitude = maxLongitude
    }

    /// The box covering the whole globe.
    public static let world = BoundingBox(minLatitude: -90, minLongitude: -180, maxLatitude: 90, maxLongitude: 180)

    /// The zero-size box at `coordinate`.
    public init(_ coordinate: Coordinate) {
        self.init(minLatitude: coordinate.latitude, minLongitude: coordinate.longitude,
                  maxLatitude: coordinate.latitude, maxLongitude: coordinate.longitude)
    }

    /// The smallest box holding every coordinate, or nil when there are none.
    ///
    /// The longitude range is the shortest arc that holds all the longitudes: the complement of
    /// the widest gap between them around the circle. Points at 179° and -179° give a 2°-wide
    /// box across the antimeridian, not a 358°-wide one. Costs O(n log n) and one array of
    /// longitudes; for streaming use ``formUnion(_:)-(Coordinate)`` instead.
    public init?<S: Sequence>(_ coordinates: S) where S.Element == Coordinate {
        var longitudes: [Double] = []
        longitudes.reserveCapacity(coordinates.underestimatedCount)
        var minLat = Double.infinity, maxLat = -Double.infinity
        for c in coordinates {
            longitudes.append(c.longitude)
            minLat = min(minLat, c.latitude)
            maxLat = max(maxLat, c.latitude)
        }
        guard let first = longitudes.min() else { return nil }
        longitudes.sort()
        // The gap after the last longitude wraps to the first; start there by default.
        var widestGap = first + 360 - longitudes[longitudes.count - 1]
        var start = first, end = longitudes[longitudes.count - 1]
        for i in 1..<longitudes.count where longitudes[i] - longitudes[i - 1] > widestGap {
            widestGap = longitudes[i] - longitudes[i - 1]
            start = longitudes[i]
            end = longitudes[i - 1]
        }
        self.init(minLatitude: minLat, minLongitude: start, maxLatitude: maxLat, maxLongitude: end)
    }

    /// True when the box crosses the antimeridian (`minLongitude > maxLongitude`).
    public var crossesAntimeridian: Bool { minLongitude > maxLongitude }

    /// The eastward width from ``minLongitude`` to ``maxLongitude``, degrees in [0, 360].
    public var longitudeSpan: Double {
        minLongitude <= maxLongitude ? maxLongitude - minLongitude : maxLongitude - minLongitude + 360
    }

    /// The height, degrees in [0, 180].
    public var latitudeSpan: Double { maxLatitude - minLatitude }

    /// True when the box covers every longitude (a polar cap or the world).
    public var coversAllLongitudes: Bool { longitudeSpan >= 360 }

    /// True when the box has no area: a point or a line (zero width or zero height).
    public var isDegenerate: Bool { latitudeSpan == 0 || longitudeSpan == 0 }

    /// The middle of the box: mean latitude and the longitude halfway along the eastward span.
    public var center: Coordinate {
        Coordinate(uncheckedLatitude: (minLatitude + maxLatitude) / 2,
                   longitude: Coordinate.normalizedLongitude(minLongitude + longitudeSpan / 2))
    }
}
