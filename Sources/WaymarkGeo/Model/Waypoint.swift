import Foundation

/// A point as GPX describes it (`wptType`): used for waypoints, route points and track points.
///
/// Only ``coordinate`` is required. Units are SI: elevation in metres, speed in
/// metres per second, course in degrees.
///
/// Storage is compact so that streaming millions of track points stays cheap:
/// optional numbers are kept as NaN when absent (so assigning `.nan` to one of
/// them makes it nil), and the rarely used ``details`` and ``extensions`` are
/// stored out of line only when set. Equality and hashing are by the public values.
///
/// ```swift
/// var point = Waypoint(coordinate: try Coordinate(latitude: 46.05, longitude: 14.5), elevation: 295)
/// point.time = Date(timeIntervalSince1970: 1_714_550_400)
/// point.extensions.heartRate = 132
/// ```
public struct Waypoint: Hashable, Sendable {
    /// The position (GPX `lat` and `lon` attributes).
    public var coordinate: Coordinate
    private var elevationValue = Double.nan
    private var timeValue = Double.nan
    private var speedValue = Double.nan
    private var courseValue = Double.nan
    private var hdopValue = Double.nan
    private var vdopValue = Double.nan
    private var pdopValue = Double.nan
    private var satellitesValue = Int.min
    /// Satellite fix kind (`<fix>`).
    public var fix: GPXFixType?
    private var detailsStorage: Box<WaypointDetails>?
    private var extensionsStorage: Box<PointExtensions>?

    /// Elevation in metres (`<ele>`).
    public var elevation: Double? {
        get { elevationValue.isNaN ? nil : elevationValue }
        set { elevationValue = newValue ?? .nan }
    }
    /// UTC time of the point (`<time>`), fractional seconds kept.
    public var time: Date? {
        get { timeValue.isNaN ? nil : Date(timeIntervalSinceReferenceDate: timeValue) }
        set { timeValue = newValue?.timeIntervalSinceReferenceDate ?? .nan }
    }
    /// GPX 1.0 `<speed>` or a speed extension, metres per second.
    public var speed: Double? {
        get { speedValue.isNaN ? nil : speedValue }
        set { speedValue = newValue ?? .nan }
    }
    /// GPX 1.0 `<course>` or a course extension, degrees clockwise from true north.
    public var course: Double? {
        get { courseValue.isNaN ? nil : courseValue }
        set { courseValue = newValue ?? .nan }
    }
    /// Number of satellites (`<sat>`).
    public var satellites: Int? {
        get { satellitesValue == .min ? nil : satellitesValue }
        set { satellitesValue = newValue ?? .min }
    }
    /// Horizontal dilution of precision (`<hdop>`).
    public var hdop: Double? {
        get { hdopValue.isNaN ? nil : hdopValue }
        set { hdopValue = newValue ?? .nan }
    }
    /// Vertical dilution of precision (`<vdop>`).
    public var vdop: Double? {
        get { vdopValue.isNaN ? nil : vdopValue }
        set { vdopValue = newValue ?? .nan }
    }
    /// Position dilution of precision (`<pdop>`).
    public var pdop: Double? {
        get { pdopValue.isNaN ? nil : pdopValue }
        set { pdopValue = newValue ?? .nan }
    }
    /// Name, comment, description and the rarely used fields; empty for most track points.
    public var details: WaypointDetails {
        get { detailsStorage?.value ?? WaypointDetails() }
        set { detailsStorage = newValue.isEmpty ? nil : Box(newValue) }
    }
    /// Extension data: typed Garmin TrackPointExtension fields and raw unknown XML.
    public var extensions: PointExtensions {
        get { extensionsStorage?.value ?? PointExtensions() }
        set { extensionsStorage = newValue.isEmpty ? nil : Box(newValue) }
    }

    /// Makes a point; every field but the coordinate is optional.
    public init(coordinate: Coordinate, elevation: Double? = nil, time: Date? = nil,
                speed: Double? = nil, course: Double? = nil, fix: GPXFixType? = nil,
                satellites: Int? = nil, hdop: Double? = nil, vdop: Double? = nil, pdop: Double? = nil,
                details: WaypointDetails? = nil, extensions: PointExtensions? = nil) {
        self.coordinate = coordinate
        self.fix = fix
        self.elevation = elevation
        self.time = time
        self.speed = speed
        self.course = course
        self.satellites = satellites
        self.hdop = hdop
        self.vdop = vdop
        self.pdop = pdop
        if let details, !details.isEmpty { detailsStorage = Box(details) }
        if let extensions, !extensions.isEmpty { extensionsStorage = Box(extensions) }
    }

    public static func == (a: Waypoint, b: Waypoint) -> Bool {
        a.coordinate == b.coordinate && a.elevation == b.elevation && a.time == b.time && a.speed == b.speed
            && a.course == b.course && a.fix == b.fix && a.satellites == b.satellites && a.hdop == b.hdop
            && a.vdop == b.vdop && a.pdop == b.pdop && a.detailsStorage == b.detailsStorage
            && a.extensionsStorage == b.extensionsStorage
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(coordinate)
        hasher.combine(elevation)
        hasher.combine(time)
        hasher.combine(satellites)
        hasher.combine(detailsStorage)
        hasher.combine(extensionsStorage)
    }
}

/// Immutable out-of-line storage for rarely set values; compared and hashed by value.
private final class Box<Value: Hashable & Sendable>: Hashable, Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
    static func == (a: Box, b: Box) -> Bool { a === b || a.value == b.value }
    func hash(into hasher: inout Hasher) { hasher.combine(value) }
}

/// The descriptive and rarely used fields of a GPX point.
public struct WaypointDetails: Hashable, Sendable {
    public var name: String?
    public var comment: String?
    public var description: String?
    public var source: String?
    public var links: [GPXLink]
    public var symbol: String?
    public var type: String?
    /// Magnetic variation in degrees (`<magvar>`).
    public var magneticVariation: Double?
    /// Height of the geoid above the WGS-84 ellipsoid in metres (`<geoidheight>`).
    public var geoidHeight: Double?
    /// Seconds since the last DGPS update (`<ageofdgpsdata>`).
    public var ageOfDGPSData: Double?
    /// DGPS station id (`<dgpsid>`), 0...1023.
    public var dgpsID: Int?

    public init(name: String? = nil, comment: String? = nil, description: String? = nil, source: String? = nil,
                links: [GPXLink] = [], symbol: String? = nil, type: String? = nil,
                magneticVariation: Double? = nil, geoidHeight: Double? = nil,
                ageOfDGPSData: Double? = nil, dgpsID: Int? = nil) {
        self.name = name
        self.comment = comment
        self.description = description
        self.source = source
        self.links = links
        self.symbol = symbol
        self.type = type
        self.magneticVariation = magneticVariation
        self.geoidHeight = geoidHeight
        self.ageOfDGPSData = ageOfDGPSData
        self.dgpsID = dgpsID
    }

    /// True when no field is set.
    public var isEmpty: Bool { self == WaypointDetails() }
}

/// GPX `<fix>` values.
public enum GPXFixType: String, Hashable, Sendable, CaseIterable {
    case none
    case twoD = "2d"
    case threeD = "3d"
    case dgps
    case pps
}

/// A GPX `<link>` (1.1) or `<url>`/`<urlname>` pair (1.0).
public struct GPXLink: Hashable, Sendable {
    public var href: String
    public var text: String?
    public var type: String?

    public init(href: String, text: String? = nil, type: String? = nil) {
        self.href = href
        self.text = text
        self.type = type
    }
}

/// Extension data on a point.
///
/// Garmin's TrackPointExtension (v1 and v2) fields become typed values; every
/// other extension element is kept as raw XML text so a writer can emit it again.
public struct PointExtensions: Hashable, Sendable {
    /// Heart rate, beats per minute (`gpxtpx:hr`).
    public var heartRate: Int?
    /// Cadence, revolutions per minute (`gpxtpx:cad`).
    public var cadence: Int?
    /// Air temperature, degrees Celsius (`gpxtpx:atemp`).
    public var temperature: Double?
    /// Water temperature, degrees Celsius (`gpxtpx:wtemp`).
    public var waterTemperature: Double?
    /// Power, watts (`power` or `gpxpx:PowerInWatts`).
    public var power: Double?
    /// Unknown extension elements, each as its XML text (namespace prefixes as written).
    public var raw: [String]

    public init(heartRate: Int? = nil, cadence: Int? = nil, temperature: Double? = nil,
                waterTemperature: Double? = nil, power: Double? = nil, raw: [String] = []) {
        self.heartRate = heartRate
        self.cadence = cadence
        self.temperature = temperature
        self.waterTemperature = waterTemperature
        self.power = power
        self.raw = raw
    }

    /// True when nothing is set.
    public var isEmpty: Bool { self == PointExtensions() }
}
