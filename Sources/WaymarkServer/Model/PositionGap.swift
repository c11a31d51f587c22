import Foundation

/// A span in which a device recorded no positions on purpose or by accident, and why: a Waymark
/// gap marker (the phone was killed, the signal was lost, the ride was paused…).
///
/// Phones send gap markers in native batches as features without geometry
/// (`"waymark_kind":"gap"`); the server stores them next to the positions, lists them through
/// `GET /api/devices/{id}/gaps`, and starts a new GPX track segment at each one.
/// A `Sendable` value type.
public struct PositionGap: Hashable, Sendable, Encodable {
    /// The device.
    public var deviceID: String
    /// The phone's ride the gap belongs to, when it said.
    public var rideID: String?
    /// The last moment before the gap (the last recorded fix).
    public var start: Date
    /// The first moment after the gap.
    public var end: Date
    /// Why, in the phone's words (`terminated`, `signal lost`…); `unknown` when it did not say.
    public var reason: String

    /// Makes a gap.
    public init(deviceID: String, rideID: String? = nil, start: Date, end: Date, reason: String) {
        self.deviceID = deviceID
        self.rideID = rideID
        self.start = start
        self.end = end
        self.reason = reason
    }

    /// `{"device_id","ride_id","start","end","reason"}` (ride_id null when unknown).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(deviceID, forKey: .deviceID)
        try c.encode(rideID, forKey: .rideID)
        try c.encode(TimestampParser.format(start), forKey: .start)
        try c.encode(TimestampParser.format(end), forKey: .end)
        try c.encode(reason, forKey: .reason)
    }

    private enum Key: String, CodingKey {
        case deviceID = "device_id", rideID = "ride_id", start, end, reason
    }
}
