import Foundation
import WaymarkEngine
import WaymarkGeo
import WaymarkSimulator

/// The demo's ride: a real mountain-bike loop (Blue Hills Reservation, "BIG LOOP", bundled as a
/// resource) turned into a scenario with a stop at traffic lights, a tunnel, a long stop, an app
/// kill with relaunch, an offline window, and fences placed along the route.
///
/// Times are virtual seconds since the first launch; the true path is the track's own timing with
/// the two stops inserted.
struct DemoRide: Sendable {
    /// One fence along the route (a circle), shared by the device and the server.
    struct DemoFence: Hashable, Sendable {
        var id: String
        var name: String
        var center: Coordinate
        var radiusMeters: Double
    }

    /// The name of the bundled track.
    static let trackName = "Blue Hills Reservation: BIG LOOP"
    /// Seconds the user spends on the first launch before pocketing the phone.
    static let pocketAt: Double = 60
    /// The ride starts this long after the first launch (time for prompts and the launch fix).
    static let rideDelay: Double = 30

    var trajectory: Trajectory
    var scenario: Scenario
    var fences: [DemoFence]
    var tunnel: BoundingCircle
    var trafficLight: (at: Double, seconds: Double)
    var longStop: (at: Double, seconds: Double)
    var killAt: Double
    var offline: TimeWindow
    var endTime: Double

    /// Loads the bundled track and builds the ride, starting at `startTime` (wall clock of second 0).
    static func bundled(startTime: Date) throws -> DemoRide {
        guard let url = Bundle.module.url(forResource: "blue_hills_big_loop", withExtension: "gpx", subdirectory: "Resources") else {
            throw InputError("the demo ride is missing from the tool's resources (blue_hills_big_loop.gpx)")
        }
        let document = try GPXDocument(contentsOf: url)
        let points = document.tracks.flatMap(\.points).filter { $0.time != nil }
        return make(points: points, startTime: startTime)
    }

    /// Builds the ride from timed track points.
    static func make(points original: [Waypoint], startTime: Date) -> DemoRide {
        // The recording starts with the rider standing at the trailhead for minutes; start at the first move.
        var first = 0
        while first + 1 < original.count,
              Geodesy.haversineDistance(original[first].coordinate, original[first + 1].coordinate) < 20 { first += 1 }
        var points = Array(original[first...])
        if points.count < 10 { points = original }
        let t0 = points[0].time!
        var rel = points.map { $0.time!.timeIntervalSince(t0) + rideDelay }
        let end = rel.last!
        // Insert stops: traffic lights at 8 % of the ride, a long stop (café) at 45 %.
        let light = insertStop(at: rideDelay + 0.08 * (end - rideDelay), seconds: 50, times: &rel, points: &points)
        let cafe = insertStop(at: rideDelay + 0.45 * (end - rideDelay), seconds: 900, times: &rel, points: &points)
        // The true path: stand at the start during the first launch, then the track.
        var waypoints = [Waypoint(coordinate: points[0].coordinate, time: startTime)]
        for (point, t) in zip(points, rel) {
            var w = point
            w.time = startTime.addingTimeInterval(t)
            waypoints.append(w)
        }
        let trajectory = Trajectory(timedWaypoints: waypoints)
        let total = trajectory.endTime
        // A tunnel (GNSS outage) the rider rides through without stopping, from about 20 % of the ride.
        let tunnel = BoundingCircle(center: trajectory.position(at: tunnelTime(trajectory, from: rideDelay + 0.2 * (total - rideDelay))),
                                radiusMeters: tunnelRadiusMeters)
        let killAt = (rideDelay + 0.62 * (total - rideDelay)).rounded()
        let offlineFrom = (rideDelay + 0.72 * (total - rideDelay)).rounded()
        let offline = TimeWindow(from: offlineFrom, to: offlineFrom + 1200)
        let fences = placeFences(trajectory)
        let endTime = total + 60
        let scenario = Scenario(
            name: "Demo: \(trackName)", seed: 1, startTime: startTime, durationSeconds: endTime,
            device: DeviceSetup(install: .fresh, backgroundModes: [.location]),
            user: UserBehaviour(actions: [UserAction(at: 0, .open), UserAction(at: pocketAt, .background),
                                          UserAction(at: killAt, .systemTerminate)]),
            world: World(outages: [World.Outage(area: tunnel)], network: World.Network(offline: [offline])),
            motion: MotionSetup(mode: .derived))
        return DemoRide(trajectory: trajectory, scenario: scenario, fences: fences, tunnel: tunnel,
                        trafficLight: (light, 50), longStop: (cafe, 900), killAt: killAt, offline: offline, endTime: endTime)
    }

    /// Half the tunnel's length, metres: at cycling speed the passage takes about a minute, longer
    /// than the ride tracker's gap threshold (30 s), so it shows as a gap marker.
    static let tunnelRadiusMeters: Double = 120

    /// The first time at or after `from` when the rider is moving (at least 1.5 m/s) from 60 s
    /// before to 90 s after: the middle of a tunnel passage that holds no stop, so the outage is
    /// a signal loss while riding, not a rest in the dark (the track has many rests).
    static func tunnelTime(_ trajectory: Trajectory, from: Double) -> Double {
        var t = from
        while t + 90 < trajectory.endTime {
            if stride(from: t - 60, through: t + 90, by: 5).allSatisfy({ trajectory.state(at: $0).speed >= 1.5 }) { return t }
            t += 10
        }
        return from
    }

    /// Inserts a stop of `seconds` at the first point at or after `at` where the rider is riding
    /// (at least 1.5 m/s for the 60 s around it), so that the stop is not merged into one of the
    /// track's own rests; returns the stop's start.
    private static func insertStop(at: Double, seconds: Double, times: inout [Double], points: inout [Waypoint]) -> Double {
        func riding(_ i: Int) -> Bool {
            let window = times.indices.filter { abs(times[$0] - times[i]) <= 30 }
            guard let first = window.first, let last = window.last, last > first else { return false }
            return zip(window, window.dropFirst()).allSatisfy { a, b in
                Geodesy.haversineDistance(points[a].coordinate, points[b].coordinate) >= 1.5 * (times[b] - times[a])
            }
        }
        let i = times.indices.first { times[$0] >= at && $0 + 1 < times.count && riding($0) }
            ?? times.firstIndex { $0 >= at } ?? times.count - 1
        points.insert(points[i], at: i + 1)
        times.insert(times[i] + seconds, at: i + 1)
        for j in (i + 2)..<times.count { times[j] += seconds }
        return times[i]
    }

    /// Five fences centred on the route at evenly spaced times (the rider enters and leaves each),
    /// radius 150–250 m, named after what a rider passes.
    private static func placeFences(_ trajectory: Trajectory) -> [DemoFence] {
        let names = ["Trailhead parking", "Reservoir", "Summit road", "Ski area", "Visitor center"]
        let span = trajectory.endTime - rideDelay
        return names.enumerated().map { i, name in
            let t = rideDelay + span * (0.12 + 0.18 * Double(i))
            return DemoFence(id: "fence-\(i + 1)", name: name, center: trajectory.position(at: t),
                             radiusMeters: 150 + 25 * Double(i % 3) * 2)
        }
    }
}
