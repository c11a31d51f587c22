import Foundation
import WaymarkGeo

/// Turns the stops of a recorded track into standing still, for use as the true route.
///
/// A GPS logger at rest keeps reporting positions that wander by several metres per sample
/// (more under trees); over a half-hour break those steps add up to hundreds of metres that
/// nobody rode. Replayed as the truth, that wander would make the simulated rider creep about
/// the stop, and a tracker that (rightly) records nothing while stopped would look as if it
/// lost distance. A stay, after Li et al. (2008), is a run of points that stays within
/// ``radiusMeters`` of its first point for at least ``minimumSeconds``; it becomes two points
/// at the run's centroid (arrival and departure), so the rider stands still in between.
///
/// ```swift
/// let truth = Trajectory(timedWaypoints: StayCollapse().apply(to: track.points))
/// ```
///
/// A `Sendable` value type; distances in metres, times in seconds.
public struct StayCollapse: Hashable, Sendable {
    /// How far from its first point a stay may wander, m.
    public var radiusMeters: Double
    /// The shortest stay, s.
    public var minimumSeconds: Double

    /// Makes a stay detector. The defaults call less than 50 m in two minutes (under 0.42 m/s,
    /// less than a third of walking pace) a stop.
    public init(radiusMeters: Double = 50, minimumSeconds: Double = 120) {
        self.radiusMeters = radiusMeters
        self.minimumSeconds = minimumSeconds
    }

    /// The points with each stay replaced by its centroid at arrival and departure; points
    /// without a time are dropped.
    public func apply(to points: [Waypoint]) -> [Waypoint] {
        let timed = points.filter { $0.time != nil }
        var result: [Waypoint] = []
        var i = 0
        while i < timed.count {
            var j = i + 1
            while j < timed.count, Geodesy.haversineDistance(timed[i].coordinate, timed[j].coordinate) <= radiusMeters { j += 1 }
            let last = j - 1
            guard last > i, timed[last].time!.timeIntervalSince(timed[i].time!) >= minimumSeconds else {
                result.append(timed[i])
                i += 1
                continue
            }
            let stay = timed[i...last]
            let latitude = stay.reduce(0) { $0 + $1.coordinate.latitude } / Double(stay.count)
            let longitude = stay.reduce(0) { $0 + $1.coordinate.longitude } / Double(stay.count)
            let center = Coordinate(uncheckedLatitude: latitude, longitude: longitude)
            var arrival = timed[i], departure = timed[last]
            arrival.coordinate = center
            departure.coordinate = center
            result += [arrival, departure]
            i = j
        }
        return result
    }
}
