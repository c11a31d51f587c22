import Foundation
import WaymarkGeo

/// The JSON shape of positions and devices in API replies.
enum PositionJSON {
    /// `{"device_id","timestamp","lat","lon","altitude","accuracy",…}`; unknown values are null.
    static func object(_ p: Position) -> [String: Any] {
        let f = p.fix
        return [
            "device_id": p.deviceID,
            "timestamp": TimestampParser.format(f.timestamp),
            "lat": f.coordinate.latitude,
            "lon": f.coordinate.longitude,
            "altitude": JSONReply.value(f.altitude),
            "accuracy": JSONReply.value(f.horizontalAccuracy),
            "vertical_accuracy": JSONReply.value(f.verticalAccuracy),
            "speed": JSONReply.value(f.speed),
            "course": JSONReply.value(f.course),
            "battery": JSONReply.value(p.batteryLevel),
            "charging": p.isCharging.map { $0 as Any } ?? NSNull(),
            "activity": p.activity.map { $0 as Any } ?? NSNull(),
            "source": f.source.rawValue,
        ]
    }

    /// `{"id","name","created","revoked"}`.
    static func object(_ d: DeviceRecord) -> [String: Any] {
        [
            "id": d.id,
            "name": d.name,
            "created": TimestampParser.format(d.createdAt),
            "revoked": d.revokedAt.map { TimestampParser.format($0) as Any } ?? NSNull(),
        ]
    }
}
