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

/// A page request for one device's gap markers, in (start, end) order.
///
/// Pagination is by key: pass the last gap of a page as ``after`` to get the next one (two markers
/// may share a start, never a start and an end).
public struct GapQuery: Hashable, Sendable {
    /// The device.
    public var deviceID: String
    /// Inclusive lower bound on the start; nil for the beginning.
    public var from: Date?
    /// Exclusive upper bound on the start; nil for no bound.
    public var to: Date?
    /// Only gaps after this one in (start, end) order, in milliseconds since 1970: the cursor.
    public var after: Cursor?
    /// Maximum number of gaps returned (at least 1).
    public var limit: Int

    /// A position in (start, end) order.
    public struct Cursor: Hashable, Sendable {
        /// The start in milliseconds since 1970.
        public var startMillis: Int64
        /// The end in milliseconds since 1970.
        public var endMillis: Int64

        /// A cursor at a start and end.
        public init(startMillis: Int64, endMillis: Int64) {
            self.startMillis = startMillis
            self.endMillis = endMillis
        }

        /// The cursor just after `gap`.
        public init(after gap: PositionGap) {
            startMillis = gap.start.millisecondsSince1970
            endMillis = gap.end.millisecondsSince1970
        }

        /// A cursor from its text form `START:END`, or nil.
        public init?(_ text: some StringProtocol) {
            let parts = text.split(separator: ":")
            guard parts.count == 2, let start = Int64(parts[0]), let end = Int64(parts[1]) else { return nil }
            startMillis = start
            endMillis = end
        }

        /// `START:END`, what ``init(_:)`` reads.
        public var text: String { "\(startMillis):\(endMillis)" }
    }

    /// Makes a query; `limit` is clamped to at least 1.
    public init(deviceID: String, from: Date? = nil, to: Date? = nil, after: Cursor? = nil, limit: Int = 1000) {
        self.deviceID = deviceID
        self.from = from
        self.to = to
        self.after = after
        self.limit = max(1, limit)
    }

    /// The range as a position query (the bounds on the start time), for the stores' shared arithmetic.
    var range: PositionQuery { PositionQuery(deviceID: deviceID, from: from, to: to, limit: limit) }
}
