import Foundation

/// One event's delivery to one webhook, as the outbox tracks it.
///
/// Rows are written in the ingest transaction that caused the event, then claimed, sent and
/// settled by the ``WebhookDeliverer``. A `Sendable` value type.
public struct OutboxDelivery: Hashable, Sendable {
    /// Where a delivery stands.
    public enum State: String, Hashable, Sendable, CaseIterable {
        /// Waiting for its first or next attempt.
        case pending
        /// The receiver answered 2xx.
        case delivered
        /// Every allowed attempt failed; an operator must look (`GET /api/webhooks/deliveries?state=dead`).
        case dead
    }

    /// The outbox row's sequence number.
    public var id: Int64
    /// The subscription.
    public var webhookID: String
    /// The receiver's URL (copied from the subscription when claimed).
    public var url: URL?
    /// The signing secret (present only on claimed deliveries).
    public var secret: String?
    /// The fence event's sequence number.
    public var eventID: Int64
    /// The exact JSON body that is sent and signed.
    public var payload: String
    /// Current state.
    public var state: State
    /// Attempts made so far (a claim counts as an attempt).
    public var attempts: Int
    /// Earliest time of the next attempt (pending only).
    public var nextAttemptAt: Date
    /// The last failure: HTTP status or transport error.
    public var lastError: String?

    /// Makes a delivery record.
    public init(id: Int64, webhookID: String, url: URL? = nil, secret: String? = nil, eventID: Int64, payload: String,
                state: State, attempts: Int, nextAttemptAt: Date, lastError: String? = nil) {
        self.id = id
        self.webhookID = webhookID
        self.url = url
        self.secret = secret
        self.eventID = eventID
        self.payload = payload
        self.state = state
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastError = lastError
    }

    /// The API shape, without the secret.
    var jsonObject: [String: Any] {
        [
            "id": id, "webhook_id": webhookID, "event_id": eventID, "state": state.rawValue, "attempts": attempts,
            "next_attempt": TimestampParser.format(nextAttemptAt), "last_error": lastError.map { $0 as Any } ?? NSNull(),
            "payload": payload,
        ]
    }

    /// The JSON body for an event: the event's API shape plus `"type":"fence.KIND"`.
    static func payload(for record: FenceEventRecord) -> String {
        String(decoding: (try? JSONReply.data(record.webhookForm)) ?? Data(), as: UTF8.self)
    }

    /// The JSON body for a fence event a device reported, or nil for another kind of device event:
    /// `"type":"device.fence.KIND"` and `"source":"device"` with the event as the device decided it
    /// (`id` is the device event's id, `timestamp` its best estimate of the crossing, `lat`/`lon` the
    /// deciding fix's place when a fix decided it, and its `timing`, `earliest`, `latest`,
    /// `delivered_at` and `sequence`), and `received`, when the server stored it.
    static func payload(forDeviceEvent record: DeviceEventRecord) -> String? {
        guard let event = record.reportedFenceEvent else { return nil }
        var body: [String: Any] = [
            "type": "device.fence.\(event.event)", "source": "device", "id": record.id, "device_id": record.deviceID,
            "fence_id": event.fenceID, "kind": event.event, "received": TimestampParser.format(record.receivedAt),
        ]
        if let time = record.time { body["timestamp"] = TimestampParser.format(time) }
        if let lat = event.latitude, let lon = event.longitude {
            body["lat"] = lat
            body["lon"] = lon
        }
        let optional: [(String, Any?)] = [("timing", event.timing), ("earliest", event.earliest), ("latest", event.latest),
                                          ("delivered_at", event.deliveredAt), ("sequence", event.sequence),
                                          ("user_data", event.userData.isEmpty ? nil : event.userData)]
        for (name, value) in optional { if let value { body[name] = value } }
        guard let data = try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return nil
        }
        return String(decoding: data, as: UTF8.self)
    }
}
