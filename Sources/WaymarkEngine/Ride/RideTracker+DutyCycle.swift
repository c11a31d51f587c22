import Foundation
import WaymarkGeo

extension RideTracker {
    /// After a recorded fix: rest GNSS for a spell if the last stretch was steady and straight.
    ///
    /// A stretch is steady after ``Configuration/DutyCycle/steadySeconds`` of fixes that keep one
    /// course and speed. Right after a spell whose prediction held, the stretch is already known
    /// to be steady, so ``Configuration/DutyCycle/confirmSeconds`` of fixes that still keep the
    /// spell's course and speed are enough for the next one.
    mutating func considerDutyCycle(after fix: Fix, at now: Date) {
        let cycle = configuration.dutyCycle
        guard cycle.enabled, movingSetting.dutyCycle, phase == .recording else { recent = []; confirmedVelocity = nil; return }
        recent.append(fix)
        let window = confirmedVelocity == nil ? cycle.steadySeconds : cycle.confirmSeconds
        recent.removeAll { fix.timestamp.timeIntervalSince($0.timestamp) > window }
        guard let first = recent.first, fix.timestamp.timeIntervalSince(first.timestamp) >= window - 0.5,
              isSteady(recent), let velocity = Self.meanVelocity(recent) else { return }
        if let known = confirmedVelocity, !Self.sameVelocity(velocity, known, cycle) {
            confirmedVelocity = nil                         // changed course or pace: prove steadiness afresh
            return
        }
        let spell = spellSeconds(at: velocity.speed)
        guard spell >= cycle.initialOffSeconds / 2 else { return }   // a fence boundary is too close to rest
        coastFrom = fix
        coastVelocity = confirmedVelocity.map { Self.blend($0, velocity) } ?? velocity
        confirmedVelocity = nil
        recent = []
        dutyCycleSpells += 1
        phase = .coasting(until: now.addingTimeInterval(spell))
    }

    /// The next spell at `speed` m/s: ``offSeconds``, shortened to end, with the prediction's
    /// tolerance to spare, before ``restLimitMeters``.
    func spellSeconds(at speed: Double) -> TimeInterval {
        guard let limit = restLimitMeters, speed > 0 else { return offSeconds }
        return min(offSeconds, max(0, limit - configuration.dutyCycle.predictionToleranceMeters) / speed)
    }

    /// How far ahead, in metres, a fence boundary could limit the next spell after `fix`: the
    /// longest spell at the fix's speed plus the prediction's tolerance.
    public func restHorizonMeters(after fix: Fix) -> Double {
        let cycle = configuration.dutyCycle
        return cycle.maximumOffSeconds * max(0, fix.speed ?? configuration.maximumSpeed) + cycle.predictionToleranceMeters
    }

    /// The mean velocity of `fixes` (east and north, m/s): averaging a steady stretch's Doppler
    /// readings predicts better than the last reading alone.
    static func meanVelocity(_ fixes: [Fix]) -> Velocity? {
        let parts = fixes.compactMap { fix -> (Double, Double)? in
            guard let speed = fix.speed, let course = fix.course else { return nil }
            return (speed * sin(course * .pi / 180), speed * cos(course * .pi / 180))
        }
        guard !parts.isEmpty else { return nil }
        let n = Double(parts.count)
        return Velocity(east: parts.reduce(0) { $0 + $1.0 } / n, north: parts.reduce(0) { $0 + $1.1 } / n)
    }

    /// Whether two velocities agree within the duty cycle's course and speed tolerances.
    static func sameVelocity(_ a: Velocity, _ b: Velocity, _ cycle: DutyCycle) -> Bool {
        let low = min(a.speed, b.speed)
        return abs(angleDifference(a.course, b.course)) <= cycle.courseToleranceDegrees
            && abs(a.speed - b.speed) <= low * cycle.speedTolerance + 2 * cycle.speedNoiseMetersPerSecond
    }

    /// The verified stretch's velocity refined by the confirming fixes, weighted by duration.
    static func blend(_ known: Velocity, _ new: Velocity) -> Velocity {
        Velocity(east: (known.east * 3 + new.east) / 4, north: (known.north * 3 + new.north) / 4)
    }

    /// Whether fixes keep one course and speed.
    func isSteady(_ fixes: [Fix]) -> Bool {
        let cycle = configuration.dutyCycle
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
        return courses.allSatisfy { abs(Self.angleDifference($0, mean)) <= cycle.courseToleranceDegrees + 2 * noise }
    }

    /// The first GNSS fix after a spell: was the straight-line prediction right? Adapts the next spell.
    ///
    /// When it held, the next spell may follow after a short confirmation; when it missed (a turn,
    /// a change of pace), the stretch must prove steady again from scratch.
    mutating func checkPrediction(against fix: Fix) -> Bool {
        guard let from = coastFrom else { return true }
        coastFrom = nil
        let cycle = configuration.dutyCycle
        let dt = fix.timestamp.timeIntervalSince(from.timestamp)
        let velocity = coastVelocity ?? Velocity(speed: from.speed ?? 0, course: from.course ?? 0)
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

    /// A horizontal velocity, m/s east and north.
    struct Velocity: Hashable, Sendable {
        var east: Double
        var north: Double

        init(east: Double, north: Double) {
            self.east = east
            self.north = north
        }

        init(speed: Double, course: Double) {
            self.init(east: speed * sin(course * .pi / 180), north: speed * cos(course * .pi / 180))
        }

        /// Metres per second.
        var speed: Double { (east * east + north * north).squareRoot() }
        /// Degrees clockwise from north, in [0, 360).
        var course: Double {
            let degrees = atan2(east, north) * 180 / .pi
            return degrees < 0 ? degrees + 360 : degrees
        }
    }

    /// The signed difference `a − b` in degrees, in (−180, 180].
    static func angleDifference(_ a: Double, _ b: Double) -> Double {
        var d = (a - b).truncatingRemainder(dividingBy: 360)
        if d > 180 { d -= 360 }
        if d <= -180 { d += 360 }
        return d
    }
}
