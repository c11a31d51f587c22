import Foundation
import WaymarkGeo

extension RideTracker {
    /// After a recorded fix: rest GNSS for a spell (``GNSSDutyCycle``) if the last stretch was steady
    /// and straight and no fence boundary is too close.
    mutating func considerDutyCycle(after fix: Fix, at now: Date) {
        let allowed = configuration.dutyCycle.enabled && movingSetting.dutyCycle && phase == .recording
        guard let spell = dutyCycle.consider(after: fix, allowed: allowed, cycle: configuration.dutyCycle,
                                             restLimitMeters: restLimitMeters) else { return }
        phase = .coasting(until: now.addingTimeInterval(spell))
    }

    /// How far ahead, in metres, a fence boundary could limit the next spell after `fix`: the
    /// longest spell at the fix's speed plus the prediction's tolerance.
    public func restHorizonMeters(after fix: Fix) -> Double {
        let cycle = configuration.dutyCycle
        return cycle.maximumOffSeconds * max(0, fix.speed ?? configuration.maximumSpeed) + cycle.predictionToleranceMeters
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
