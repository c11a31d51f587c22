import Foundation
import WaymarkGeo

/// A fence event as stored: the event with its sequence number in the store.
///
/// Sequence numbers increase in commit order within one store, so `after` cursors page through
/// events without gaps. A `Sendable` value type.
public struct FenceEventRecord: Hashable, Sendable, Encodable {
    /// The store's sequence number (increasing).
    public var id: Int64
    /// The event.
    public var event: ServerFenceEvent

    /// Makes a record.
    public init(id: Int64, event: ServerFenceEvent) {
        self.id = id
        self.event = event
    }

    /// The API, live-stream and webhook shape: `{"id","device_id","fence_id","kind","timestamp","lat","lon"}`.
    public func encode(to encoder: any Encoder) throws {
        try WireForm(self, type: nil).encode(to: encoder)
    }

    /// The webhook body: the API shape plus `"type":"fence.KIND"`.
    var webhookForm: some Encodable { WireForm(self, type: "fence.\(event.kind.rawValue)") }

    /// The encoded form (Codable keeps replies with many events cheap: JSONSerialization with sorted
    /// keys cost 0.5 ms for a reply of 11 events, JSONEncoder 25 µs).
    private struct WireForm: Encodable {
        var id: Int64
        var deviceID: String, fenceID: String, kind: String, timestamp: String
        var lat: Double, lon: Double
        var type: String?

        init(_ record: FenceEventRecord, type: String?) {
            id = record.id
            deviceID = record.event.deviceID
            fenceID = record.event.fenceID
            kind = record.event.kind.rawValue
            timestamp = TimestampParser.format(record.event.timestamp)
            lat = record.event.coordinate.latitude
            lon = record.event.coordinate.longitude
            self.type = type
        }

        enum CodingKeys: String, CodingKey {
            case id, deviceID = "device_id", fenceID = "fence_id", kind, timestamp, lat, lon, type
        }
    }
}
