import Foundation
import WaymarkGeo

/// A position in API replies (`{"device_id","timestamp","lat","lon","altitude","accuracy",…}`: every key
/// present, unknown values null; `simulated_by_software` and `produced_by_accessory` are null when the fix's
/// origin is unknown, `impossible_speed` is always true or false), for `JSONEncoder`, which is far faster than `JSONSerialization` with sorted keys.
struct PositionReply: Encodable {
    let position: Position
    /// False for a GeoJSON feature's properties (the coordinates are its geometry).
    let coordinates: Bool

    init(position: Position) { self.init(position: position, coordinates: true) }

    init(position: Position, coordinates: Bool) {
        self.position = position
        self.coordinates = coordinates
    }

    enum Key: String, CodingKey {
        case deviceID = "device_id", timestamp, lat, lon, altitude, accuracy, verticalAccuracy = "vertical_accuracy"
        case speed, course, battery, charging, activity, source
        case simulatedBySoftware = "simulated_by_software", producedByAccessory = "produced_by_accessory"
        case impossibleSpeed = "impossible_speed"
    }

    func encode(to encoder: any Encoder) throws {
        let p = position, f = position.fix
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(p.deviceID, forKey: .deviceID)
        try c.encode(TimestampParser.format(f.timestamp), forKey: .timestamp)
        if coordinates {
            try c.encode(f.coordinate.latitude, forKey: .lat)
            try c.encode(f.coordinate.longitude, forKey: .lon)
        }
        try c.encode(f.altitude, forKey: .altitude)
        try c.encode(f.horizontalAccuracy, forKey: .accuracy)
        try c.encode(f.verticalAccuracy, forKey: .verticalAccuracy)
        try c.encode(f.speed, forKey: .speed)
        try c.encode(f.course, forKey: .course)
        try c.encode(p.batteryLevel, forKey: .battery)
        try c.encode(p.isCharging, forKey: .charging)
        try c.encode(p.activity, forKey: .activity)
        try c.encode(f.source.rawValue, forKey: .source)
        try c.encode(f.sourceInformation?.isSimulatedBySoftware, forKey: .simulatedBySoftware)
        try c.encode(f.sourceInformation?.isProducedByAccessory, forKey: .producedByAccessory)
        try c.encode(f.impliesImpossibleSpeed, forKey: .impossibleSpeed)
    }
}

/// `{"type":"Feature","geometry":{"type":"Point","coordinates":[lon,lat]},"properties":{…}}`: a position in a GeoJSON export.
struct PositionFeature: Encodable {
    let position: Position

    enum Key: String, CodingKey { case type, geometry, properties }
    enum GeometryKey: String, CodingKey { case type, coordinates }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode("Feature", forKey: .type)
        var geometry = c.nestedContainer(keyedBy: GeometryKey.self, forKey: .geometry)
        try geometry.encode("Point", forKey: .type)
        try geometry.encode([position.fix.coordinate.longitude, position.fix.coordinate.latitude], forKey: .coordinates)
        try c.encode(PositionReply(position: position, coordinates: false), forKey: .properties)
    }
}

/// `{"positions":[…],"next_cursor":…}`: a page of positions.
struct PositionPage: Encodable {
    let positions: [PositionReply]
    let nextCursor: String?

    enum Key: String, CodingKey { case positions, nextCursor = "next_cursor" }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(positions, forKey: .positions)
        try c.encode(nextCursor, forKey: .nextCursor)
    }
}

/// A device in API replies: `{"id","name","created","revoked"}`, with its last position (`last`, null when it
/// has none) in the device list, or its token (`token`, shown once) when it was just registered.
struct DeviceReply: Encodable {
    /// What a reply adds to the device's own fields.
    enum Addition {
        case last(Position?)
        case token(String)
    }

    let device: DeviceRecord
    let addition: Addition

    enum Key: String, CodingKey { case id, name, created, revoked, last, token }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(device.id, forKey: .id)
        try c.encode(device.name, forKey: .name)
        try c.encode(TimestampParser.format(device.createdAt), forKey: .created)
        try c.encode(device.revokedAt.map(TimestampParser.format), forKey: .revoked)
        switch addition {
        case .last(let position): try c.encode(position.map(PositionReply.init(position:)), forKey: .last)
        case .token(let token): try c.encode(token, forKey: .token)
        }
    }
}
