import Foundation

/// A point as GPX describes it (`wptType`): used for waypoints, route points and track points.
///
/// Only ``coordinate`` is required. Units are SI: elevation in metres, speed in
/// metres per second, course in degrees.
public struct Waypoint: Hashable, Sendable {
    /// The position (GPX `lat` and `lon` attributes).
    public var coordinate: Coordinate
    /// Elevation in metres (`<ele>`).
    public var elevation: Double?
    /// UTC time of the point (`<time>`), fractional seconds kept.
    public var time: Date?
    /// GPX 1.0 `<speed>` or a speed extension, metres per second.
    public var speed: Double?
    /// GPX 1.0 `<course>` or a course extension, degrees clockwise from true north.
    public var course: Double?
    /// Satellite fix kind (`<fix>`).
    public var fix: GPXFixType?
    /// Number of satellites (`<sat>`).
    public var satellites: Int?
    /// Horizontal dilution of precision (`<hdop>`).
    public var hdop: Double?
    /// Vertical dilution of precision (`<vdop>`).
    public var vdop: Double?
    /// Position dilution of precision (`<pdop>`).
    public var pdop: Double?
    /// Name, comment, description and the rarely used fields; empty for most track points.
    public var details: WaypointDetails
    /// Extension data: typed Garmin TrackPointExtension fields and raw unknown XML.
    public var extensions: PointExtensions

    public init(coordinate: Coordinate, elevation: Double? = nil, time: Date? = nil,
                speed: Double? = nil, course: Double? = nil, fix: GPXFixType? = nil,
                satellites: Int? = nil, hdop: Double? = nil, vdop: Double? = nil, pdop: Double? = nil,
                details: WaypointDetails = WaypointDetails(), extensions: PointExtensions = PointExtensions()) {
        self.coordinate = coordinate
        self.elevation = elevation
        self.time = time
        self.speed = speed
        self.course = course
        self.fix = fix
        self.satellites = satellites
        self.hdop = hdop
        self.vdop = vdop
        self.pdop = pdop
        self.details = details
        self.extensions = extensions
    }
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
