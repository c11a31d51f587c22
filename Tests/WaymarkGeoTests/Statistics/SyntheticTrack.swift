import Foundation
@testable import WaymarkGeo

/// Builds synthetic tracks in a local plane (metres east/north of an origin) for tests.
struct SyntheticTrack {
    static let origin = Coordinate(uncheckedLatitude: 46.05, longitude: 14.5)
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    let plane = LocalProjection(origin: SyntheticTrack.origin)
    var points: [Waypoint] = []

    /// Appends a point `x` metres east and `y` metres north of the origin at `t` seconds after ``start``.
    mutating func add(x: Double, y: Double, t: Double?, elevation: Double? = nil) {
        points.append(Waypoint(coordinate: plane.coordinate(east: x, north: y), elevation: elevation,
                               time: t.map { SyntheticTrack.start.addingTimeInterval($0) }))
    }

    /// A straight line northwards at `speed` m/s sampled once per second for `seconds` seconds.
    static func line(speed: Double, seconds: Int) -> SyntheticTrack {
        var track = SyntheticTrack()
        for i in 0...seconds { track.add(x: 0, y: speed * Double(i), t: Double(i)) }
        return track
    }

    var segment: TrackSegment { TrackSegment(points: points) }
    var track: Track { Track(segments: [segment]) }
}
