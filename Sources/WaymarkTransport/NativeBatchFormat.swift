import Foundation
import WaymarkGeo

/// Encodes fixes in the native batch format: Overland-compatible GeoJSON `{"locations":[Feature…]}`.
///
/// Each fix becomes a `Point` feature with `[lon, lat]` (plus altitude when known) and the
/// properties `timestamp` (ISO-8601 UTC with milliseconds), `horizontal_accuracy`,
/// `vertical_accuracy`, `speed` (m/s), `course` (degrees), `altitude` (metres) and `device_id`.
/// Unknown values are left out. The output is deterministic: the same fixes give the same bytes.
///
/// A fix's honesty marks follow its values: `simulated_by_software` and `produced_by_accessory`
/// (JSON booleans, both present when the OS said where the fix came from, both absent when it did
/// not: absent means unknown, not false; see `Fix.SourceInformation`), and
/// `"impossible_speed":true` for a fix that implies an impossible speed (absent otherwise; see
/// `Fix.impliesImpossibleSpeed`). Overland servers ignore properties they do not know.
///
/// Gap markers (a span of a ride with no fixes, and why) have no place in Overland's format, so
/// they follow the fixes as features without geometry (RFC 7946 allows `"geometry":null`)
/// whose properties say what they are:
///
/// ```json
/// {"type":"Feature","geometry":null,"properties":{"waymark_kind":"gap","ride_id":"…",
///  "start":"2024-05-01T10:00:00.000Z","end":"2024-05-01T10:04:00.000Z","reason":"terminated","device_id":"…"}}
/// ```
///
/// WaymarkServer accepts such features and does not count them as points (neither stored nor
/// rejected); other Overland servers are expected to skip or reject a feature without geometry.
/// Because gap features come last, a `rejected` index below the number of fixes names a fix.
///
/// The device's own geofence events follow the gap markers, also without geometry
/// (`"waymark_kind":"fence_event"`; see ``FenceEvent``). WaymarkServer stores them as events the
/// device reported, apart from the events it decides from the points.
///
/// ```swift
/// let format = NativeBatchFormat(deviceID: "phone-1")
/// let body = format.body(for: batch.fixes)      // UTF-8 JSON
/// ```
///
/// The format's encoder and its reference decoder (``decode(_:)``) live side by side here, in the
/// module both halves import: the phone's upload, WaymarkServer's tests and any test server read
/// and write it from one definition. (WaymarkServer's ingest keeps its own streaming decoder, which
/// enforces the server's limits; `NativeBatchRoundTripTests` pins that the two read every body the
/// same.)
///
/// A `Sendable` value type.
public struct NativeBatchFormat: Hashable, Sendable {
    /// A gap marker as the format writes it: the ride, the span with no fixes, and why.
    public struct Gap: Hashable, Sendable {
        /// The ride's identifier, written as `ride_id`.
        public var rideID: RideID
        /// The last moment data was still recorded.
        public var start: Date
        /// The first moment data was recorded again.
        public var end: Date
        /// Why nothing was recorded, e.g. `"terminated"`.
        public var reason: String

        /// Makes a gap marker.
        public init(rideID: RideID, start: Date, end: Date, reason: String) {
            self.rideID = rideID
            self.start = start
            self.end = end
            self.reason = reason
        }
    }

    /// The `device_id` property written into every feature; nil leaves it out.
    public var deviceID: String?

    /// Makes a format for one device.
    public init(deviceID: String? = nil) { self.deviceID = deviceID }

    /// The bytes of the envelope around the features: `{"locations":[` and `]}`.
    public static let envelopeBytes = 16

    /// The whole request body for these fixes, then the gap markers, then the device's geofence
    /// events (see ``FenceEvent``), as UTF-8 JSON.
    public func body(for fixes: [Fix], gaps: [Gap] = [], fenceEvents: [FenceEvent] = []) -> [UInt8] {
        var out = Array("{\"locations\":[".utf8)
        out.reserveCapacity(fixes.count * 260 + fenceEvents.count * 400)
        var first = true
        func separate() {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
        }
        for fix in fixes {
            separate()
            appendFeature(fix, to: &out)
        }
        for gap in gaps {
            separate()
            appendGap(gap, to: &out)
        }
        for event in fenceEvents {
            separate()
            appendFenceEvent(event, to: &out)
        }
        out += Array("]}".utf8)
        return out
    }

    /// The property that says what a feature without geometry is (`waymark_kind`).
    public static let kindProperty = "waymark_kind"
    /// The ``kindProperty`` value that marks a feature as a gap marker (`"waymark_kind":"gap"`).
    public static let gapKind = "gap"

    func appendGap(_ gap: Gap, to out: inout [UInt8]) {
        var s = "{\"type\":\"Feature\",\"geometry\":null,\"properties\":{\"\(Self.kindProperty)\":\"\(Self.gapKind)\""
        s += ",\"ride_id\":" + JSONText.quoted(gap.rideID.rawValue)
        s += ",\"start\":\"" + Self.timestamp(gap.start) + "\",\"end\":\"" + Self.timestamp(gap.end) + "\""
        s += ",\"reason\":" + JSONText.quoted(gap.reason)
        if let deviceID { s += ",\"device_id\":" + JSONText.quoted(deviceID) }
        s += "}}"
        out += Array(s.utf8)
    }

    /// Bytes that ``deviceID`` adds to every feature (`,"device_id":"…"`).
    public var deviceIDBytes: Int {
        deviceID.map { 13 + JSONText.quoted($0).utf8.count } ?? 0
    }

    /// The encoded size of one fix's feature in bytes, including the separating comma.
    public func featureBytes(_ fix: Fix) -> Int {
        var out: [UInt8] = []
        appendFeature(fix, to: &out)
        return out.count + 1
    }

    func appendFeature(_ fix: Fix, to out: inout [UInt8]) {
        var s = "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":["
        s += JSONText.number(fix.coordinate.longitude) + "," + JSONText.number(fix.coordinate.latitude)
        if let alt = Self.known(fix.altitude) { s += "," + JSONText.number(alt) }
        s += "]},\"properties\":{\"timestamp\":\"" + Self.timestamp(fix.timestamp) + "\""
        if let v = Self.known(fix.horizontalAccuracy, nonNegative: true) { s += ",\"horizontal_accuracy\":" + JSONText.number(v) }
        if let v = Self.known(fix.verticalAccuracy, nonNegative: true) { s += ",\"vertical_accuracy\":" + JSONText.number(v) }
        if let v = Self.known(fix.speed, nonNegative: true) { s += ",\"speed\":" + JSONText.number(v) }
        if let v = Self.known(fix.course, nonNegative: true) { s += ",\"course\":" + JSONText.number(v) }
        if let v = Self.known(fix.altitude) { s += ",\"altitude\":" + JSONText.number(v) }
        if let info = fix.sourceInformation {
            s += ",\"simulated_by_software\":\(info.isSimulatedBySoftware),\"produced_by_accessory\":\(info.isProducedByAccessory)"
        }
        if fix.impliesImpossibleSpeed { s += ",\"impossible_speed\":true" }
        if let deviceID { s += ",\"device_id\":" + JSONText.quoted(deviceID) }
        s += "}}"
        out += Array(s.utf8)
    }

    static func known(_ value: Double?, nonNegative: Bool = false) -> Double? {
        guard let value, value.isFinite, !nonNegative || value >= 0 else { return nil }
        return value
    }

    /// How the format writes a time: `2024-05-01T10:00:00.250Z`, UTC, always with milliseconds
    /// (rounded to the nearest; civil-from-days conversion).
    public static func timestamp(_ date: Date) -> String {
        let ms = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let secs = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        let milli = Int(ms - secs * 1000)
        let days = secs >= 0 ? secs / 86_400 : (secs - 86_399) / 86_400
        let sod = Int(secs - days * 86_400)
        let (year, month, day) = CivilDate.date(days: Int(days))
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(sod / 3600, 2)):\(pad(sod / 60 % 60, 2)):"
            + "\(pad(sod % 60, 2)).\(pad(milli, 3))Z"
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
