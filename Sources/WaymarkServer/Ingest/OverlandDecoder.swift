import Foundation
import WaymarkGeo
import WaymarkTransport

/// Decodes the native batch format: Overland-compatible GeoJSON `{"locations":[Feature…]}`.
///
/// Each feature is a `Point` with `[longitude, latitude]` coordinates and properties
/// `timestamp` (ISO-8601), `altitude`, `speed` (m/s), `course`, `horizontal_accuracy`,
/// `vertical_accuracy`, `battery_level` (0–1), `battery_state` and `motion` (a list; the first
/// entry becomes the activity). Negative speed, course or accuracy mean "unknown". A Waymark device adds
/// its fix's honesty marks as JSON booleans: `simulated_by_software` and `produced_by_accessory` (the
/// origin iOS reported; absent when unknown) and `impossible_speed` (the device's filter flagged the fix);
/// other values for them are ignored. A feature
/// whose properties say `"waymark_kind":"gap"` is a gap marker from a Waymark device (no
/// geometry; `start`, `end`, `reason`, `ride_id`): it is stored as a ``PositionGap``, not a point. One
/// that says `"waymark_kind":"fence_event"` is the device's own geofence event
/// (``DeviceFenceEventReader``): a ``DeviceEventRecord``, never a point.
///
/// Overland iOS (aaronpk/Overland-iOS, `Overland/LocationManager.m`) sends records that are not fixes in
/// the same `locations` array: app events (`properties.action`: `paused_location_updates`,
/// `will_terminate`…, with the last known coordinates or none), visits (`action: visit`) and trip
/// summaries (`type: trip`, at `[0,0]` when no location was known). Each is a ``DeviceEventRecord``
/// (`overland.<action>`, `overland.trip`), never a point. Its `vertical_accuracy -1` means the altitude
/// is invalid; `motion: []` means no motion data, while `activity` is the app's *setting*, so it is
/// used only when `motion` is absent. Overland Android (OpenHumans/Overland_android, `App.js`: a
/// `locationTemplate` for the transistorsoft plugin) sends `battery_state` as a boolean (the plugin's
/// `battery.is_charging`), which no other client sends; such a feature's `vertical_accuracy -1` is the
/// plugin's `altitude_accuracy -1`, "accuracy unknown", so its altitude is kept.
enum OverlandDecoder {
    static func decode(_ json: Any, limits: DecodeLimits = DecodeLimits()) throws -> DecodedBody {
        guard let root = json as? [String: Any], let locations = root["locations"] as? [Any] else {
            throw ServerError(.malformedBody, #"expected an object {"locations":[Feature…]}"#)
        }
        guard locations.count <= limits.maxEntries else { throw limits.tooManyEntries(locations.count) }
        var body = DecodedBody()
        body.candidates.reserveCapacity(locations.count)
        for item in locations {
            switch DeviceFenceEventReader.read(item) {
            case .event(let event): body.events.append(event)
            case .refused(let refused): body.candidates.append(refused)
            case nil:
                if let event = event(from: item) { body.events.append(event) } else { body.candidates.append(candidate(from: item)) }
            }
        }
        return body
    }

    /// The event an app-event, visit or trip-summary feature is, or nil for a fix (or a gap marker).
    static func event(from item: Any) -> EventCandidate? {
        guard let feature = item as? [String: Any], let p = feature["properties"] as? [String: Any] else { return nil }
        let kind: String
        if let action = JSONBody.string(p["action"]), !action.isEmpty {
            kind = "overland.\(action)"
        } else if JSONBody.string(p["type"]) == "trip" {
            kind = "overland.trip"
        } else {
            return nil
        }
        return EventCandidate(kind: kind, time: p["timestamp"].flatMap(JSONBody.date), record: feature)
    }

    static func candidate(from item: Any) -> PositionCandidate {
        var c = PositionCandidate()
        c.names = .init(latitude: "geometry.coordinates[1]", longitude: "geometry.coordinates[0]",
                        timestamp: "properties.timestamp")
        guard let feature = item as? [String: Any] else {
            c.problems.append(("feature", "expected a GeoJSON Feature object"))
            return c
        }
        if let properties = feature["properties"] as? [String: Any], properties[NativeBatchFormat.kindProperty] as? String == NativeBatchFormat.gapKind {
            var gap = PositionCandidate.GapFields(rideID: JSONBody.string(properties["ride_id"]),
                                                  reason: JSONBody.string(properties["reason"]))
            for name in ["start", "end"] {
                guard let raw = properties[name] else { continue }
                let date = JSONBody.date(raw)
                if date == nil { gap.unreadable.append(("properties.\(name)", "\(raw)")) }
                if name == "start" { gap.start = date } else { gap.end = date }
            }
            c.gap = gap
            return c
        }
        if let geometry = feature["geometry"] as? [String: Any], let coordinates = geometry["coordinates"] as? [Any],
           coordinates.count >= 2 {
            c.longitude = JSONBody.double(coordinates[0])
            c.latitude = JSONBody.double(coordinates[1])
            if coordinates.count >= 3 { c.altitude = JSONBody.double(coordinates[2]) }
        } else {
            c.problems.append(("geometry", "expected a Point geometry with [longitude, latitude] coordinates"))
        }
        let p = feature["properties"] as? [String: Any] ?? [:]
        if let raw = p["timestamp"] {
            c.timestamp = JSONBody.date(raw)
            if c.timestamp == nil {
                c.problems.append(("properties.timestamp", "\(ClientText.quoted(raw)) is not an ISO-8601 date-time or epoch number"))
            }
        }
        c.altitude = JSONBody.double(p["altitude"]) ?? c.altitude
        c.speed = JSONBody.double(p["speed"])
        c.course = JSONBody.double(p["course"])
        c.horizontalAccuracy = JSONBody.double(p["horizontal_accuracy"])
        c.verticalAccuracy = JSONBody.double(p["vertical_accuracy"])
        c.batteryLevel = JSONBody.double(p["battery_level"])
        if let state = p["battery_state"] as? NSNumber, JSONBody.isBoolean(state) {
            c.isCharging = state.boolValue
            c.negativeVerticalAccuracyVoidsAltitude = false
        } else {
            switch JSONBody.string(p["battery_state"]) {
            case "charging", "full": c.isCharging = true
            case "unplugged": c.isCharging = false
            default: break
            }
        }
        if let motion = p["motion"] as? [Any] {
            c.activity = motion.first.flatMap(JSONBody.string)
        } else {
            c.activity = JSONBody.string(p["activity"])
        }
        c.source = .fused
        // Honesty marks of a Waymark device (NativeBatchFormat): JSON booleans only; anything else is ignored.
        func flag(_ name: String) -> Bool? {
            guard let n = p[name] as? NSNumber, JSONBody.isBoolean(n) else { return nil }
            return n.boolValue
        }
        c.simulatedBySoftware = flag("simulated_by_software")
        c.producedByAccessory = flag("produced_by_accessory")
        c.impliesImpossibleSpeed = flag("impossible_speed") ?? false
        return c
    }
}
