import Foundation
import WaymarkEngine
import WaymarkGeo

/// The device's true position over virtual time: piecewise-linear between timed points.
///
/// Built from inline route legs or from timed GPX points; before the first point the device is at
/// the first point, after the last it stays at the last. Times are virtual seconds since the start.
/// A `Sendable` value type.
public struct Trajectory: Hashable, Sendable {
    /// One sample of the truth.
    public struct State: Hashable, Sendable {
        /// The true position.
        public var coordinate: Coordinate
        /// The true ground speed, metres per second.
        public var speed: Double
        /// The true course, degrees clockwise from north.
        public var course: Double
        /// The true activity (from the leg, else from the speed).
        public var activity: MotionActivity.Kind
    }

    private var times: [Double] = []
    private var points: [Coordinate] = []
    private var activities: [MotionActivity.Kind?] = []   // activity of the segment starting at index i

    /// The time of the last point.
    public var endTime: Double { times.last ?? 0 }

    /// A device that never moves.
    public init(stationaryAt point: Coordinate) {
        times = [0]
        points = [point]
        activities = [nil]
    }

    /// Builds the truth from a start and legs.
    ///
    /// - precondition: every travel leg has a positive speed, and every stop a duration of zero or
    ///   more (a scenario file's legs are checked by ``Scenario/validate()`` first, with a thrown error).
    public init(start: Coordinate, legs: [RouteLeg]) {
        for (i, leg) in legs.enumerated() {
            if let stop = leg.stopSeconds {
                precondition(stop >= 0, "Trajectory: leg \(i) stops for \(stop) s; a stop must last zero seconds or more")
            } else if leg.waypoints != nil {
                precondition((leg.speed ?? 0) > 0, "Trajectory: leg \(i) travels at \(leg.speed.map { "\($0)" } ?? "no") m/s; a travel leg needs a positive speed")
            }
        }
        self.init(stationaryAt: start)
        var t = 0.0
        var here = start
        for leg in legs {
            if let stop = leg.stopSeconds {
                // The stop is the segment from the arrival point to the same point `stop` seconds later.
                activities[activities.count - 1] = .stationary
                t += stop
                append(here, at: t, activity: nil)
            } else if let waypoints = leg.waypoints, let speed = leg.speed, speed > 0 {
                activities[activities.count - 1] = leg.activity
                for next in waypoints {
                    t += Geodesy.haversineDistance(here, next) / speed
                    append(next, at: t, activity: leg.activity)
                    here = next
                }
            }
        }
    }

    /// Builds the truth from timed waypoints (a GPX track); points without time are skipped,
    /// and times are taken relative to the first point's time.
    ///
    /// This is the adapter a GPX reader plugs into: `Trajectory(timedWaypoints: document.allTrackPoints)`.
    public init(timedWaypoints: [Waypoint]) {
        let timed = timedWaypoints.filter { $0.time != nil }
        guard let first = timed.first, let t0 = first.time else {
            self.init(stationaryAt: timedWaypoints.first?.coordinate ?? Coordinate(uncheckedLatitude: 0, longitude: 0))
            return
        }
        self.init(stationaryAt: first.coordinate)
        for point in timed.dropFirst() {
            let t = point.time!.timeIntervalSince(t0)
            guard t > times.last! else { continue }
            append(point.coordinate, at: t, activity: nil)
        }
    }

    private mutating func append(_ point: Coordinate, at t: Double, activity: MotionActivity.Kind?) {
        times.append(t)
        points.append(point)
        activities.append(activity)
    }

    /// The true state at virtual time `t`.
    public func state(at t: Double) -> State {
        guard times.count > 1, t > times[0] else { return segmentState(0, fraction: 0, stillAtEnd: true) }
        if t >= times[times.count - 1] { return segmentState(times.count - 1, fraction: 0, stillAtEnd: true) }
        var lo = 0, hi = times.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if times[mid] <= t { lo = mid } else { hi = mid }
        }
        let span = times[hi] - times[lo]
        return segmentState(lo, fraction: span > 0 ? (t - times[lo]) / span : 0, stillAtEnd: false)
    }

    /// The true position at virtual time `t`.
    public func position(at t: Double) -> Coordinate { state(at: t).coordinate }

    private func segmentState(_ i: Int, fraction: Double, stillAtEnd: Bool) -> State {
        if stillAtEnd || i + 1 >= points.count {
            return State(coordinate: points[i], speed: 0, course: 0, activity: .stationary)
        }
        let a = points[i], b = points[i + 1]
        let distance = Geodesy.haversineDistance(a, b)
        let speed = distance / (times[i + 1] - times[i])
        let course = distance > 0 ? Geodesy.initialBearing(from: a, to: b) : 0
        let here = distance > 0 ? Geodesy.destination(from: a, bearing: course, distance: distance * fraction) : a
        return State(coordinate: here, speed: speed, course: course,
                     activity: activities[i] ?? Trajectory.activity(forSpeed: speed))
    }

    /// The activity a speed suggests when the route does not say.
    public static func activity(forSpeed speed: Double) -> MotionActivity.Kind {
        switch speed {
        case ..<0.3: .stationary
        case ..<2.5: .walking
        case ..<4.0: .running
        case ..<12.0: .cycling
        default: .automotive
        }
    }
}
