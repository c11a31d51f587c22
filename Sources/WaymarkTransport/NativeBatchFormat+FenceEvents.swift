import Foundation
import WaymarkGeo

extension NativeBatchFormat {
    /// The ``kindProperty`` value that marks a feature as a geofence event the device decided
    /// (`"waymark_kind":"fence_event"`).
    public static let fenceEventKind = "fence_event"

    /// A geofence event as the device decided it, in the form the format writes.
    ///
    /// It travels as a feature without geometry, after the fixes and gap markers, so that a server
    /// that reads only Overland's points never stores it as a position. Its place, when the event was
    /// decided by a fix, is in `latitude`, `longitude` and `horizontal_accuracy`:
    ///
    /// ```json
    /// {"type":"Feature","geometry":null,"properties":{"waymark_kind":"fence_event","fence_id":"school",
    ///  "event":"enter","time":"2024-05-01T08:01:12.000Z","earliest":"2024-05-01T08:00:58.000Z",
    ///  "latest":"2024-05-01T08:01:14.000Z","delivered_at":"2024-05-01T08:01:14.000Z","timing":"live",
    ///  "sequence":7,"cause":"fix","latitude":48.1,"longitude":11.5,"horizontal_accuracy":12,
    ///  "user_data":{"site":"north"},"device_id":"phone-1"}}
    /// ```
    ///
    /// `(fence_id, sequence)` names the event for good: the device counts each fence's events from 1
    /// across relaunches, so a server can tell a resent copy from a new event.
    ///
    /// A `Sendable` value type.
    public struct FenceEvent: Hashable, Sendable {
        /// The fence's identifier.
        public var fenceID: String
        /// `enter`, `exit` or `dwell`.
        public var event: String
        /// The best estimate of when the crossing happened.
        public var time: Date
        /// The crossing happened after this moment, when known.
        public var earliest: Date?
        /// The crossing happened no later than this.
        public var latest: Date
        /// When the device decided the event.
        public var deliveredAt: Date
        /// How the event was found: `live`, `osDelayed` or `caughtUp`.
        public var timing: String
        /// The fence's event counter after this event (1 for its first event).
        public var sequence: UInt64
        /// What decided it: `fix`, `region`, `regionState` or `elapsed`.
        public var cause: String
        /// Where the deciding fix placed the device, when a fix decided the event.
        public var coordinate: Coordinate?
        /// The deciding fix's horizontal accuracy in metres, when known.
        public var horizontalAccuracy: Double?
        /// The fence's user data.
        public var userData: [String: String]

        /// Makes a wire event.
        public init(fenceID: String, event: String, time: Date, earliest: Date? = nil, latest: Date, deliveredAt: Date,
                    timing: String, sequence: UInt64, cause: String, coordinate: Coordinate? = nil,
                    horizontalAccuracy: Double? = nil, userData: [String: String] = [:]) {
            self.fenceID = fenceID
            self.event = event
            self.time = time
            self.earliest = earliest
            self.latest = latest
            self.deliveredAt = deliveredAt
            self.timing = timing
            self.sequence = sequence
            self.cause = cause
            self.coordinate = coordinate
            self.horizontalAccuracy = horizontalAccuracy
            self.userData = userData
        }
    }

    /// The encoded size of one fence event's feature in bytes, including the separating comma.
    public func featureBytes(_ event: FenceEvent) -> Int {
        var out: [UInt8] = []
        appendFenceEvent(event, to: &out)
        return out.count + 1
    }

    func appendFenceEvent(_ event: FenceEvent, to out: inout [UInt8]) {
        var s = "{\"type\":\"Feature\",\"geometry\":null,\"properties\":{\"\(Self.kindProperty)\":\"\(Self.fenceEventKind)\""
        s += ",\"fence_id\":" + JSONText.quoted(event.fenceID) + ",\"event\":" + JSONText.quoted(event.event)
        s += ",\"time\":\"" + Self.timestamp(event.time) + "\""
        if let earliest = event.earliest { s += ",\"earliest\":\"" + Self.timestamp(earliest) + "\"" }
        s += ",\"latest\":\"" + Self.timestamp(event.latest) + "\",\"delivered_at\":\"" + Self.timestamp(event.deliveredAt) + "\""
        s += ",\"timing\":" + JSONText.quoted(event.timing) + ",\"sequence\":" + String(event.sequence)
        s += ",\"cause\":" + JSONText.quoted(event.cause)
        if let c = event.coordinate {
            s += ",\"latitude\":" + JSONText.number(c.latitude) + ",\"longitude\":" + JSONText.number(c.longitude)
        }
        if let v = Self.known(event.horizontalAccuracy, nonNegative: true) { s += ",\"horizontal_accuracy\":" + JSONText.number(v) }
        if !event.userData.isEmpty {
            s += ",\"user_data\":{" + event.userData.sorted { $0.key < $1.key }
                .map { JSONText.quoted($0.key) + ":" + JSONText.quoted($0.value) }.joined(separator: ",") + "}"
        }
        if let deviceID { s += ",\"device_id\":" + JSONText.quoted(deviceID) }
        s += "}}"
        out += Array(s.utf8)
    }
}
