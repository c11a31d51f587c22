import Foundation

/// A fence event as stored: the event with its sequence number in the store.
///
/// Sequence numbers increase in commit order within one store, so `after` cursors page through
/// events without gaps. A `Sendable` value type.
public struct FenceEventRecord: Hashable, Sendable {
    /// The store's sequence number (increasing).
    public var id: Int64
    /// The event.
    public var event: FenceEvent

    /// Makes a record.
    public init(id: Int64, event: FenceEvent) {
        self.id = id
        self.event = event
    }

    /// `{"id","device_id","fence_id","kind","timestamp","lat","lon"}`: the API and webhook shape.
    var jsonObject: [String: Any] {
        [
            "id": id,
            "device_id": event.deviceID,
            "fence_id": event.fenceID,
            "kind": event.kind.rawValue,
            "timestamp": TimestampParser.format(event.timestamp),
            "lat": event.coordinate.latitude,
            "lon": event.coordinate.longitude,
        ]
    }
}
