import Foundation
import WaymarkGeo

/// Decodes the OsmAnd protocol as Traccar Client sends it (query string or form body).
///
/// Fields: `id`/`deviceid` (the device token), `lat`+`lon` or `location=lat,lon`,
/// `timestamp` (epoch seconds or milliseconds, ISO-8601, or `yyyy-MM-dd HH:mm:ss` in UTC;
/// the receive time when absent), `speed` (knots, converted to m/s), `bearing`/`heading`
/// (degrees), `altitude` (m), `accuracy`/`hacc` and `vacc` (m), `batt` (percent, converted to a
/// fraction) and `charge` (true/false). `hdop` is read but not stored: it is not a distance.
/// `latitude`/`longitude` and `time` are read too (GPSLogger's default template uses them), and
/// `speed_mps` (m/s, Waymark's own name) wins over `speed` for templates that can only send m/s.
/// Colota's own field names are read as Colota means them (dietrichmax/colota `sync/PayloadBuilder.kt`):
/// `acc`, `alt`, `bear`, `tst` (epoch seconds), `vel` (m/s) and `bs`, the battery status code OwnTracks
/// also uses (0 unknown, 1 unplugged, 2 charging, 3 full), which wins over `charge`.
///
/// A request with no coordinates at all is a record without a position, a ``DeviceEventRecord``
/// `osmand.status` holding its fields (the token fields left out): Traccar Client 10 sends its
/// heartbeat with battery values and no fix (traccar/traccar-client-sdk), and registers its push token
/// with `notificationToken`; refusing them would stall its queue, which resends the head request forever.
/// Legacy Traccar Client iOS sends `batt=0&charge=true` when it cannot read the battery
/// (traccar/traccar-client-ios `TraccarClient/PositionProvider.m`): both are then unknown.
enum OsmAndDecoder {
    /// Metres per second in one knot.
    static let metresPerSecondPerKnot = 1852.0 / 3600.0

    /// Form fields that carry the device's token: never stored in an event.
    static let credentialFields: Set<String> = ["id", "deviceid", "token"]

    /// Whether the device was charging, from a battery status code (OwnTracks `bs`, Colota): 0 is unknown,
    /// 1 unplugged, 2 charging, 3 full (on the charger); any other value is unknown.
    static func batteryStatus(_ code: String) -> Bool? {
        switch code.trimmingCharacters(in: .whitespaces) {
        case "1": false
        case "2", "3": true
        default: nil
        }
    }

    static func decode(_ fields: FormFields, receivedAt: Date) -> DecodedBody {
        guard fields["location"] != nil || fields.first("lat", "latitude") != nil || fields.first("lon", "longitude") != nil else {
            let record = fields.values.filter { !credentialFields.contains($0.key) }
            let time = fields.first("timestamp", "time", "tst").flatMap { TimestampParser.date(from: $0.value) }
            return DecodedBody(events: [EventCandidate(kind: "osmand.status", time: time, record: record)])
        }
        var c = PositionCandidate()
        c.names = .init(latitude: "lat", longitude: "lon", timestamp: "timestamp")
        if let location = fields["location"] {
            let parts = location.split(separator: ",")
            c.names = .init(latitude: "location", longitude: "location", timestamp: "timestamp")
            if parts.count == 2 {
                c.latitude = Double(parts[0].trimmingCharacters(in: .whitespaces))
                c.longitude = Double(parts[1].trimmingCharacters(in: .whitespaces))
            } else {
                c.problems.append(("location", "\(ClientText.quoted(location)) is not 'latitude,longitude'"))
            }
        } else {
            let latitude = fields.first("lat", "latitude"), longitude = fields.first("lon", "longitude")
            c.names = .init(latitude: latitude?.name ?? "lat", longitude: longitude?.name ?? "lon", timestamp: "timestamp")
            c.latitude = number(latitude?.value)
            c.longitude = number(longitude?.value)
        }
        if let (name, raw) = fields.first("timestamp", "time", "tst") {
            c.names.timestamp = name
            c.timestamp = TimestampParser.date(from: raw)
            if c.timestamp == nil {
                c.problems.append(("timestamp", "\(ClientText.quoted(raw)) is not epoch seconds/milliseconds, ISO-8601 or yyyy-MM-dd HH:mm:ss"))
            }
        } else {
            c.timestamp = receivedAt
        }
        // `speed_mps`: for templates whose speed is in m/s (OsmAnd's {5}, GPSLogger's %SPD); Traccar's `speed` is knots.
        // Colota's `vel` is m/s too.
        c.speed = number(fields.first("speed_mps", "vel")?.value) ?? number(fields["speed"]).map { $0 * metresPerSecondPerKnot }
        c.course = number(fields.first("bearing", "heading", "bear")?.value)
        c.altitude = number(fields.first("altitude", "alt")?.value)
        c.horizontalAccuracy = number(fields.first("accuracy", "hacc", "acc")?.value)
        c.verticalAccuracy = number(fields["vacc"])
        c.batteryLevel = number(fields["batt"]).map { $0 / 100 }
        if let code = fields["bs"] {
            c.isCharging = batteryStatus(code)
        } else {
            c.isCharging = fields["charge"].flatMap { JSONBody.bool($0) }
        }
        if c.batteryLevel == 0, c.isCharging == true {
            c.batteryLevel = nil
            c.isCharging = nil
        }
        c.source = .gnss
        return DecodedBody(candidates: [c])
    }

    /// The Traccar SDK's JSON upload (`uploadJson`, traccar/traccar-client-sdk `HttpUploader.kt`): a JSON array of
    /// flat objects with the OsmAnd field names, one point each. Every object's `id` must be the first one's (one
    /// device per request).
    /// - throws: ``ServerError`` ``ServerError/Code/malformedBody`` for another shape or a second device's id.
    static func decodeArray(_ json: Any, receivedAt: Date, limits: DecodeLimits) throws -> DecodedBody {
        guard let items = json as? [Any] else { throw ServerError(.malformedBody, "expected a JSON array of objects") }
        guard items.count <= limits.maxEntries else { throw limits.tooManyEntries(items.count) }
        var body = DecodedBody()
        var firstID: String?
        for (index, item) in items.enumerated() {
            guard let object = item as? [String: Any] else {
                throw ServerError(.malformedBody, "entry \(index) is not an object of OsmAnd fields")
            }
            var values: [String: String] = [:]
            for (name, value) in object {
                if let text = JSONBody.string(value) { values[name] = text }
            }
            let id = values["id"] ?? values["deviceid"]
            if index == 0 { firstID = id } else if let id, id != firstID {
                throw ServerError(.malformedBody, "entry \(index) names another device; a request carries one device's points")
            }
            let decoded = decode(FormFields(values: values), receivedAt: receivedAt)
            body.candidates += decoded.candidates
            body.events += decoded.events
        }
        return body
    }

    private static func number(_ text: String?) -> Double? {
        text.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    }
}
