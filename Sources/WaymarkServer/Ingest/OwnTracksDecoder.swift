import Foundation
import WaymarkGeo

/// Decodes OwnTracks HTTP payloads (one JSON object, or an array of them).
///
/// `_type` `location` and `transition` carry a position: `lat`, `lon`, `tst` (epoch seconds),
/// `acc`/`vac` (m), `alt` (m), `vel` (km/h, converted to m/s), `cog` (degrees), `batt`
/// (percent, converted to a fraction) and `bs` (1 unplugged, 2 charging, 3 full). `waypoint`,
/// `waypoints` and every other type are acknowledged without storing a position.
enum OwnTracksDecoder {
    /// The result: candidates, and whether any message was of a positional type.
    static func decode(_ json: Any, limits: DecodeLimits = DecodeLimits()) throws -> (body: DecodedBody, positional: Int) {
        let messages: [Any]
        if let array = json as? [Any] { messages = array } else { messages = [json] }
        guard messages.count <= limits.maxEntries else { throw limits.tooManyEntries(messages.count) }
        var body = DecodedBody()
        var positional = 0
        for message in messages {
            guard let object = message as? [String: Any] else {
                throw ServerError(.malformedBody, #"expected an OwnTracks object {"_type":"location",…}"#)
            }
            guard let type = object["_type"] as? String else {
                throw ServerError(.malformedBody, "an OwnTracks message has no '_type'")
            }
            guard type == "location" || type == "transition" else { continue }
            positional += 1
            body.candidates.append(candidate(from: object, type: type))
        }
        return (body, positional)
    }

    static func candidate(from o: [String: Any], type: String) -> PositionCandidate {
        var c = PositionCandidate()
        c.names = .init(latitude: "lat", longitude: "lon", timestamp: "tst")
        c.latitude = JSONBody.double(o["lat"])
        c.longitude = JSONBody.double(o["lon"])
        if let raw = o["tst"] {
            c.timestamp = JSONBody.double(raw).map { Date(timeIntervalSince1970: $0) }
            if c.timestamp == nil { c.problems.append(("tst", "\(ClientText.quoted(raw)) is not epoch seconds")) }
        }
        c.horizontalAccuracy = JSONBody.double(o["acc"])
        c.verticalAccuracy = JSONBody.double(o["vac"])
        c.altitude = JSONBody.double(o["alt"])
        c.speed = JSONBody.double(o["vel"]).map { $0 / 3.6 }
        c.course = JSONBody.double(o["cog"])
        c.batteryLevel = JSONBody.double(o["batt"]).map { $0 / 100 }
        switch JSONBody.double(o["bs"]) {
        case 1: c.isCharging = false
        case 2, 3: c.isCharging = true
        default: break
        }
        if type == "transition", let event = JSONBody.string(o["event"]) {
            c.activity = "transition:\(event)"
        }
        c.source = .fused
        return c
    }
}
