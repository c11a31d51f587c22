import Foundation

/// One position reading from a location source, with the quality it was reported with.
///
/// Units are SI: metres, metres per second, degrees clockwise from true north,
/// and the timestamp at which the position was measured (not when it arrived).
///
/// ```swift
/// let fix = Fix(coordinate: try Coordinate(latitude: 46.05, longitude: 14.5),
///               horizontalAccuracy: 8, speed: 5.5, course: 270,
///               timestamp: Date(timeIntervalSince1970: 1_700_000_000), source: .gnss)
/// ```
public struct Fix: Hashable, Sendable, Codable {
    /// Where the source says the device is.
    public var coordinate: Coordinate
    /// Metres above mean sea level, if known.
    public var altitude: Double?
    /// Radius in metres of the 68% confidence circle; nil when unknown.
    public var horizontalAccuracy: Double?
    /// Vertical accuracy in metres; nil when unknown.
    public var verticalAccuracy: Double?
    /// Ground speed in metres per second; nil when unknown.
    public var speed: Double?
    /// Course over ground in degrees clockwise from true north, [0, 360); nil when unknown.
    public var course: Double?
    /// When the position was measured.
    public var timestamp: Date
    /// Which kind of source produced the fix.
    public var source: Source

    /// The kind of positioning source.
    public enum Source: String, Hashable, Sendable, Codable, CaseIterable {
        /// Satellite positioning (GPS, Galileo...).
        case gnss
        /// Wi-Fi positioning.
        case wifi
        /// Cell-tower positioning.
        case cell
        /// A fusion of sources, or the OS did not say.
        case fused
        /// Read from a file (GPX, GeoJSON, CSV).
        case file
        /// Unknown.
        case unknown
    }

    public init(coordinate: Coordinate, altitude: Double? = nil, horizontalAccuracy: Double? = nil,
                verticalAccuracy: Double? = nil, speed: Double? = nil, course: Double? = nil,
                timestamp: Date, source: Source = .unknown) {
        self.coordinate = coordinate
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.speed = speed
        self.course = course
        self.timestamp = timestamp
        self.source = source
    }
}
