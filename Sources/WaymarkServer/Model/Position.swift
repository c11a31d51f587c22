import Foundation
import WaymarkGeo

/// One stored position of one device: the record every ingest format maps to.
///
/// The fix is in SI units (metres, metres per second, degrees); timestamps are kept to the
/// millisecond, and `(deviceID, timestamp)` identifies a position: a second point with the
/// same device and millisecond is a duplicate and is not stored.
///
/// ```swift
/// let position = Position(deviceID: "d_4kq2", fix: Fix(coordinate: try Coordinate(latitude: 60, longitude: 30),
///                                                     timestamp: Date(timeIntervalSince1970: 1_377_177_267)),
///                         batteryLevel: 0.87)
/// ```
public struct Position: Hashable, Sendable, Codable {
    /// The device that reported the point.
    public var deviceID: String
    /// Where and when, with the quality the device reported.
    public var fix: Fix
    /// Battery charge as a fraction in [0, 1]; nil when unknown.
    public var batteryLevel: Double?
    /// Whether the device was charging; nil when unknown.
    public var isCharging: Bool?
    /// Motion activity as the client named it (`"walking"`, `"still"`…); nil when unknown.
    public var activity: String?

    /// Makes a position; the fix timestamp is rounded to whole milliseconds.
    public init(deviceID: String, fix: Fix, batteryLevel: Double? = nil, isCharging: Bool? = nil, activity: String? = nil) {
        var fix = fix
        fix.timestamp = Date(millisecondsSince1970: fix.timestamp.millisecondsSince1970)
        self.deviceID = deviceID
        self.fix = fix
        self.batteryLevel = batteryLevel
        self.isCharging = isCharging
        self.activity = activity
    }

    /// The timestamp in whole milliseconds since 1970-01-01T00:00:00Z: the storage key.
    public var timestampMillis: Int64 { fix.timestamp.millisecondsSince1970 }
}

extension Date {
    /// Milliseconds since 1970, rounded to the nearest millisecond and clamped to the `Int64` range.
    var millisecondsSince1970: Int64 {
        let ms = (timeIntervalSince1970 * 1000).rounded()
        if ms.isNaN { return 0 }
        if ms >= 9.2e18 { return .max }
        if ms <= -9.2e18 { return .min }
        return Int64(ms)
    }

    /// The date `milliseconds` after 1970-01-01T00:00:00Z.
    init(millisecondsSince1970 milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
