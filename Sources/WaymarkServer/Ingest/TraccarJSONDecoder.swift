import Foundation
import WaymarkGeo

/// Decodes the JSON body of Traccar Client (the transistorsoft background-geolocation shape).
///
/// `{"location":{"timestamp","coords":{latitude,longitude,accuracy,speed,heading,altitude,
/// altitude_accuracy},"battery":{level,is_charging},"activity":{type}},"device_id":TOKEN}`;
/// `location` may also be a list. `speed` is m/s; -1 means unknown for speed, heading,
/// accuracy and battery level.
enum TraccarJSONDecoder {
    static func decode(_ json: Any, limits: DecodeLimits = DecodeLimits()) throws -> DecodedBody {
        guard let root = json as? [String: Any], let location = root["location"] else {
            throw ServerError(.malformedBody, #"expected an object {"location":{…},"device_id":…}"#)
        }
        let items = location as? [Any] ?? [location]
        guard items.count <= limits.maxEntries else { throw limits.tooManyEntries(items.count) }
        return DecodedBody(candidates: items.map(candidate(from:)))
    }

    static func candidate(from item: Any) -> PositionCandidate {
        var c = PositionCandidate()
        c.names = .init(latitude: "location.coords.latitude", longitude: "location.coords.longitude",
                        timestamp: "location.timestamp")
        guard let l = item as? [String: Any] else {
            c.problems.append(("location", "expected an object"))
            return c
        }
        if let raw = l["timestamp"] {
            c.timestamp = JSONBody.date(raw)
            if c.timestamp == nil { c.problems.append(("location.timestamp", "\(ClientText.quoted(raw)) is not an ISO-8601 date-time")) }
        }
        let coords = l["coords"] as? [String: Any] ?? [:]
        c.latitude = JSONBody.double(coords["latitude"])
        c.longitude = JSONBody.double(coords["longitude"])
        c.horizontalAccuracy = JSONBody.double(coords["accuracy"])
        c.verticalAccuracy = JSONBody.double(coords["altitude_accuracy"])
        c.speed = JSONBody.double(coords["speed"])
        c.course = JSONBody.double(coords["heading"])
        c.altitude = JSONBody.double(coords["altitude"])
        if let battery = l["battery"] as? [String: Any] {
            c.batteryLevel = JSONBody.double(battery["level"])
            c.isCharging = JSONBody.bool(battery["is_charging"])
        }
        c.activity = (l["activity"] as? [String: Any]).flatMap { JSONBody.string($0["type"]) }
        c.source = .fused
        return c
    }
}
