import Foundation
import WaymarkEngine
import WaymarkGeo

/// Encodes records in the body `POST /api/ingest` reads: Overland's GeoJSON batch, Waymark's
/// native upload format (Docs/SERVER.md, "Native and Overland batches").
///
/// Each fix is a `Point` feature with `[longitude, latitude]` and the properties `timestamp`
/// (ISO-8601 UTC with milliseconds), `horizontal_accuracy`, `vertical_accuracy`, `speed`, `course`
/// and `altitude` when known; each gap marker a feature without geometry whose properties say
/// `"waymark_kind":"gap"`. Fixes come first, so a rejected `index` below the fix count names a fix.
///
/// `WaymarkSync.NativeBatchFormat` writes the same format, but `WaymarkSync` (GRDB,
/// AsyncHTTPClient) does not compile for iOS with the SDK here, so the app carries this small
/// encoder of its own.
///
/// ```swift
/// let body = IngestBody.encode([.fix(fix, rideID: "r1")])   // {"locations":[{"type":"Feature",…}]}
/// ```
public enum IngestBody {
    /// The UTF-8 JSON body for `records`, fixes first, then gap markers, each group in order.
    public static func encode(_ records: [PendingRecord]) -> [UInt8] {
        var features: [String] = []
        for case .fix(let fix, _) in records { features.append(feature(fix)) }
        for case .gap(let gap, let rideID) in records { features.append(feature(gap, rideID: rideID)) }
        return Array(("{\"locations\":[" + features.joined(separator: ",") + "]}").utf8)
    }

    static func feature(_ fix: Fix) -> String {
        var coordinates = number(fix.coordinate.longitude) + "," + number(fix.coordinate.latitude)
        var properties = "\"timestamp\":\"" + timestamp(fix.timestamp) + "\""
        if let altitude = known(fix.altitude) {
            coordinates += "," + number(altitude)
            properties += ",\"altitude\":" + number(altitude)
        }
        if let v = known(fix.horizontalAccuracy, nonNegative: true) { properties += ",\"horizontal_accuracy\":" + number(v) }
        if let v = known(fix.verticalAccuracy, nonNegative: true) { properties += ",\"vertical_accuracy\":" + number(v) }
        if let v = known(fix.speed, nonNegative: true) { properties += ",\"speed\":" + number(v) }
        if let v = known(fix.course, nonNegative: true) { properties += ",\"course\":" + number(v) }
        return "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(coordinates)]},\"properties\":{\(properties)}}"
    }

    static func feature(_ gap: GapMarker, rideID: String) -> String {
        "{\"type\":\"Feature\",\"geometry\":null,\"properties\":{\"waymark_kind\":\"gap\",\"ride_id\":\(string(rideID))"
            + ",\"start\":\"\(timestamp(gap.start))\",\"end\":\"\(timestamp(gap.end))\",\"reason\":\(string(gap.reason.rawValue))}}"
    }

    static func known(_ value: Double?, nonNegative: Bool = false) -> Double? {
        guard let value, value.isFinite, !nonNegative || value >= 0 else { return nil }
        return value
    }

    static func number(_ value: Double) -> String {
        if value == value.rounded(), value.magnitude < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// ISO-8601 in UTC with milliseconds, e.g. `2026-01-01T08:00:00.250Z`.
    static func timestamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let whole = Date(timeIntervalSince1970: Double(millis.quotientAndRemainderFloor(1000).quotient))
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: whole)
        func pad(_ value: Int?, _ width: Int) -> String {
            let text = String(value ?? 0)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(c.year, 4))-\(pad(c.month, 2))-\(pad(c.day, 2))T\(pad(c.hour, 2)):\(pad(c.minute, 2)):\(pad(c.second, 2))."
            + pad(Int(millis.quotientAndRemainderFloor(1000).remainder), 3) + "Z"
    }
}

extension Int64 {
    /// Floor division: the remainder is never negative (dates before 1970 stay correct).
    fileprivate func quotientAndRemainderFloor(_ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let (q, r) = quotientAndRemainder(dividingBy: divisor)
        return r < 0 ? (q - 1, r + divisor) : (q, r)
    }
}
