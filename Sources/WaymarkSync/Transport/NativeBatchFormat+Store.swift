import Foundation
import WaymarkEngine
import WaymarkGeo

extension NativeBatchFormat {
    /// The request body for these fixes, the store's gap markers and the engine's geofence events
    /// (in that order).
    public func body(for fixes: [Fix], gaps: [GapRecord], fenceEvents: [WaymarkEngine.FenceEvent] = []) -> [UInt8] {
        body(for: fixes, gaps: gaps.map(Gap.init), fenceEvents: fenceEvents.map(FenceEvent.init))
    }

    /// The request body for a stored batch: its fixes, gap markers and geofence events.
    public func body(for batch: UploadBatch) -> [UInt8] {
        body(for: batch.fixes, gaps: batch.gaps, fenceEvents: batch.fenceEvents)
    }
}

extension NativeBatchFormat.Gap {
    /// The wire form of a stored gap marker (its ride's UUID as `ride_id`).
    public init(_ marker: GapRecord) {
        self.init(rideID: marker.ride, start: marker.start, end: marker.end, reason: marker.reason)
    }
}

extension UploadFormat {
    /// The request for a stored batch: its fixes (and, in the native format, its gap markers and
    /// geofence events), under the batch's key.
    public func request(for batch: UploadBatch, token: String) -> UploadRequest {
        request(fixes: batch.fixes, gaps: batch.gaps.map(NativeBatchFormat.Gap.init),
                fenceEvents: batch.fenceEvents.map(NativeBatchFormat.FenceEvent.init), key: batch.key, token: token)
    }
}
