import Foundation
import WaymarkGeo

extension NativeBatchFormat {
    /// The request body for these fixes and the store's gap markers (after the fixes).
    public func body(for fixes: [Fix], gaps: [GapRecord]) -> [UInt8] {
        body(for: fixes, gaps: gaps.map(Gap.init))
    }
}

extension NativeBatchFormat.Gap {
    /// The wire form of a stored gap marker (its ride's UUID as `ride_id`).
    public init(_ marker: GapRecord) {
        self.init(rideID: marker.ride, start: marker.start, end: marker.end, reason: marker.reason)
    }
}
