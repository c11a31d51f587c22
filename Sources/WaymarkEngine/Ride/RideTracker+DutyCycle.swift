import Foundation
import WaymarkGeo

extension RideTracker {
    /// After a recorded fix: rest GNSS for a spell if the last stretch was steady and straight.
    mutating func considerDutyCycle(after fix: Fix, at now: Date) {
        let cycle = configuration.dutyCycle
        guard cycle.enabled, movingSetting.dutyCycle, phase == .recording else { recent = []; return }
        recent.append(fix)
        recent.removeAll { fix.timestamp.timeIntervalSince($0.timestamp) > cycle.steadySeconds }
        guard let first = recent.first, fix.timestamp.timeIntervalSince(first.timestamp) >= cycle.steadySeconds - 0.5,
              isSteady(recent) else { return }
        coastFrom = fix
        recent = []
        dutyCycleSpells += 1
        phase = .coasting(until: now.addingTimeInterval(offSeconds))
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
        return courses.allSatisfy { abs(Self.angleDifference($0, mean)) <= cycle.courseToleranceDegrees }
    }

    /// The first GNSS fix after a spell: was the straight-line prediction right? Adapts the next spell.
    mutating func checkPrediction(against fix: Fix) -> Bool {
        guard let from = coastFrom else { return true }
        coastFrom = nil
        let cycle = configuration.dutyCycle
        let dt = fix.timestamp.timeIntervalSince(from.timestamp)
        let predicted = Geodesy.destination(from: from.coordinate, bearing: from.course ?? 0, distance: (from.speed ?? 0) * dt)
        if LocalApproximation.segmentDistance(predicted, fix.coordinate) <= cycle.predictionToleranceMeters {
            offSeconds = min(cycle.maximumOffSeconds, offSeconds * 1.5)
            return true
        }
        offSeconds = cycle.initialOffSeconds
        return false
    }

    /// The signed difference `a − b` in degrees, in (−180, 180].
    static func angleDifference(_ a: Double, _ b: Double) -> Double {
        var d = (a - b).truncatingRemainder(dividingBy: 360)
        if d > 180 { d -= 360 }
        if d <= -180 { d += 360 }
        return d
    }
}
