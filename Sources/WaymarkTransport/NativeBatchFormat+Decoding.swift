import Foundation
import WaymarkGeo

extension NativeBatchFormat {
    /// What a native batch holds: its fixes, its gap markers and the device it names.
    public struct Decoded: Hashable, Sendable {
        /// The point features, in order.
        public var fixes: [Fix]
        /// The gap-marker features, in order.
        public var gaps: [Gap]
        /// The device's geofence events, in order.
        public var fenceEvents: [FenceEvent] = []
        /// The `device_id` of the features, when every feature names the same one.
        public var deviceID: String?
    }

    /// Reads a body this format wrote (the reference decoder of the format).
    ///
    /// A fix needs `[longitude, latitude]` within range and a `timestamp` in ISO-8601 UTC; the
    /// other properties are read when present and finite. A feature without geometry must be a gap
    /// marker (`"waymark_kind":"gap"`) with a `ride_id`, `start`, `end` and `reason`, or a geofence
    /// event (`"waymark_kind":"fence_event"`) with a `fence_id`, `event`, `time`, `latest`,
    /// `delivered_at`, `timing`, `sequence` and `cause`.
    ///
    /// - throws: ``TransportError`` (`.format`) naming the feature (by index) and the field that
    ///   is missing or wrong.
    public static func decode(_ body: [UInt8]) throws(TransportError) -> Decoded {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: Data(body))
        } catch {
            throw TransportError(.format, "the body is not JSON: \(error.localizedDescription)")
        }
        guard let object = root as? [String: Any], let features = object["locations"] as? [Any] else {
            throw TransportError(.format, "the body has no \"locations\" array")
        }
        var decoded = Decoded(fixes: [], gaps: [], deviceID: nil)
        var devices = Set<String>()
        for (index, item) in features.enumerated() {
            guard let feature = item as? [String: Any], let properties = feature["properties"] as? [String: Any] else {
                throw TransportError(.format, "feature \(index) is not an object with properties")
            }
            if let device = properties["device_id"] as? String { devices.insert(device) }
            if feature["geometry"] == nil || feature["geometry"] is NSNull {
                if properties[kindProperty] as? String == fenceEventKind {
                    decoded.fenceEvents.append(try fenceEvent(properties, index: index))
                } else {
                    decoded.gaps.append(try gap(properties, index: index))
                }
            } else {
                decoded.fixes.append(try fix(feature, properties, index: index))
            }
        }
        decoded.deviceID = devices.count == 1 ? devices.first : nil
        return decoded
    }

    private static func fix(_ feature: [String: Any], _ properties: [String: Any], index: Int) throws(TransportError) -> Fix {
        guard let geometry = feature["geometry"] as? [String: Any], geometry["type"] as? String == "Point",
              let position = geometry["coordinates"] as? [Any], position.count >= 2,
              let longitude = number(position[0]), let latitude = number(position[1]) else {
            throw TransportError(.format, "feature \(index): geometry is not a Point with [longitude, latitude]")
        }
        let coordinate: Coordinate
        do {
            coordinate = try Coordinate(latitude: latitude, longitude: longitude)
        } catch {
            throw TransportError(.format, "feature \(index): \(error.message)")
        }
        let time = try date(properties["timestamp"], field: "timestamp", index: index)
        let simulated = try flag(properties["simulated_by_software"], field: "simulated_by_software", index: index)
        let accessory = try flag(properties["produced_by_accessory"], field: "produced_by_accessory", index: index)
        // The origin is known when either flag is there (this format writes both); one alone reads the other as false.
        let information = simulated == nil && accessory == nil ? nil
            : Fix.SourceInformation(isSimulatedBySoftware: simulated ?? false, isProducedByAccessory: accessory ?? false)
        return Fix(coordinate: coordinate, altitude: number(properties["altitude"]) ?? position.dropFirst(2).first.flatMap(number),
                   horizontalAccuracy: number(properties["horizontal_accuracy"]),
                   verticalAccuracy: number(properties["vertical_accuracy"]), speed: number(properties["speed"]),
                   course: number(properties["course"]), timestamp: time, sourceInformation: information,
                   impliesImpossibleSpeed: try flag(properties["impossible_speed"], field: "impossible_speed", index: index) ?? false)
    }

    /// A JSON boolean, nil when absent; a number or text in its place is an error (not read as a flag).
    private static func flag(_ value: Any?, field: String, index: Int) throws(TransportError) -> Bool? {
        guard let value, !(value is NSNull) else { return nil }
        guard let number = value as? NSNumber, String(cString: number.objCType) == "c" else {
            throw TransportError(.format, "feature \(index): \(field) is not true or false")
        }
        return number.boolValue
    }

    private static func gap(_ properties: [String: Any], index: Int) throws(TransportError) -> Gap {
        guard properties[kindProperty] as? String == gapKind else {
            throw TransportError(.format, "feature \(index) has no geometry and is not a gap marker (waymark_kind \"gap\")")
        }
        guard let ride = properties["ride_id"] as? String, !ride.isEmpty else {
            throw TransportError(.format, "gap marker \(index): ride_id is missing or empty")
        }
        guard let reason = properties["reason"] as? String else {
            throw TransportError(.format, "gap marker \(index): reason is missing")
        }
        return Gap(rideID: RideID(ride), start: try date(properties["start"], field: "start", index: index),
                   end: try date(properties["end"], field: "end", index: index), reason: reason)
    }

    private static func fenceEvent(_ p: [String: Any], index: Int) throws(TransportError) -> FenceEvent {
        func text(_ name: String) throws(TransportError) -> String {
            guard let value = p[name] as? String, !value.isEmpty else {
                throw TransportError(.format, "fence event \(index): \(name) is missing or empty")
            }
            return value
        }
        guard let sequence = p["sequence"] as? NSNumber, String(cString: sequence.objCType) != "c",
              let count = UInt64(exactly: sequence.doubleValue) else {
            throw TransportError(.format, "fence event \(index): sequence is not a whole number")
        }
        var coordinate: Coordinate?
        if let latitude = number(p["latitude"]), let longitude = number(p["longitude"]) {
            do {
                coordinate = try Coordinate(latitude: latitude, longitude: longitude)
            } catch {
                throw TransportError(.format, "fence event \(index): \(error.message)")
            }
        }
        let userData = (p["user_data"] as? [String: Any] ?? [:]).compactMapValues { $0 as? String }
        return FenceEvent(fenceID: try text("fence_id"), event: try text("event"),
                          time: try date(p["time"], field: "time", index: index),
                          earliest: p["earliest"] == nil ? nil : try date(p["earliest"], field: "earliest", index: index),
                          latest: try date(p["latest"], field: "latest", index: index),
                          deliveredAt: try date(p["delivered_at"], field: "delivered_at", index: index),
                          timing: try text("timing"), sequence: count, cause: try text("cause"), coordinate: coordinate,
                          horizontalAccuracy: number(p["horizontal_accuracy"]), userData: userData)
    }

    private static func number(_ value: Any?) -> Double? {
        // JSON's true and false come back as NSNumbers too, of Objective-C type "c" (char); a
        // number 0 or 1 also casts to Bool, so the type is what tells them apart.
        guard let number = value as? NSNumber, String(cString: number.objCType) != "c" else { return nil }
        let double = number.doubleValue
        return double.isFinite ? double : nil
    }

    private static func date(_ value: Any?, field: String, index: Int) throws(TransportError) -> Date {
        guard let text = value as? String, let date = parseTimestamp(text) else {
            throw TransportError(.format, "feature \(index): \(field) is not an ISO-8601 UTC time like 2024-05-01T10:00:00.250Z")
        }
        return date
    }

    /// Reads ``timestamp(_:)``'s form (`YYYY-MM-DDThh:mm:ss.sssZ`, the fraction optional) exactly,
    /// to the millisecond.
    static func parseTimestamp(_ text: String) -> Date? {
        let b = Array(text.utf8)
        func digits(_ at: Int, _ count: Int) -> Int? {
            guard at + count <= b.count else { return nil }
            var v = 0
            for i in at..<at + count {
                guard b[i] >= 48, b[i] <= 57 else { return nil }
                v = v * 10 + Int(b[i] - 48)
            }
            return v
        }
        guard b.count >= 20, b[4] == 45, b[7] == 45, b[10] == 84, b[13] == 58, b[16] == 58, b.last == 90,
              let year = digits(0, 4), let month = digits(5, 2), let day = digits(8, 2),
              let hour = digits(11, 2), let minute = digits(14, 2), let second = digits(17, 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60 else { return nil }
        var millis = 0
        if b.count > 20 {
            guard b[19] == 46, b.count >= 22, b.count <= 24, let fraction = digits(20, b.count - 21) else { return nil }
            millis = fraction * [100, 10, 1][b.count - 22]
        }
        let days = CivilDate.days(year: year, month: month, day: day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return Date(timeIntervalSince1970: Double(seconds * 1000 + Int64(millis)) / 1000)
    }
}
