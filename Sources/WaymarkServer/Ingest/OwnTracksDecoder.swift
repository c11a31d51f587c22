import Foundation
import WaymarkGeo

/// Decodes OwnTracks HTTP payloads (one JSON object, or an array of them).
///
/// `_type` `location` is a position: `lat`, `lon`, `tst` (epoch seconds), `acc`/`vac` (m), `alt`
/// (m), `vel` (km/h, converted to m/s), `cog` (degrees), `batt` (percent, converted to a fraction)
/// and `bs` (0 unknown, 1 unplugged, 2 charging, 3 full).
///
/// What the apps mean by their values (owntracks/ios `OwnTracks/OwnTracks/OwnTracksAppDelegate` and
/// `Connection`; owntracks/android `MessageLocation.kt`; see Docs/SERVER.md):
/// - `alt 0` without a positive `vac` is "no altitude": the iOS app sends `alt` without `vac` when iOS
///   reported no valid altitude (then 0), and Android up to 2.5.6 sends `alt 0, vac 0` for "unknown". A
///   non-zero `alt` without `vac` is kept (Android before API 26 has no vertical accuracy; trackers
///   speaking the protocol send none).
/// - `cog 0` with no or zero `vel` is "no course" (older Android versions fill 0).
///
/// Every other `_type` (`transition`, `status`, `waypoint(s)`, `lwt`, `card`, `steps`, `beacon`,
/// `encrypted`…) is a record without a position of its own: a ``DeviceEventRecord`` `owntracks.<type>`. A
/// transition repeats the fix of the `location` message sent with it, which is the point stored;
/// an encrypted message cannot be read here (no key) and is kept whole rather than dropped.
enum OwnTracksDecoder {
    /// The points (location messages) and device events (every other type) of an OwnTracks body.
    static func decode(_ json: Any, limits: DecodeLimits = DecodeLimits()) throws -> DecodedBody {
        let messages: [Any]
        if let array = json as? [Any] { messages = array } else { messages = [json] }
        guard messages.count <= limits.maxEntries else { throw limits.tooManyEntries(messages.count) }
        var body = DecodedBody()
        for message in messages {
            guard let object = message as? [String: Any] else {
                throw ServerError(.malformedBody, #"expected an OwnTracks object {"_type":"location",…}"#)
            }
            guard let type = object["_type"] as? String else {
                throw ServerError(.malformedBody, "an OwnTracks message has no '_type'")
            }
            guard type == "location" else {
                // `tst` 0 is "no location known" (iOS transitions); `created_at` is when the message was made.
                let time = [object["tst"], object["created_at"]].lazy.compactMap { JSONBody.double($0) }
                    .first { $0 > 0 && $0.isFinite }.map { Date(timeIntervalSince1970: $0) }
                body.events.append(EventCandidate(kind: "owntracks.\(type)", time: time, record: object))
                continue
            }
            body.candidates.append(candidate(from: object))
        }
        return body
    }

    static func candidate(from o: [String: Any]) -> PositionCandidate {
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
        if c.altitude == 0, (c.verticalAccuracy ?? 0) <= 0 { c.altitude = nil }
        c.speed = JSONBody.double(o["vel"]).map { $0 / 3.6 }
        c.course = JSONBody.double(o["cog"])
        if c.course == 0, (c.speed ?? 0) == 0 { c.course = nil }
        c.batteryLevel = JSONBody.double(o["batt"]).map { $0 / 100 }
        switch JSONBody.double(o["bs"]) {
        case 1: c.isCharging = false
        case 2, 3: c.isCharging = true
        default: break
        }
        c.source = .fused
        return c
    }
}
