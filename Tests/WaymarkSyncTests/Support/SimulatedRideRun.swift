import Foundation
import WaymarkEngine
import WaymarkGeo
import WaymarkSimulator
@testable import WaymarkSync
import WaymarkSimulatedPhone
import WaymarkCLI

/// One randomized fault schedule played with the real app: ``EngineApp`` (the full engine core
/// with its `RideTracker`) records a short commute on the simulated iPhone, with the scenario's
/// kills and relaunches, suspensions, a tunnel and offline windows; what the tracker records goes
/// into a ``RideStore`` file, with the geofence events the engine decides for the app's four fences,
/// and its upload queue sends it to a real HTTP server that injects 5xx
/// answers, dropped connections and replies held past the client's timeout.
///
/// WaymarkSimulator's ``SimulatedPhone`` runs the phone; this type makes the schedule and steps
/// virtual time to the next step, or to the upload queue's next deadline while the app runs.
struct SimulatedRideRun {
    struct Result {
        /// What the tracker recorded (the app's durable record), in order.
        var recorded: [Fix] = []
        /// The gap markers the tracker reported.
        var gaps: [GapMarker] = []
        /// The geofence events the engine decided (the app's durable record), in order.
        var fenceEvents: [FenceEvent] = []
        var launches = 0
        /// Lockstep steps that ended with the app suspended, and with it not running.
        var suspendedSteps = 0, deadSteps = 0
        var requests = 0
        var finalBacklog = UploadBacklog()
        var storeFixes = 0
    }

    let seed: UInt64
    let server: IngestTestServer
    let configuration: UploadQueue.Configuration
    var scenario: Scenario
    let offline: [TimeWindow]
    /// Server faults: probabilities per request.
    let p5xx: Double, pDrop: Double, pHold: Double
    let backend: LocationBackend
    /// Whether the app starts a ride at launch; without one it only watches its fences (geofences-only mode).
    let startsRide: Bool
    /// The device token the phone uploads with; `tok-<device>` when the ledger is the server.
    var token: String?

    var device: String { "sim-\(seed)" }
    static let epoch = Date(timeIntervalSince1970: 1_767_254_400)
    static let step = 15.0

    /// - parameter relaunchAfterForceQuit: whether location events relaunch the app after a
    ///   force-quit (current iOS: yes, from field reports; PLATFORM.md §4); nil keeps the profile's default.
    init(seed: UInt64, server: IngestTestServer, configuration: UploadQueue.Configuration,
         relaunchAfterForceQuit: Bool? = nil, backend: LocationBackend = .locationManager, startsRide: Bool = true) {
        self.seed = seed
        self.startsRide = startsRide
        self.backend = backend
        self.server = server
        self.configuration = configuration
        var rng = SplitMix64(seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ 5)
        (scenario, offline) = Self.commute(seed: seed, rng: &rng)
        if let relaunchAfterForceQuit {
            scenario.platform = PlatformSetup(overrides: ["relaunchAfterForceQuit": .bool(relaunchAfterForceQuit)])
        }
        p5xx = Double.random(in: 0...0.3, using: &rng)
        pDrop = Double.random(in: 0...0.1, using: &rng)
        pHold = Double.random(in: 0..<1, using: &rng) < 0.2 ? 0.05 : 0
    }

    /// The app's fences on the commute: home (the start, left), a corner passed through, the office
    /// at the end (entered, and left when the rider rides back) and a gym off the route (no event).
    static let fences: [Fence] = [
        Fence(id: "home", shape: .circle(center: Coordinate(uncheckedLatitude: 46.05, longitude: 14.5), radiusMeters: 150),
              userData: ["kind": "home"]),
        Fence(id: "corner", shape: .circle(center: Coordinate(uncheckedLatitude: 46.05, longitude: 14.5155), radiusMeters: 100)),
        Fence(id: "office", shape: .circle(center: Coordinate(uncheckedLatitude: 46.0572, longitude: 14.5233), radiusMeters: 120),
              triggers: [.enter, .exit, .dwell], loiteringDelay: 120),
        Fence(id: "gym", shape: .circle(center: Coordinate(uncheckedLatitude: 46.045, longitude: 14.51), radiusMeters: 100)),
    ]

    /// A short commute: 2.6 km with a traffic light, sometimes a tunnel, then parked (sometimes
    /// long enough for iOS to suspend the app, then ridden 600 m back); the app is
    /// opened and pocketed, and may be terminated by the system, force-quit and reopened, and
    /// brought to the foreground; the network may drop out.
    static func commute(seed: UInt64, rng: inout SplitMix64) -> (Scenario, [TimeWindow]) {
        let start = Coordinate(uncheckedLatitude: 46.05, longitude: 14.5)
        let a = Coordinate(uncheckedLatitude: 46.05, longitude: 14.5155)        // 1.2 km east
        let b = Coordinate(uncheckedLatitude: 46.0572, longitude: 14.5155)      // 0.8 km north
        let c = Coordinate(uncheckedLatitude: 46.0572, longitude: 14.5233)      // 0.6 km east
        let light = Double.random(in: 20...60, using: &rng)
        var legs: [RouteLeg] = [.stop(10), .travel([a], speed: 5.5, activity: .cycling), .stop(light),
                                .travel([b], speed: 5.5, activity: .cycling), .travel([c], speed: 5.5, activity: .cycling)]
        let riding = 10 + 2_600 / 5.5 + light
        var duration = riding + Double.random(in: 60...180, using: &rng)
        if Double.random(in: 0..<1, using: &rng) < 0.4 {
            // Parked long enough for the hour-long watch to end and iOS to suspend the app, then ridden back.
            let park = Double.random(in: 3_900...4_600, using: &rng).rounded()
            legs += [.stop(park), .travel([b], speed: 5.5, activity: .cycling)]
            duration += park + 600 / 5.5
        }
        var actions = [UserAction(at: 0, .open), UserAction(at: Double.random(in: 15...45, using: &rng), .background)]
        for _ in 0..<Int.random(in: 0...2, using: &rng) {
            let t = Double.random(in: 60...(riding - 30), using: &rng).rounded()
            switch Int.random(in: 0..<3, using: &rng) {
            case 0:
                actions.append(UserAction(at: t, .systemTerminate))
            case 1:
                actions.append(UserAction(at: t, .forceQuit))
                if Bool.random(using: &rng) {
                    actions.append(UserAction(at: t + Double.random(in: 20...120, using: &rng).rounded(), .open))
                    actions.append(UserAction(at: t + 150, .background))
                } else {
                    // Reopened only after the ride: the rest of it is recorded only if iOS relaunches the
                    // force-quit app for a significant change (PLATFORM.md §4, `relaunchAfterForceQuit`).
                    actions.append(UserAction(at: riding + 30, .open))
                }
            default:
                actions.append(UserAction(at: t, .open))
                actions.append(UserAction(at: t + Double.random(in: 10...60, using: &rng).rounded(), .background))
            }
        }
        actions.sort { $0.at < $1.at }
        var offline: [TimeWindow] = []
        for _ in 0..<Int.random(in: 0...2, using: &rng) {
            let from = Double.random(in: 0...duration, using: &rng).rounded()
            offline.append(TimeWindow(from: from, to: from + Double.random(in: 20...240, using: &rng).rounded()))
        }
        var outages: [World.Outage] = []
        if Double.random(in: 0..<1, using: &rng) < 0.5 {
            outages.append(World.Outage(area: BoundingCircle(center: Coordinate(uncheckedLatitude: 46.0535, longitude: 14.5155),
                                                         radiusMeters: 120)))
        }
        let scenario = Scenario(
            name: "fault commute \(seed)", seed: seed, startTime: epoch, durationSeconds: duration,
            route: ScenarioRoute(start: start, legs: legs),
            device: DeviceSetup(install: .existing, location: .authorizedAlways, notifications: .granted, motion: .granted,
                                backgroundModes: [.location]),
            user: UserBehaviour(actions: actions),
            world: World(outages: outages, network: World.Network(offline: offline)),
            motion: MotionSetup(mode: .derived))
        return (scenario, offline)
    }

    func run() async throws -> Result {
        let path = TestFixes.temporaryStorePath()
        defer { TestFixes.removeStore(at: path) }
        let ledger = server.state, device = device, token = token ?? "tok-\(device)"
        await ledger.register(token: token, device: device)
        // A held reply moves the transport's own clock past its timeout: the client gives up at once.
        let clock = SimulatedClock(startingAt: 0)
        let transport = try HTTPUploadTransport(server: server.baseURL, timeout: FaultRun.timeout, clock: clock)
        await ledger.whenHeld(device: device) { clock.advance(by: FaultRun.timeout) }
        let (s, p5, pd, ph) = (seed, p5xx, pDrop, pHold)
        await ledger.decideFaults(device: device) { n in
            var rng = SplitMix64(seed: s &* 131 &+ UInt64(n) &* 0x2545_F491_4F6C_DD1D)
            let x = Double.random(in: 0..<1, using: &rng)
            if x < p5 { return .status([500, 502, 503, 504].randomElement(using: &rng)!) }
            if x < p5 + pd { return .dropAfterCommit }
            if x < p5 + pd + ph { return .holdAfterCommitUntilNextRequest }
            return nil
        }
        let sim = try Simulation(scenario: scenario, seed: seed,
                                 app: EngineApp(configuration: EngineCore.Configuration(backend: backend),
                                                script: EngineApp.Script(startsRide: startsRide, rideID: "ride-\(seed)",
                                                                         fences: Self.fences)))
        var phone = try SimulatedPhone(simulation: sim, storePath: path, transport: transport,
                                       credentials: DeviceCredentials(token: token), deviceID: device,
                                       uploads: configuration, ridePolicy: "cycling", seed: seed)
        var t = 0.0
        while t < sim.endTime {
            // Up to the next step, or sooner to the upload queue's next deadline while the app runs.
            var target = min(t + Self.step, sim.endTime)
            if phone.isRunning, let due = phone.uploader?.queue.nextDeadline {
                target = min(target, max(t + 0.5, due.timeIntervalSince(Self.epoch)))
            }
            try await phone.advance(to: target)
            t = target
        }
        // Home: the rider opens the app; the network is fine and the server behaves.
        await ledger.decideFaults(device: device, nil)
        try await phone.finishOnline()
        return Result(recorded: phone.recorded, gaps: phone.gaps, fenceEvents: phone.fenceEvents, launches: phone.launches,
                      suspendedSteps: phone.suspendedSteps, deadSteps: phone.deadSteps, requests: phone.requests,
                      finalBacklog: try phone.store.backlog(), storeFixes: try phone.store.fixCount())
    }
}
