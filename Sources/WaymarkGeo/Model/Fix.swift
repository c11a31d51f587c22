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
///
/// Besides its values a fix carries two honesty marks: where the OS says it came from
/// (``sourceInformation``: a mock-location app, an external GNSS accessory), and whether a filter
/// found that it implies an impossible speed (``impliesImpossibleSpeed``). Neither changes the
/// position; they tell whoever reads the track how far to trust it.
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
    /// What the OS said about the origin of the fix; nil when it said nothing (unknown, which is not
    /// the same as "not simulated").
    public var sourceInformation: SourceInformation?
    /// Whether the fix implies a speed no device can reach from the fix before it (set by
    /// ``SpeedOutlierFilter`` in its ``SpeedOutlierFilter/Mode/flag`` mode). A flagged fix is kept
    /// and shown for what it is, but it is no reference for distance, statistics or later checks.
    public var impliesImpossibleSpeed: Bool

    /// The origin of a fix as the OS reports it: Core Location's `CLLocationSourceInformation`
    /// (iOS 15 and later).
    ///
    /// A fix without it (``Fix/sourceInformation`` nil) has an unknown origin: an older OS, a file,
    /// or a source that does not say.
    public struct SourceInformation: Hashable, Sendable, Codable {
        /// Whether software simulated the location (a mock-location app, Xcode's simulated location):
        /// `CLLocationSourceInformation.isSimulatedBySoftware`.
        public var isSimulatedBySoftware: Bool
        /// Whether an external accessory (a Bluetooth or Lightning GNSS receiver, CarPlay) produced
        /// the location: `CLLocationSourceInformation.isProducedByAccessory`.
        public var isProducedByAccessory: Bool

        /// Makes a value from the OS's two flags.
        public init(isSimulatedBySoftware: Bool, isProducedByAccessory: Bool) {
            self.isSimulatedBySoftware = isSimulatedBySoftware
            self.isProducedByAccessory = isProducedByAccessory
        }
    }

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
                timestamp: Date, source: Source = .unknown, sourceInformation: SourceInformation? = nil,
                impliesImpossibleSpeed: Bool = false) {
        self.coordinate = coordinate
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.speed = speed
        self.course = course
        self.timestamp = timestamp
        self.source = source
        self.sourceInformation = sourceInformation
        self.impliesImpossibleSpeed = impliesImpossibleSpeed
    }

    private enum CodingKeys: String, CodingKey {
        case coordinate, altitude, horizontalAccuracy, verticalAccuracy, speed, course, timestamp, source
        case sourceInformation, impliesImpossibleSpeed
    }

    /// Reads a fix; the honesty marks are optional, so JSON written before they existed still reads
    /// (as an unknown origin and no impossible speed).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(coordinate: try c.decode(Coordinate.self, forKey: .coordinate),
                  altitude: try c.decodeIfPresent(Double.self, forKey: .altitude),
                  horizontalAccuracy: try c.decodeIfPresent(Double.self, forKey: .horizontalAccuracy),
                  verticalAccuracy: try c.decodeIfPresent(Double.self, forKey: .verticalAccuracy),
                  speed: try c.decodeIfPresent(Double.self, forKey: .speed),
                  course: try c.decodeIfPresent(Double.self, forKey: .course),
                  timestamp: try c.decode(Date.self, forKey: .timestamp),
                  source: try c.decode(Source.self, forKey: .source),
                  sourceInformation: try c.decodeIfPresent(SourceInformation.self, forKey: .sourceInformation),
                  impliesImpossibleSpeed: try c.decodeIfPresent(Bool.self, forKey: .impliesImpossibleSpeed) ?? false)
    }

    /// Writes a fix; a fix with no honesty marks writes the same keys as before they existed.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(coordinate, forKey: .coordinate)
        try c.encodeIfPresent(altitude, forKey: .altitude)
        try c.encodeIfPresent(horizontalAccuracy, forKey: .horizontalAccuracy)
        try c.encodeIfPresent(verticalAccuracy, forKey: .verticalAccuracy)
        try c.encodeIfPresent(speed, forKey: .speed)
        try c.encodeIfPresent(course, forKey: .course)
        try c.encode(timestamp, forKey: .timestamp)
        try c.encode(source, forKey: .source)
        try c.encodeIfPresent(sourceInformation, forKey: .sourceInformation)
        if impliesImpossibleSpeed { try c.encode(true, forKey: .impliesImpossibleSpeed) }
    }
}

extension Fix {
    /// The honesty marks packed in one small integer, for stores that keep them in one column.
    ///
    /// | bit | value | meaning |
    /// |-----|-------|---------|
    /// | 0 | 1 | ``sourceInformation`` is known |
    /// | 1 | 2 | ``SourceInformation/isSimulatedBySoftware`` |
    /// | 2 | 4 | ``SourceInformation/isProducedByAccessory`` |
    /// | 3 | 8 | ``impliesImpossibleSpeed`` |
    ///
    /// 0 is a fix with an unknown origin and no flag, which is what a row written before the marks
    /// existed holds. Setting reads the bits back; bits 1 and 2 without bit 0, and higher bits, are ignored.
    public var packedFlags: Int {
        get {
            var bits = 0
            if let info = sourceInformation {
                bits |= 1
                if info.isSimulatedBySoftware { bits |= 2 }
                if info.isProducedByAccessory { bits |= 4 }
            }
            if impliesImpossibleSpeed { bits |= 8 }
            return bits
        }
        set {
            sourceInformation = newValue & 1 == 0 ? nil
                : SourceInformation(isSimulatedBySoftware: newValue & 2 != 0, isProducedByAccessory: newValue & 4 != 0)
            impliesImpossibleSpeed = newValue & 8 != 0
        }
    }

    /// Whether the fix carries an honesty mark: a known origin or the impossible-speed flag.
    public var hasHonestyMarks: Bool { sourceInformation != nil || impliesImpossibleSpeed }
}
