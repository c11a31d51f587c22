import Foundation
import WaymarkEngine
import WaymarkGeo

/// Geofence recall and latency against the true path, in the ways an app meets iOS region
/// monitoring (issue #14): while it records a ride with GNSS on, while it sits in a pocket with
/// only iOS region monitoring, and after the system terminated it or the user force-quit it.
///
/// One run drives the real `GeofenceMonitor` (in `GeofencingTestApp`, which rebuilds it from
/// its stored state on every launch, as an app does) along a trajectory past circular fences, and
/// scores what the app was told against crossings computed from the true path every second.
///
/// ```swift
/// let result = try GeofenceExperiment.run(.pocket, seed: 1, trajectory: ride)
/// print(result.recall, result.medianLatencySeconds ?? .nan)
/// ```
public enum GeofenceExperiment {
    /// How the app runs while the device moves.
    public enum Mode: String, CaseIterable, Sendable, Codable {
        /// The app records a ride: standard updates at best accuracy with background location
        /// (GNSS on) from the start, so fences are decided from fixes.
        case riding
        /// The app is opened, then goes to the background without standard updates: only iOS
        /// region monitoring (and significant changes) report crossings; the app is suspended.
        case pocket
        /// As ``pocket``, and the system terminates the app 10 minutes in; only iOS relaunches
        /// (for region events) run it again, until the user opens it at the end.
        case terminated
        /// As ``terminated``, but the user force-quits the app.
        case forceQuit
        /// The app stays open in the foreground the whole time, without a ride.
        case foreground

        /// Fences placed along the ride: 5,000 while riding (the engine's fix-based decisions
        /// scale to any number); 100 otherwise, a density where 20 iOS regions can cover the
        /// nearest ones (5,000 fences along a 16 km ride means a crossing every few seconds,
        /// which no 20-region window can follow without fixes).
        public var defaultFenceCount: Int { self == .riding ? 5000 : 100 }

        /// The app states of the issue #34 table (everything but riding).
        public static let appStates: [Mode] = [.foreground, .pocket, .terminated, .forceQuit]
    }

    /// The score of one run.
    ///
    /// Scored crossings exclude fences under ``minimumScoredRadius``.
    public struct Result: Hashable, Sendable, Codable {
        /// The mode.
        public var mode: Mode
        /// The seed.
        public var seed: UInt64
        /// True crossings scored (fences of at least the minimum radius, quick re-entries excluded).
        public var crossings: Int
        /// Crossings reported by an event of the same kind before the fence's next true crossing of that kind.
        public var reported: Int
        /// Crossings reported at most 60 s after the true path crossed the boundary.
        public var reportedWithinMinute: Int
        /// Crossings reported at most 3 minutes after the true path crossed the boundary.
        public var reportedWithinThreeMinutes: Int = 0
        /// Crossings reported at most 60 s after the true path was 40 m past the boundary: a
        /// receiver good to 5–30 m needs that depth to tell a crossing from its own noise, and a
        /// path that runs along the boundary at walking pace takes minutes to get there.
        public var reportedWithinMinuteOfDepth: Int
        /// Events (enter and exit) delivered to the app.
        public var events: Int
        /// Delivered events that are false: the true path was never on the claimed side within a
        /// minute of the event's time or of its delivery (for an event marked late, anywhere in its
        /// `earliest`…delivery window).
        public var falseEvents: Int
        /// Delivery minus true crossing time over reported crossings: median, 90th percentile, maximum (s).
        public var medianLatencySeconds: Double?, p90LatencySeconds: Double?, maxLatencySeconds: Double?
        /// Reported crossings whose event came more than 60 s after the boundary crossing.
        public var reportedLate: Int
        /// Of those, events marked late by the engine (`FenceEvent.Timing.osDelayed` or
        /// `FenceEvent.Timing.caughtUp`); the rest claim to be live decisions.
        public var reportedLateMarked: Int
        /// Launches of the app by reason.
        public var launches: [String: Int]
        /// Energy the run spent, in the simulator's units (``EnergyReport/total``).
        public var energy: Double
        /// Of it, GNSS's share.
        public var gnssEnergy: Double
        /// The false events, each as "fence kind timing at t s (delivered at t s)", for diagnosis.
        public var falseEventDescriptions: [String] = []
        /// The crossings no event reported, each as "fence kind at t s (radius r m)", for diagnosis.
        public var missedDescriptions: [String] = []
        /// The energy by consumer (``EnergyReport/Consumer`` raw values), where it went.
        public var energyByConsumer: [String: Double] = [:]
        /// The mode of the fences (nil in runs that predate modes).
        public var fenceMode: GeofenceMode?
        /// The layout (nil when the caller gave its own trajectory).
        public var layout: GeofenceLayout.Kind?
        /// The energy of recording the same trips with the ride tracker in the same run
        /// (``recordingEnergy(_:seed:backend:overrides:)``), when measured.
        public var recordingEnergy: Double?

        /// ``energy`` over ``recordingEnergy``.
        public var energyRatioToRecording: Double? {
            guard let recordingEnergy, recordingEnergy > 0 else { return nil }
            return energy / recordingEnergy
        }
        /// Reported within 3 minutes of the boundary crossing, over scored crossings.
        public var recallWithinThreeMinutes: Double { crossings == 0 ? 1 : Double(reportedWithinThreeMinutes) / Double(crossings) }

        /// Reported over scored crossings (1 when nothing was crossed).
        public var recall: Double { crossings == 0 ? 1 : Double(reported) / Double(crossings) }
        /// Reported within a minute of the boundary crossing, over scored crossings.
        public var recallWithinMinute: Double { crossings == 0 ? 1 : Double(reportedWithinMinute) / Double(crossings) }
        /// Reported within a minute of the path being 40 m past the boundary, over scored crossings.
        public var recallWithinMinuteOfDepth: Double { crossings == 0 ? 1 : Double(reportedWithinMinuteOfDepth) / Double(crossings) }
    }

    /// Fences smaller than this are not scored: iOS treats radii under about 200 m as about 200 m
    /// (PLATFORM.md §5), and the engine's exit margin needs room.
    public static let minimumScoredRadius = 150.0

    /// Runs one mode along `trajectory` past `fenceCount` circles of 100–500 m placed around it
    /// (default: the mode's ``Mode/defaultFenceCount``).
    ///
    /// - parameter mode: how the app runs while the device moves (riding, in a pocket, terminated, force-quit).
    /// - parameter seed: seeds the fence placement and the simulation; equal arguments give equal results.
    /// - parameter trajectory: the device's true path; the run lasts until 600 virtual seconds after
    ///   its last point.
    /// - parameter fenceCount: how many fences to place; nil for the mode's ``Mode/defaultFenceCount``.
    /// - parameter overrides: platform constants to override (as in a scenario's `platform.overrides`).
    /// - parameter backend: the location APIs the app uses (``BackendTranslatingApp``).
    /// - parameter proximity: the monitor's `ProximityTracking` (for precise fences).
    /// - parameter fenceMode: the `GeofenceMode` of every fence (default regions: iOS region events only).
    public static func run(_ mode: Mode, seed: UInt64, trajectory: Trajectory, fenceCount: Int? = nil,
                           overrides: [String: JSONValue] = [:], backend: LocationBackend = .locationManager,
                           proximity: ProximityTracking = ProximityTracking(),
                           fenceMode: GeofenceMode = .regions) throws(SimulatorError) -> Result {
        var configuration = GeofenceMonitor.Configuration()
        configuration.proximity = proximity
        let layout = GeofenceLayout.park(trajectory, seed: seed, fenceCount: fenceCount ?? mode.defaultFenceCount)
        var result = try run(mode, layout: layout, fenceMode: fenceMode, seed: seed, overrides: overrides, backend: backend,
                             configuration: configuration)
        result.layout = nil
        return result
    }

    /// Runs one app state on a layout with every fence in `fenceMode`.
    ///
    /// - parameter mode: how the app runs (foreground, pocket, terminated, force-quit; riding keeps
    ///   GNSS on for a ride alongside).
    /// - parameter layout: the path and the fences (``GeofenceLayout``).
    /// - parameter fenceMode: the `GeofenceMode` set on every fence.
    /// - parameter seed: seeds the simulation.
    /// - parameter overrides: platform constants to override.
    /// - parameter backend: the location APIs the app uses.
    /// - parameter configuration: the monitor's configuration.
    /// - parameter inspect: called with the finished simulation (to read its log), before scoring.
    public static func run(_ mode: Mode, layout: GeofenceLayout, fenceMode: GeofenceMode, seed: UInt64,
                           overrides: [String: JSONValue] = [:], backend: LocationBackend = .locationManager,
                           configuration: GeofenceMonitor.Configuration = .init(),
                           inspect: (Simulation) -> Void = { _ in }) throws(SimulatorError) -> Result {
        let fences = layout.fences.map { fence -> Fence in
            var fence = fence
            fence.mode = fenceMode
            return fence
        }
        let trajectory = layout.trajectory
        let end = trajectory.endTime + 600
        let scenario = GeofenceScenario.make(route: ScenarioRoute(start: trajectory.position(at: 0), legs: []),
                                             actions: actions(mode, end: end), duration: end, overrides: overrides)
        let app = GeofencingTestApp(configuration: configuration, fences: fences, tracksRide: mode == .riding)
        var sim = try Simulation(scenario: scenario, seed: seed, app: BackendTranslatingApp(app, backend: backend),
                                 trajectory: trajectory)
        sim.runToEnd()
        inspect(sim)
        var result = score(mode: mode, seed: seed, fences: fences, simulation: sim)
        result.energyByConsumer = Dictionary(uniqueKeysWithValues: EnergyReport.Consumer.allCases.compactMap { c in
            sim.energy[c] > 0 ? (c.rawValue, sim.energy[c]) : nil
        })
        result.fenceMode = fenceMode
        result.layout = layout.kind
        return result
    }

    /// The user's actions of an app state over a run that ends at `end`: the app goes to the
    /// background a minute in (except in the foreground and while riding); the system terminates
    /// it, or the user force-quits it, 10 minutes in, and the user opens it a minute before the end.
    static func actions(_ mode: Mode, end: Double) -> [UserAction] {
        switch mode {
        case .riding, .foreground: []
        case .pocket: [UserAction(at: 60, .background)]
        case .terminated: [UserAction(at: 60, .background), UserAction(at: 600, .systemTerminate), UserAction(at: end - 60, .open)]
        case .forceQuit: [UserAction(at: 60, .background), UserAction(at: 600, .forceQuit), UserAction(at: end - 60, .open)]
        }
    }

    /// The energy of recording the layout's trips with the ride tracker (Waymark's policy), in the
    /// same scenario as a pocket run: one ride from the start for a ride layout, automatic tracking
    /// (rides start and end by themselves, GNSS off while still) for a day with still stretches.
    public static func recordingEnergy(_ layout: GeofenceLayout, seed: UInt64, backend: LocationBackend = .locationManager,
                                       overrides: [String: JSONValue] = [:]) throws(SimulatorError) -> Double {
        let end = layout.trajectory.endTime + 600
        let scenario = GeofenceScenario.make(route: ScenarioRoute(start: layout.trajectory.position(at: 0), legs: []),
                                             actions: actions(.pocket, end: end), duration: end, overrides: overrides)
        var configuration = RideTracker.Configuration()
        if layout.recordsAutomatically { configuration.automatic = AutomaticTracking(enabled: true) }
        let app = RideSimApp(configuration: configuration, startsRideOnFirstOpen: !layout.recordsAutomatically)
        var sim = try Simulation(scenario: scenario, seed: seed, app: BackendTranslatingApp(app, backend: backend),
                                 trajectory: layout.trajectory)
        sim.runToEnd()
        return sim.energy.total
    }

    /// `count` circles of 100–500 m: centres offset from random points of the route by up to the
    /// radius plus 400 m (so some are crossed, some grazed, most missed); the first 1% are placed so
    /// that the ride starts inside them.
    static func fences(along ride: Trajectory, count: Int, seed: UInt64) -> [Fence] {
        var rng = SplitMix64(seed: seed ^ 0x6765_6f66_656e_6365)
        let inside = max(1, count / 125)
        return (0..<count).map { i in
            let radius = Double.random(in: 100...500, using: &rng)
            let t = i < inside ? 0 : Double.random(in: 0...ride.endTime, using: &rng)
            let offset = i < inside ? Double.random(in: 0...(radius - 80), using: &rng)
                : Double.random(in: 0...(radius + 400), using: &rng)
            let center = Geodesy.destination(from: ride.position(at: t), bearing: Double.random(in: 0..<360, using: &rng),
                                             distance: offset)
            return Fence(id: "f\(i)", shape: .circle(center: center, radiusMeters: radius), triggers: .all)
        }
    }

    static func score(mode: Mode, seed: UInt64, fences: [Fence], simulation sim: Simulation) -> Result {
        let app = GeofencingTestApp.app(of: sim)
        let events = app.delivered
        let deliveries = app.deliveryTimes.map { $0.timeIntervalSince(sim.epoch) }
        let truth = GroundTruth(fences: fences, simulation: sim, from: 1)
        let scored = truth.scoredCrossings(minimumRadius: minimumScoredRadius)
        var used = Set<Int>()
        var byFence: [String: [Int]] = [:]
        for i in events.indices where events[i].kind != .dwell { byFence[events[i].fenceID, default: []].append(i) }
        var latencies: [Double] = []
        var withinMinute = 0, withinThree = 0, withinMinuteOfDepth = 0, late = 0, lateMarked = 0
        var missed: [String] = []
        for c in scored {
            let candidates = byFence[c.crossing.fence] ?? []
            guard let match = candidates.first(where: { i in
                !used.contains(i) && events[i].kind == c.crossing.kind && deliveries[i] >= c.boundary - 60 && deliveries[i] < c.nextSameKind
            }) else {
                missed.append("\(c.crossing.fence) \(c.crossing.kind) at \(Int(c.boundary)) s (radius \(Int(truth.radius[c.crossing.fence] ?? 0)) m)")
                continue
            }
            used.insert(match)
            let latency = max(0, deliveries[match] - c.boundary)
            latencies.append(latency)
            if latency <= 180 { withinThree += 1 }
            if latency <= 60 { withinMinute += 1 } else {
                late += 1
                if events[match].timing != .live { lateMarked += 1 }
            }
            if deliveries[match] - max(c.boundary, c.deep) <= 60 { withinMinuteOfDepth += 1 }
        }
        let circles = Dictionary(uniqueKeysWithValues: fences.compactMap { f -> (String, (Coordinate, Double))? in
            guard case .circle(let c, let r) = f.shape else { return nil }
            return (f.id, (c, r))
        })
        var falseEvents = 0, scoredEvents = 0
        var falseDescriptions: [String] = []
        for i in events.indices where events[i].kind != .dwell {
            scoredEvents += 1
            guard let (center, r) = circles[events[i].fenceID] else { continue }
            let claimed = events[i].time.timeIntervalSince(sim.epoch)
            var around: [Double] = Array(stride(from: claimed - 60, through: claimed + 60, by: 3))
            around.append(contentsOf: stride(from: deliveries[i] - 60, through: deliveries[i] + 60, by: 3))
            if events[i].timing != .live {
                // A late event claims a crossing somewhere in its window, not at its estimate.
                let from = (events[i].earliest ?? events[i].time).timeIntervalSince(sim.epoch)
                around.append(contentsOf: stride(from: from - 60, through: deliveries[i], by: 3))
            }
            let sides: [Double] = around.map { (t: Double) -> Double in
                Geodesy.haversineDistance(sim.trajectory.position(at: t), center) - r
            }
            let correct = events[i].kind == .enter ? sides.contains { $0 < 0 } : sides.contains { $0 > 0 }
            if !correct {
                falseEvents += 1
                falseDescriptions.append("\(events[i].fenceID) \(events[i].kind) \(events[i].timing) at \(Int(claimed)) s (delivered at \(Int(deliveries[i])) s, cause \(events[i].cause))")
            }
        }
        latencies.sort()
        func quantile(_ q: Double) -> Double? {
            latencies.isEmpty ? nil : latencies[min(latencies.count - 1, Int((Double(latencies.count - 1) * q).rounded()))]
        }
        return Result(mode: mode, seed: seed, crossings: scored.count, reported: latencies.count,
                      reportedWithinMinute: withinMinute, reportedWithinThreeMinutes: withinThree, reportedWithinMinuteOfDepth: withinMinuteOfDepth, events: scoredEvents, falseEvents: falseEvents,
                      medianLatencySeconds: quantile(0.5), p90LatencySeconds: quantile(0.9), maxLatencySeconds: latencies.last,
                      reportedLate: late, reportedLateMarked: lateMarked,
                      launches: sim.stats.launches, energy: sim.energy.total, gnssEnergy: sim.energy[.gnss],
                      falseEventDescriptions: falseDescriptions, missedDescriptions: missed)
    }
}

extension GroundTruth {
    /// A strict crossing to score: when the true path crossed the boundary itself, and when the
    /// fence's next strict crossing of the same kind happens (an event after that belongs to it).
    struct ScoredCrossing: Sendable {
        var crossing: Crossing
        var boundary: Double
        var nextSameKind: Double
        /// When the true path was ``GroundTruth/margin`` past the boundary (the strict crossing).
        var deep: Double { crossing.t }
    }

    /// Strict crossings of fences of at least `minimumRadius`, without quick re-entries (within the
    /// engine's debounce, which are don't-care), each with its boundary time.
    func scoredCrossings(minimumRadius: Double) -> [ScoredCrossing] {
        var result: [ScoredCrossing] = []
        var lastExit: [String: Double] = [:]
        var pendingDontCare = Set<String>()
        let strictByFence = Dictionary(grouping: strict, by: \.fence)
        let looseByFence = Dictionary(grouping: loose, by: \.fence)
        for c in strict {
            if c.kind == .enter, let e = lastExit[c.fence], c.t - e < Self.debounce { pendingDontCare.insert(c.fence); continue }
            if c.kind == .exit { lastExit[c.fence] = c.t; if pendingDontCare.remove(c.fence) != nil { continue } }
            guard (radius[c.fence] ?? 0) >= minimumRadius else { continue }
            // The path crossed the boundary itself at the first loose crossing of this kind since
            // the fence's previous strict crossing: brief returns within the margin after it
            // (a path wandering along the boundary) do not move the crossing later.
            let previous = (strictByFence[c.fence] ?? []).last { $0.t < c.t }?.t ?? -.infinity
            let boundary = (looseByFence[c.fence] ?? []).first { $0.kind == c.kind && $0.t > previous && $0.t <= c.t }?.t ?? c.t
            let next = (strictByFence[c.fence] ?? []).first { $0.t > c.t && $0.kind == c.kind }?.t ?? .infinity
            result.append(ScoredCrossing(crossing: c, boundary: boundary, nextSameKind: next))
        }
        return result
    }
}
