import Foundation

/// A record a client sent that carries no position, kept as it was sent: an OwnTracks transition,
/// status or encrypted message, an Overland visit, trip summary or app event, a Traccar Client
/// heartbeat, or a point the server could not accept from a client that would otherwise resend it
/// forever (kind ``rejectedKind``).
///
/// Stored next to the positions in the ingest transaction (a resent record is absorbed: same device,
/// kind, time and content), listed by `GET /api/devices/{id}/events`. Never a position: a record
/// without a fix of its own does not become a point. A `Sendable` value type.
public struct DeviceEventRecord: Hashable, Sendable {
    /// The store's sequence number (0 before it is stored).
    public var id: Int64
    /// The device.
    public var deviceID: String
    /// What the record is, `<client>.<type>`: `owntracks.transition`, `overland.visit`, `osmand.status`… or ``rejectedKind``.
    public var kind: String
    /// The time the client gave the record, if it gave one.
    public var time: Date?
    /// When the server received it.
    public var receivedAt: Date
    /// The record as a JSON object (text), as the client sent it (for ``rejectedKind``: the problems and
    /// the values read).
    public var detail: String

    /// The kind of a point that failed validation on a route whose clients resend refused requests forever.
    public static let rejectedKind = "rejected"
    /// The kind of a geofence event a Waymark device decided and reported (enter, exit or dwell of one
    /// of its fences); its detail holds the event's properties as the device sent them (`fence_id`,
    /// `event`, `time`, `earliest`, `latest`, `delivered_at`, `timing`, `sequence`, `cause`, and the
    /// deciding fix's `latitude`, `longitude` and `horizontal_accuracy` when a fix decided it).
    public static let deviceFenceEventKind = "waymark.fence_event"
    /// Most UTF-8 bytes of ``detail``.
    public static let maxDetailBytes = 65_536

    /// Makes an event.
    public init(id: Int64 = 0, deviceID: String, kind: String, time: Date?, receivedAt: Date, detail: String) {
        self.id = id
        self.deviceID = deviceID
        self.kind = kind
        self.time = time
        self.receivedAt = receivedAt
        self.detail = detail
    }

    /// The identity a resent copy shares: hex SHA-256 of kind, time (ms) and detail.
    var digest: String {
        TokenHasher.digest("\(kind)\n\(time.map { String($0.millisecondsSince1970) } ?? "-")\n\(detail)")
    }
}

extension DeviceEventRecord {
    /// A geofence event a Waymark device reported, read from a record's ``detail``: what the webhook
    /// payload, the CSV export and the demo show of it.
    ///
    /// A `Sendable` value type; times stay the text the device sent.
    public struct ReportedFenceEvent: Hashable, Sendable {
        /// The fence's identifier.
        public var fenceID: String
        /// `enter`, `exit` or `dwell`.
        public var event: String
        /// The deciding fix's place, when a fix decided the event.
        public var latitude: Double?, longitude: Double?
        /// `live`, `osDelayed` or `caughtUp`, when sent.
        public var timing: String?
        /// The fence's event counter on the device, when sent.
        public var sequence: Int64?
        /// The bounds of the crossing and when the device decided it, as sent.
        public var earliest: String?, latest: String?, deliveredAt: String?
        /// The fence's user data, as sent.
        public var userData: [String: String]
    }

    /// The geofence event this record holds, or nil for a record of another kind (or a detail that
    /// is not the object the device sends).
    public var reportedFenceEvent: ReportedFenceEvent? {
        guard kind == Self.deviceFenceEventKind,
              let d = try? JSONSerialization.jsonObject(with: Data(detail.utf8)) as? [String: Any],
              let fence = d["fence_id"] as? String, let event = d["event"] as? String else { return nil }
        let place = JSONBody.double(d["latitude"]).flatMap { lat in JSONBody.double(d["longitude"]).map { (lat, $0) } }
        return ReportedFenceEvent(fenceID: fence, event: event, latitude: place?.0, longitude: place?.1,
                                  timing: d["timing"] as? String, sequence: JSONBody.double(d["sequence"]).map { Int64($0) },
                                  earliest: d["earliest"] as? String, latest: d["latest"] as? String,
                                  deliveredAt: d["delivered_at"] as? String,
                                  userData: (d["user_data"] as? [String: Any] ?? [:]).compactMapValues { $0 as? String })
    }
}
