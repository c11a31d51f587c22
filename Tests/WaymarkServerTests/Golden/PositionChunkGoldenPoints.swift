import Foundation
import WaymarkGeo
@testable import WaymarkServer

/// The points behind the golden chunks in ``PositionChunkGoldenTests``, written out literally so that no
/// generator (and no change to one) can move them.
enum PositionChunkGoldenPoints {
    static func point(_ millis: Int64, received: Int64, latitude: Double, longitude: Double, altitude: Double? = nil,
                      horizontal: Double? = nil, vertical: Double? = nil, speed: Double? = nil, course: Double? = nil,
                      source: Fix.Source, battery: Double? = nil, charging: Bool? = nil, activity: String? = nil) -> ChunkPoint {
        let fix = Fix(coordinate: Coordinate(uncheckedLatitude: latitude, longitude: longitude), altitude: altitude,
                      horizontalAccuracy: horizontal, verticalAccuracy: vertical, speed: speed, course: course,
                      timestamp: Date(millisecondsSince1970: millis), source: source)
        return ChunkPoint(position: Position(deviceID: "van-7", fix: fix, batteryLevel: battery, isCharging: charging,
                                             activity: activity),
                          receivedMillis: received)
    }

    /// A phone's ride uploaded in one batch (one receive time, so receive times are stored as times):
    /// seven-decimal coordinates, one-decimal altitude and speed, a full-precision double as iOS reports,
    /// -0.0, a missing altitude and battery, charging runs, activity and source runs, a non-ASCII name.
    static let batch: [ChunkPoint] = [
        point(1_764_316_800_000, received: 1_764_316_830_000, latitude: 46.0512345, longitude: 14.5058121, altitude: 295.4,
              horizontal: 5, vertical: 3, speed: 4.2, course: 87.5, source: .gnss, battery: 0.81, charging: false, activity: "cycling"),
        point(1_764_316_801_000, received: 1_764_316_830_000, latitude: 46.0512781, longitude: 14.5058702, altitude: 295.6,
              horizontal: 5, vertical: 3, speed: 4.3, course: 88.25, source: .gnss, battery: 0.81, charging: false, activity: "cycling"),
        point(1_764_316_802_000, received: 1_764_316_830_000, latitude: 46.051321712345678, longitude: 14.505928391827364,
              altitude: nil, horizontal: 4.999999999999, vertical: 3, speed: -0.0, course: nil, source: .fused, battery: nil,
              charging: nil, activity: "cycling"),
        point(1_764_316_803_500, received: 1_764_316_830_000, latitude: -0.0, longitude: -179.9999999, altitude: -12.5,
              horizontal: 65, vertical: nil, speed: 0, course: 359.9, source: .wifi, battery: 0.8, charging: true, activity: nil),
        point(1_764_316_860_000, received: 1_764_316_830_000, latitude: 89.9999999, longitude: 179.75, altitude: 8848.86,
              horizontal: 1414, vertical: 100, speed: 123.456789, course: 0, source: .cell, battery: 1, charging: true,
              activity: "🚲 ride"),
    ]

    /// One point per request, each received a steady delay after its fix (so receive times are stored as
    /// offsets), from before 1970, with a time delta of several days.
    static let trickle: [ChunkPoint] = [
        point(-86_400_123, received: -86_398_123, latitude: 51.4778, longitude: -0.0015, source: .file),
        point(-86_399_123, received: -86_397_123, latitude: 51.4779, longitude: -0.0016, source: .file),
        point(-86_398_123, received: -86_396_123, latitude: 51.478, longitude: -0.0017, source: .unknown),
        point(432_000_000, received: 432_002_000, latitude: 51.4781, longitude: -0.0018, speed: 1.5, source: .file,
              activity: "walking"),
    ]
}
