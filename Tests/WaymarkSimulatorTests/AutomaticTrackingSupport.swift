import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

/// Scenarios and measurements for automatic tracking (issue #31): the commute and the Blue Hills
/// ride with a still spell before the rider sets off, and what the engine recorded, ride by ride.
enum AutoFixture {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let commutePath = root.appendingPathComponent("Examples/commute.json")
    static let blueHillsPath = root.appendingPathComponent("Sources/WaymarkCLI/Resources/blue_hills_big_loop.gpx")

    /// How the app stands when the rider sets off.
    enum AppAtStart: String, CaseIterable, Sendable {
        /// Opened, pocketed, then suspended by iOS.
        case suspended
        /// Opened, pocketed, then terminated by the system while still.
        case terminated
        /// Opened, then force-quit by the user while still (current iOS relaunches it for region
        /// events and significant changes, PLATFORM.md §4).
        case forceQuit
    }

    /// An engine configuration with automatic tracking on.
    static func configuration(_ backend: LocationBackend, _ change: (inout AutomaticTracking) -> Void = { _ in }) -> EngineCore.Configuration {
        var ride = RideTracker.Configuration()
        ride.automatic.enabled = true
        change(&ride.automatic)
        return EngineCore.Configuration(ride: ride, backend: backend)
    }

    static func device() -> DeviceSetup {
        DeviceSetup(install: .existing, location: .authorizedAlways, notifications: .granted, motion: .granted,
                    backgroundModes: [.location])
    }

    /// The user's actions: open at 0, pocket at 60, then the kill of `app` at `killAt` (and at each of `laterKills`).
    static func user(_ app: AppAtStart, killAt: Double, laterKills: [Double] = []) -> UserBehaviour {
        var actions = [UserAction(at: 0, .open), UserAction(at: 60, .background)]
        let kind: UserAction.Kind? = switch app {
        case .suspended: nil
        case .terminated: .systemTerminate
        case .forceQuit: .forceQuit
        }
        if let kind { actions += ([killAt] + laterKills).map { UserAction(at: $0, kind) } }
        return UserBehaviour(actions: actions)
    }

    /// The commute (Examples/commute.json) after `stillSeconds` at home, without its scripted kill
    /// during the ride; for a terminated or force-quit app the kill comes while still, before each ride.
    static func commute(_ app: AppAtStart, stillSeconds: Double = 1800, after: Double = 0) throws -> Scenario {
        var scenario = try Scenario.load(contentsOf: commutePath)
        var legs = scenario.route?.legs ?? []
        legs.insert(.stop(stillSeconds), at: 0)
        if after > 0 { legs.append(.stop(after)) }
        scenario.route?.legs = legs
        // Kills while parked at work too: 2 h into the 8-hour park.
        let park = parkStart(legs)
        scenario.user = user(app, killAt: stillSeconds / 2, laterKills: park.map { [$0 + 7200] } ?? [])
        scenario.durationSeconds = nil
        return scenario
    }

    /// The start of the commute's long park (the longest stop), seconds from 0.
    static func parkStart(_ legs: [RouteLeg]) -> Double? {
        var t = 0.0
        var longest: (at: Double, seconds: Double)?
        var position = Coordinate(uncheckedLatitude: 46.05, longitude: 14.5)
        for leg in legs {
            if let stop = leg.stopSeconds {
                if stop > (longest?.seconds ?? 0) { longest = (t, stop) }
                t += stop
            } else if let points = leg.waypoints, let speed = leg.speed {
                for p in points {
                    t += Geodesy.haversineDistance(position, p) / speed
                    position = p
                }
            }
        }
        return longest.map(\.at)
    }

    /// The Blue Hills loop (the demo's ride) after `stillSeconds` at the trailhead.
    static func blueHills(_ app: AppAtStart, stillSeconds: Double = 1800) throws -> (Scenario, Trajectory) {
        let document = try GPXDocument.read(contentsOf: blueHillsPath).document
        let original = document.tracks.flatMap(\.points).filter { $0.time != nil }
        var first = 0
        while first + 1 < original.count,
              Geodesy.haversineDistance(original[first].coordinate, original[first + 1].coordinate) < 20 { first += 1 }
        let points = Array(original[first...])
        let t0 = points[0].time!
        let epoch = Date(timeIntervalSince1970: 1_780_000_000)
        var waypoints = [Waypoint(coordinate: points[0].coordinate, time: epoch)]
        for point in points {
            var w = point
            w.time = epoch.addingTimeInterval(stillSeconds + point.time!.timeIntervalSince(t0))
            waypoints.append(w)
        }
        let trajectory = Trajectory(timedWaypoints: waypoints)
        let scenario = Scenario(name: "Blue Hills, automatic", startTime: epoch, durationSeconds: trajectory.endTime + 600,
                                device: device(), user: user(app, killAt: stillSeconds / 2), motion: MotionSetup(mode: .derived))
        return (scenario, trajectory)
    }
}

/// What an ``EngineApp`` recorded, ride by ride, measured against the simulation's truth.
struct AutoRides {
    struct Ride {
        var id: RideID
        var automatic: Bool
        var startedAt: Date
        var fixes: [Fix] = []
        var gaps: [GapMarker] = []
    }

    var rides: [Ride] = []
    /// Seconds at which the truth sets off: the first movement, and each after at least 5 min still.
    var setOffs: [Int]
    /// The true distance moved, metres (per-second samples).
    var trueDistance: Double
    var states: [Trajectory.State]
    var epoch: Date

    init(_ sim: Simulation) {
        epoch = sim.epoch
        let app = sim.engineApp!
        var byID: [RideID: Int] = [:]
        var current: Int?
        for entry in app.timeline {
            switch entry.value {
            case .ride(.checkpoint(let snapshot)):
                if let index = byID[snapshot.rideID] { current = index } else {
                    byID[snapshot.rideID] = rides.count
                    current = rides.count
                    rides.append(Ride(id: snapshot.rideID, automatic: snapshot.startedAutomatically, startedAt: snapshot.startedAt))
                }
            case .ride(.recorded(let fix)): if let current { rides[current].fixes.append(fix) }
            case .ride(.gap(let gap)): if let current { rides[current].gaps.append(gap) }
            default: break
            }
        }
        rides.removeAll { $0.fixes.isEmpty }
        let end = Int(sim.trajectory.endTime.rounded(.up))
        states = (0...max(0, end)).map { sim.trajectory.state(at: Double($0)) }
        setOffs = RideMetrics.starts(states, threshold: 1.0)
        trueDistance = zip(states, states.dropFirst()).reduce(0) { $0 + Geodesy.haversineDistance($1.0.coordinate, $1.1.coordinate) }
    }

    /// Metres along every ride's fixes (straight lines across gaps, none between rides).
    var recordedDistance: Double {
        rides.reduce(0) { sum, ride in
            sum + zip(ride.fixes, ride.fixes.dropFirst()).reduce(0) { $0 + Geodesy.haversineDistance($1.0.coordinate, $1.1.coordinate) }
        }
    }

    /// For each set-off that starts a ride (no ride under way across it): the distance from where
    /// the rider set off to the first fix of the ride that covers it (nil when no ride covers it
    /// within an hour).
    var startDistances: [Double?] {
        setOffs.compactMap { start -> Double?? in
            let t = epoch.addingTimeInterval(Double(start))
            let underWay = rides.contains { $0.startedAt < t && ($0.fixes.last?.timestamp ?? .distantPast) > t }
            guard !underWay else { return nil }
            let ride = rides.first { ride in
                guard let last = ride.fixes.last else { return false }
                return last.timestamp >= t && ride.startedAt <= t.addingTimeInterval(3600)
            }
            return .some(ride?.fixes.first.map { Geodesy.haversineDistance(states[start].coordinate, $0.coordinate) })
        }
    }

    /// Set-offs inside a ride under way (a rest shorter than the stop timeout): resumes, not starts.
    var resumes: Int { setOffs.count - startDistances.count }

    /// The share of the moving distance recorded after each start was noticed: the true distance
    /// from each ride's first fix on the move on, against the recorded distance from it on (what a
    /// suspended app cannot record before iOS wakes it is left out of both).
    var shareAfterDetection: Double {
        var truth = 0.0, recorded = 0.0
        for ride in rides {
            let live = ride.fixes.first { $0.timestamp >= ride.startedAt } ?? ride.fixes.first
            guard let live, let last = ride.fixes.last, let index = ride.fixes.firstIndex(of: live) else { continue }
            let from = Int(live.timestamp.timeIntervalSince(epoch).rounded()), to = Int(last.timestamp.timeIntervalSince(epoch).rounded())
            guard from < to, to < states.count else { continue }
            truth += (from..<to).reduce(0) { $0 + Geodesy.haversineDistance(states[$1].coordinate, states[$1 + 1].coordinate) }
            let after = ride.fixes[index...]
            recorded += zip(after, after.dropFirst()).reduce(0) { $0 + Geodesy.haversineDistance($1.0.coordinate, $1.1.coordinate) }
        }
        return truth > 0 ? recorded / truth : 0
    }

    /// For each set-off: the distance from where the rider set off to the first fix recorded on the
    /// move (after the resting place and its gap).
    var firstLiveDistances: [Double?] {
        setOffs.map { start in
            let live = rides.flatMap(\.fixes).first { $0.timestamp.timeIntervalSince(epoch) > Double(start) }
            return live.map { Geodesy.haversineDistance(states[start].coordinate, $0.coordinate) }
        }
    }
}
