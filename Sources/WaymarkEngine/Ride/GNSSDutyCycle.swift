import Foundation
import WaymarkGeo

/// GNSS duty cycling on steady stretches, owned by ``RideTracker``: the recent fixes that prove a
/// stretch steady, the length of the next rest, and the prediction a rest coasts on.
///
/// After ``RideTracker/DutyCycle/steadySeconds`` of fixes that keep one course and
/// speed, GNSS rests for a spell (``offSeconds``, at first
/// ``RideTracker/DutyCycle/initialOffSeconds``) while the track coasts on the mean
/// velocity. The first fix after the spell checks the prediction: when it held, the next spell is
/// longer (up to ``RideTracker/DutyCycle/maximumOffSeconds``) and follows after a
/// short confirmation; when it missed, the spell length starts over and steadiness must be proven
/// afresh. The tracker decides when a rest may start (its state and phase) and acts on the spell.
struct GNSSDutyCycle: Sendable {
    /// The length of the next spell, seconds.
    private(set) var offSeconds: TimeInterval
    /// Spells taken so far.
    private(set) var spells = 0
    private var recent: [Fix] = []
    private var coastFrom: Fix?
    private var coastVelocity: RideTracker.Velocity?
    private var confirmedVelocity: RideTracker.Velocity?

    init(_ cycle: RideTracker.DutyCycle) {
        offSeconds = cycle.initialOffSeconds
    }

    /// A spell is in progress: the next fix checks its prediction.
    var isCoasting: Bool { coastFrom != nil }

    /// After a recorded fix: the spell to rest for, when the stretch is steady (or, right after a
    /// spell whose prediction held, confirmed) and the spell is long enough before `restLimitMeters`
    /// (a fence boundary); nil to keep GNSS on. Not `allowed` (off, a setting without duty cycling,
    /// not recording): the stretch is forgotten.
    mutating func consider(after fix: Fix, allowed: Bool, cycle: RideTracker.DutyCycle,
                           restLimitMeters: Double?) -> TimeInterval? {
        guard allowed else { recent = []; confirmedVelocity = nil; return nil }
        recent.append(fix)
        let window = confirmedVelocity == nil ? cycle.steadySeconds : cycle.confirmSeconds
        recent.removeAll { fix.timestamp.timeIntervalSince($0.timestamp) > window }
        guard let first = recent.first, fix.timestamp.timeIntervalSince(first.timestamp) >= window - 0.5,
              Self.isSteady(recent, cycle), let velocity = Self.meanVelocity(recent) else { return nil }
        if let known = confirmedVelocity, !Self.sameVelocity(velocity, known, cycle) {
            confirmedVelocity = nil                         // changed course or pace: prove steadiness afresh
            return nil
        }
        let spell = spellSeconds(at: velocity.speed, cycle: cycle, restLimitMeters: restLimitMeters)
        guard spell >= cycle.initialOffSeconds / 2 else { return nil }   // a fence boundary is too close to rest
        coastFrom = fix
        coastVelocity = confirmedVelocity.map { Self.blend($0, velocity) } ?? velocity
        confirmedVelocity = nil
        recent = []
        spells += 1
        return spell
    }

    /// The next spell at `speed` m/s: ``offSeconds``, shortened to end, with the prediction's
    /// tolerance to spare, before `restLimitMeters`.
    func spellSeconds(at speed: Double, cycle: RideTracker.DutyCycle, restLimitMeters: Double?) -> TimeInterval {
        guard let limit = restLimitMeters, speed > 0 else { return offSeconds }
        return min(offSeconds, max(0, limit - cycle.predictionToleranceMeters) / speed)
    }

    /// The first GNSS fix after a spell: was the straight-line prediction right? Adapts the next spell.
    ///
    /// When it held, the next spell may follow after a short confirmation; when it missed (a turn,
    /// a change of pace), the stretch must prove steady again from scratch.
    mutating func checkPrediction(against fix: Fix, cycle: RideTracker.DutyCycle) -> Bool {
        guard let from = coastFrom else { return true }
        coastFrom = nil
        let dt = fix.timestamp.timeIntervalSince(from.timestamp)
        let velocity = coastVelocity ?? RideTracker.Velocity(speed: from.speed ?? 0, course: from.course ?? 0)
        coastVelocity = nil
        let predicted = Geodesy.destination(from: from.coordinate, bearing: velocity.course, distance: velocity.speed * dt)
        if LocalApproximation.segmentDistance(predicted, fix.coordinate) <= cycle.predictionToleranceMeters {
            offSeconds = min(cycle.maximumOffSeconds, offSeconds * 1.5)
            confirmedVelocity = velocity
            return true
        }
        offSeconds = cycle.initialOffSeconds
        confirmedVelocity = nil
        return false
    }

    /// The rider stopped: the stretch so far proves nothing about the next one.
    mutating func forgetStretch() {
        recent = []
        confirmedVelocity = nil
    }

    /// GNSS starts again after a long rest: forget the stretch and any spell in progress.
    mutating func reset() {
        recent = []
        coastFrom = nil
        coastVelocity = nil
        confirmedVelocity = nil
    }

    /// The mean velocity of `fixes` (east and north, m/s): averaging a steady stretch's Doppler
    /// readings predicts better than the last reading alone.
    static func meanVelocity(_ fixes: [Fix]) -> RideTracker.Velocity? {
        let parts = fixes.compactMap { fix -> (Double, Double)? in
            guard let speed = fix.speed, let course = fix.course else { return nil }
            return (speed * sin(course * .pi / 180), speed * cos(course * .pi / 180))
        }
        guard !parts.isEmpty else { return nil }
        let n = Double(parts.count)
        return RideTracker.Velocity(east: parts.reduce(0) { $0 + $1.0 } / n, north: parts.reduce(0) { $0 + $1.1 } / n)
    }

    /// Whether two velocities agree within the duty cycle's course and speed tolerances.
    static func sameVelocity(_ a: RideTracker.Velocity, _ b: RideTracker.Velocity, _ cycle: RideTracker.DutyCycle) -> Bool {
        let low = min(a.speed, b.speed)
        return abs(RideTracker.angleDifference(a.course, b.course)) <= cycle.courseToleranceDegrees
            && abs(a.speed - b.speed) <= low * cycle.speedTolerance + 2 * cycle.speedNoiseMetersPerSecond
    }

    /// The verified stretch's velocity refined by the confirming fixes, weighted by duration.
    static func blend(_ known: RideTracker.Velocity, _ new: RideTracker.Velocity) -> RideTracker.Velocity {
        RideTracker.Velocity(east: (known.east * 3 + new.east) / 4, north: (known.north * 3 + new.north) / 4)
    }

    /// Whether fixes keep one course and speed.
    static func isSteady(_ fixes: [Fix], _ cycle: RideTracker.DutyCycle) -> Bool {
        let speeds = fixes.compactMap(\.speed)
        let courses = fixes.compactMap(\.course)
        guard speeds.count == fixes.count, courses.count == fixes.count,
              let low = speeds.min(), let high = speeds.max(), low >= cycle.minimumSpeed,
              high - low <= low * cycle.speedTolerance + 2 * cycle.speedNoiseMetersPerSecond else { return false }
        let east = courses.reduce(0) { $0 + sin($1 * .pi / 180) }
        let north = courses.reduce(0) { $0 + cos($1 * .pi / 180) }
        let mean = atan2(east, north) * 180 / .pi
        // The Doppler course of one reading is off by the velocity noise's angle at this speed
        // (about 5° for a runner): the tolerance allows twice that, as the speed spread does.
        let noise = atan2(cycle.speedNoiseMetersPerSecond, low) * 180 / .pi
        return courses.allSatisfy { abs(RideTracker.angleDifference($0, mean)) <= cycle.courseToleranceDegrees + 2 * noise }
    }
}
