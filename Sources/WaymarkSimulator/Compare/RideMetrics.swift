import Foundation
import WaymarkGeo
import WaymarkEngine

/// What one run of the battery experiment measured.
///
/// Truth comes from the simulation's trajectory sampled once a second; "moving" means a true
/// speed of at least 1 m/s. A `Sendable` value type.
public struct RideMetrics: Hashable, Sendable {
    /// Energy spent, relative units of PLATFORM.md §9.
    public var energy: Double
    /// Fixes recorded by the app.
    public var fixesRecorded: Int
    /// Length of the true route, metres.
    public var trueDistance: Double
    /// Length of the recorded track (straight lines across gaps), metres.
    public var recordedDistance: Double
    /// Median distance between a recorded fix and the true position at its timestamp, while moving, metres.
    public var medianError: Double?
    /// 95th percentile of the same, metres.
    public var p95Error: Double?
    /// Distance from the true start (where the device first moved) to the first recorded fix, metres.
    public var startDistance: Double?
    /// For each later start (moving again after at least 5 min still): metres ridden before the first recorded fix.
    public var resumeDistances: [Double]
    /// Seconds of true movement inside holes longer than 30 s between recorded fixes (1-Hz points lost).
    public var pointsLost: Int
    /// Gap markers the app stored.
    public var gaps: Int
    /// Times duty cycling rested GNSS (each needs a GNSS hot start, which the simulator does not charge).
    public var dutyCycleSpells: Int

    /// Signed distance error in percent of the true distance.
    public var distanceErrorPercent: Double {
        trueDistance > 0 ? (recordedDistance - trueDistance) / trueDistance * 100 : 0
    }

    /// Measures a finished simulation run by a ``RideSimApp``.
    ///
    /// - precondition: `sim` runs a ``RideSimApp`` (any other app has no ride to measure).
    public init(_ sim: Simulation) {
        precondition(sim.rideApp != nil, "RideMetrics: the simulation runs no RideSimApp, so there is no ride to measure")
        let app = sim.rideApp
        let fixes = app?.storage.recorded ?? []
        energy = sim.energy.total
        fixesRecorded = fixes.count
        gaps = app?.storage.gaps.count ?? 0
        dutyCycleSpells = app?.tracker.dutyCycleSpells ?? 0
        let end = Int(sim.trajectory.endTime.rounded(.up))
        let states = (0...max(0, end)).map { sim.trajectory.state(at: Double($0)) }
        trueDistance = zip(states, states.dropFirst()).reduce(0) {
            $0 + Geodesy.haversineDistance($1.0.coordinate, $1.1.coordinate)
        }
        recordedDistance = zip(fixes, fixes.dropFirst()).reduce(0) {
            $0 + Geodesy.haversineDistance($1.0.coordinate, $1.1.coordinate)
        }
        let movingThreshold = 1.0
        var errors: [Double] = []
        for fix in fixes {
            let t = fix.timestamp.timeIntervalSince(sim.epoch)
            guard sim.trajectory.state(at: t).speed >= movingThreshold else { continue }
            errors.append(Geodesy.haversineDistance(fix.coordinate, sim.trajectory.position(at: t)))
        }
        errors.sort()
        medianError = Self.percentile(errors, 0.5)
        p95Error = Self.percentile(errors, 0.95)
        let fixTimes = fixes.map { $0.timestamp.timeIntervalSince(sim.epoch) }
        let starts = Self.starts(states, threshold: movingThreshold)
        startDistance = starts.first.flatMap { start in
            fixes.first.map { Geodesy.haversineDistance(states[start].coordinate, $0.coordinate) }
        }
        resumeDistances = starts.dropFirst().map { start in
            let firstAfter = fixTimes.first { $0 >= Double(start) } ?? Double(end)
            var ridden = 0.0
            var i = start
            while Double(i + 1) <= firstAfter, i + 1 < states.count {
                ridden += Geodesy.haversineDistance(states[i].coordinate, states[i + 1].coordinate)
                i += 1
            }
            return ridden
        }
        pointsLost = Self.lostSeconds(states, fixTimes: fixTimes, threshold: movingThreshold)
    }

    static func percentile(_ sorted: [Double], _ p: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }

    /// Seconds at which the truth starts moving: the first, and each after at least 5 min still.
    static func starts(_ states: [Trajectory.State], threshold: Double) -> [Int] {
        var result: [Int] = []
        var stillSince: Int? = 0
        for (t, state) in states.enumerated() {
            if state.speed >= threshold {
                if let since = stillSince, result.isEmpty || t - since >= 300 { result.append(t) }
                stillSince = nil
            } else if stillSince == nil {
                stillSince = t
            }
        }
        return result
    }

    /// Moving seconds that fall in holes longer than 30 s between recorded fixes.
    static func lostSeconds(_ states: [Trajectory.State], fixTimes: [Double], threshold: Double) -> Int {
        let bounds = [-Double.infinity] + fixTimes + [Double.infinity]
        var lost = 0
        var j = 0
        for (t, state) in states.enumerated() where state.speed >= threshold {
            let time = Double(t)
            while j + 1 < bounds.count, bounds[j + 1] <= time { j += 1 }
            let before = bounds[j], after = j + 1 < bounds.count ? bounds[j + 1] : .infinity
            if after - before > 30 { lost += 1 }
        }
        return lost
    }
}
