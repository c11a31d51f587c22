import Foundation
import WaymarkGeo
import WaymarkEngine

/// One scenario of the battery experiment: a scenario file, or a ride from the GPX corpus.
///
/// A `Sendable` value type.
public struct RideExperimentScenario: Sendable {
    /// The name shown in the table.
    public var name: String
    /// The scenario (device, user, world).
    public var scenario: Scenario
    /// The truth, when it comes from a GPX track rather than the scenario's route.
    public var trajectory: Trajectory?

    /// Makes an experiment scenario.
    public init(name: String, scenario: Scenario, trajectory: Trajectory? = nil) {
        self.name = name
        self.scenario = scenario
        self.trajectory = trajectory
    }

    /// Loads a scenario file (`.json`), or every qualifying ride of a `.gpx` file.
    ///
    /// - throws: ``SimulatorError`` when the file cannot be read or is invalid.
    public static func load(path: String) throws(SimulatorError) -> [RideExperimentScenario] {
        let url = URL(fileURLWithPath: path)
        if url.pathExtension.lowercased() == "gpx" { return try rides(inGPX: url, requireRide: false) }
        let scenario = try Scenario.load(contentsOf: url)
        return [RideExperimentScenario(name: scenario.name.map { _ in url.deletingPathExtension().lastPathComponent }
                                          ?? url.lastPathComponent, scenario: scenario)]
    }

    /// Every timed track under `directory` (searched recursively) that is a ride by ``RideSelection``.
    ///
    /// The true route of a GPX ride is its points with the stops made stationary (``StayCollapse``):
    /// a logger's wander while the rider stood is not ridden distance.
    public static func corpusRides(under directory: URL) -> [RideExperimentScenario] {
        let files = (FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL } ?? [])
            .filter { $0.pathExtension.lowercased() == "gpx" }
            .sorted { $0.path < $1.path }
        return files.flatMap { (try? rides(inGPX: $0, requireRide: true)) ?? [] }
    }

    /// The tracks of one GPX file as experiment scenarios (only rides when `requireRide`).
    static func rides(inGPX url: URL, requireRide: Bool) throws(SimulatorError) -> [RideExperimentScenario] {
        let document: GPXDocument
        do { document = try GPXDocument.read(contentsOf: url).document } catch {
            throw SimulatorError(.io, "cannot read \(url.path): \(error)")
        }
        var result: [RideExperimentScenario] = []
        for (index, track) in document.tracks.enumerated() {
            let points = track.points.filter { $0.time != nil }
            guard !requireRide || RideSelection(points).isRide else { continue }
            guard points.count >= 2 else { continue }
            let name = "\(url.lastPathComponent)#\(index + 1)"
            result.append(RideExperimentScenario(name: name, scenario: backgroundRide(named: name),
                                                 trajectory: Trajectory(timedWaypoints: StayCollapse().apply(to: points))))
        }
        return result
    }

    /// A ride recorded in the background: permissions granted, the app opened at 0 and sent to
    /// the background a minute later, motion derived from the route.
    public static func backgroundRide(named name: String) -> Scenario {
        Scenario(name: name,
                 device: DeviceSetup(install: .existing, location: .authorizedAlways, notifications: .granted, motion: .granted,
                                     backgroundModes: [.location]),
                 user: UserBehaviour(actions: [UserAction(at: 0, .open), UserAction(at: 60, .background)]),
                 motion: MotionSetup(mode: .derived))
    }
}

/// Decides by speed whether a timed track is a ride.
///
/// Between consecutive timed points the speed is distance over time; a step is moving at
/// 0.5 m/s or more. A track is a ride when it moves for at least 10 minutes, the median of its
/// moving speed, weighted by time, is between 1.5 and 12 m/s (5–43 km/h: not a stroll,
/// slower than driving), and the 90th percentile is between 4 and 15 m/s (a rider reaches
/// 14 km/h regularly, a hiker does not; 54 km/h and more for a tenth of the time is a car).
/// By speed alone a fast run qualifies too. A `Sendable` value type.
public struct RideSelection: Hashable, Sendable {
    /// Seconds moving.
    public var movingSeconds: Double
    /// Time-weighted median moving speed, m/s.
    public var medianMovingSpeed: Double
    /// Time-weighted 90th percentile of the moving speed, m/s.
    public var p90MovingSpeed: Double

    /// Measures `points` (those without time are ignored).
    public init(_ points: [Waypoint]) {
        var steps: [(speed: Double, dt: Double)] = []
        let timed = points.filter { $0.time != nil }
        for (a, b) in zip(timed, timed.dropFirst()) {
            let dt = b.time!.timeIntervalSince(a.time!)
            guard dt > 0 else { continue }
            let v = Geodesy.haversineDistance(a.coordinate, b.coordinate) / dt
            if v >= 0.5 { steps.append((v, dt)) }
        }
        movingSeconds = steps.reduce(0) { $0 + $1.dt }
        let sorted = steps.sorted { $0.speed < $1.speed }
        func quantile(_ q: Double) -> Double {
            var remaining = sorted.reduce(0) { $0 + $1.dt } * q
            for step in sorted {
                remaining -= step.dt
                if remaining <= 0 { return step.speed }
            }
            return sorted.last?.speed ?? 0
        }
        medianMovingSpeed = quantile(0.5)
        p90MovingSpeed = quantile(0.9)
    }

    /// Whether the track is a ride.
    public var isRide: Bool {
        movingSeconds >= 600 && medianMovingSpeed >= 1.5 && medianMovingSpeed < 12 && p90MovingSpeed >= 4 && p90MovingSpeed < 15
    }
}
