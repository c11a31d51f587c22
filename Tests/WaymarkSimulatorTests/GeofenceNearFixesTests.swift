import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

/// What proximity tracking is for, measured where it happens: while the true path is near a fence
/// boundary, the app receives fixes. Recall alone cannot show this on the iOS 17 backend, where live updates
/// have no accuracy setting and iOS region/monitor events keep recall up: a near tier that stopped asking
/// for fixes could still pass `pocketWithProximity` there.
@Suite("Proximity tracking: fixes keep coming while the device is near a fence, on both backends")
struct GeofenceNearFixesTests {
    /// The pocket run of ``GeofenceExperiment/run(_:seed:trajectory:fenceCount:overrides:backend:proximity:fenceMode:)``,
    /// kept as a simulation to read what the app received; every fence in `mode`.
    static func pocket(_ ride: Trajectory, backend: LocationBackend, proximity: ProximityTracking = .on, mode: GeofenceMode)
        throws -> (Simulation, [Fence]) {
        let fences = GeofenceExperiment.fences(along: ride, count: 100, seed: 1).map { f -> Fence in
            var f = f
            f.mode = mode
            return f
        }
        let scenario = GeofenceScenario.make(route: ScenarioRoute(start: ride.position(at: 0), legs: []),
                                             actions: [UserAction(at: 60, .background)], duration: ride.endTime + 600)
        var monitor = GeofenceMonitor.Configuration()
        monitor.proximity = proximity
        let app = GeofencingTestApp(configuration: monitor, fences: fences, tracksRide: false)
        var sim = try Simulation(scenario: scenario, seed: 1, app: BackendTranslatingApp(app, backend: backend), trajectory: ride)
        sim.runToEnd()
        return (sim, fences)
    }

    struct Near: CustomStringConvertible {
        /// Seconds (after the app went to the background) the true path was within 300 m of a fence boundary.
        var seconds = 0
        /// Fixes the app received while it was.
        var fixes = 0
        /// Of those seconds, the ones with a fix received in the 30 s before.
        var covered = 0
        var description: String { "\(fixes) fixes in \(seconds) s near a boundary, \(covered) s within 30 s of a fix" }
    }

    static func near(_ sim: Simulation, fences: [Fence], meters: Double = 300) -> Near {
        let circles = fences.compactMap { f -> (Coordinate, Double)? in
            guard case .circle(let c, let r) = f.shape else { return nil }
            return (c, r)
        }
        func isNear(_ t: Double) -> Bool {
            let here = sim.trajectory.position(at: t)
            return circles.contains { abs(Geodesy.haversineDistance(here, $0.0) - $0.1) <= meters }
        }
        var fixTimes: [Double] = []
        for delivered in sim.received {
            let count: Int
            switch delivered.event {
            case .locations(let fixes): count = fixes.count
            case .liveUpdate(let update): count = update.fix == nil ? 0 : 1
            default: count = 0
            }
            fixTimes += Array(repeating: delivered.time.timeIntervalSince(sim.epoch), count: count)
        }
        var result = Near()
        result.fixes = fixTimes.filter { $0 >= 60 && isNear($0) }.count
        var last = -Double.infinity, i = 0
        for t in stride(from: 60.0, through: sim.trajectory.endTime, by: 1) {
            while i < fixTimes.count, fixTimes[i] <= t { last = fixTimes[i]; i += 1 }
            guard isNear(t) else { continue }
            result.seconds += 1
            if t - last <= 30 { result.covered += 1 }
        }
        return result
    }

    @Test("with proximity tracking, fixes arrive for at least 75% of the time within 300 m of a boundary, at least one per 2 s there without a latency budget and one per 4 s with it; without the tracking, under 10%",
          arguments: LocationBackend.allCases)
    func nearFixes(backend: LocationBackend) throws {
        let ride = try GeofencingRideTests.twoHourRide()
        let (tracked, fences) = try Self.pocket(ride, backend: backend, mode: .precise)
        let (strict, _) = try Self.pocket(ride, backend: backend, proximity: ProximityTracking(latencyBudgetSeconds: 0), mode: .precise)
        let (regionsOnly, _) = try Self.pocket(ride, backend: backend, mode: .regions)
        let on = Self.near(tracked, fences: fences), off = Self.near(regionsOnly, fences: fences)
        let noBudget = Self.near(strict, fences: fences)
        // The 100 fences lie along the ride, so the device is near one most of the time: the check covers hours.
        #expect(on.seconds == off.seconds && on.seconds > 3_600, "\(on)")
        // Without a budget GNSS rests up to 120 s only where no boundary is reachable meanwhile, and iOS
        // pauses the updates while the device is still. With the 30 s budget it also rests near
        // boundaries, at hundred metres with a 25 m distance filter: fewer fixes, still steady.
        #expect(Double(noBudget.covered) >= 0.75 * Double(noBudget.seconds), "\(backend): \(noBudget)")
        #expect(2 * noBudget.fixes >= noBudget.seconds, "\(backend): \(noBudget)")
        #expect(Double(on.covered) >= 0.75 * Double(on.seconds), "\(backend): \(on)")
        #expect(4 * on.fixes >= on.seconds, "\(backend): \(on)")
        // Without the tracking only region events and significant changes wake the app: the measure is not
        // met by accident.
        #expect(Double(off.covered) < 0.1 * Double(off.seconds), "\(backend): \(off)")
    }
}
