import Foundation
import WaymarkGeo

/// Decodes the OsmAnd protocol as Traccar Client sends it (query string or form body).
///
/// Fields: `id`/`deviceid` (the device token), `lat`+`lon` or `location=lat,lon`,
/// `timestamp` (epoch seconds or milliseconds, ISO-8601, or `yyyy-MM-dd HH:mm:ss` in UTC;
/// the receive time when absent), `speed` (knots, converted to m/s), `bearing`/`heading`
/// (degrees), `altitude` (m), `accuracy`/`hacc` and `vacc` (m), `batt` (percent, converted to a
/// fraction) and `charge` (true/false). `hdop` is read but not stored: it is not a distance.
enum OsmAndDecoder {
    /// Metres per second in one knot.
    static let metresPerSecondPerKnot = 1852.0 / 3600.0

    static func decode(_ fields: FormFields, receivedAt: Date) -> DecodedBody {
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
            c.latitude = number(fields["lat"])
            c.longitude = number(fields["lon"])
        }
        if let raw = fields["timestamp"] {
            c.timestamp = TimestampParser.date(from: raw)
            if c.timestamp == nil {
                c.problems.append(("timestamp", "\(ClientText.quoted(raw)) is not epoch seconds/milliseconds, ISO-8601 or yyyy-MM-dd HH:mm:ss"))
            }
        } else {
            c.timestamp = receivedAt
        }
        c.speed = number(fields["speed"]).map { $0 * metresPerSecondPerKnot }
        c.course = number(fields.first("bearing", "heading")?.value)
        c.altitude = number(fields["altitude"])
        c.horizontalAccuracy = number(fields.first("accuracy", "hacc")?.value)
        c.verticalAccuracy = number(fields["vacc"])
        c.batteryLevel = number(fields["batt"]).map { $0 / 100 }
        c.isCharging = fields["charge"].flatMap { JSONBody.bool($0) }
        c.source = .gnss
        return DecodedBody(candidates: [c])
    }

    private static func number(_ text: String?) -> Double? {
        text.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    }
}
