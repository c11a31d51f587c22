import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkEngine

@Suite("RideTracker: slow movement at a stop, duty cycling at a runner's pace")
struct RideTrackerSlowMovementTests {
    @Test("pushing the bike away from a stop slower than the stop speed resumes the ride; wander in place does not")
    func creepingResumes() throws {
        var h = RideTrackerTests.riding()
        h.stand(from: 61, to: 100, east: 300)
        #expect(h.tracker.state == .autoPaused)
        // One stray fix 60 m away without a speed (multipath) is not movement.
        h.send(.locations([Ride.fix(101, east: 360, speed: 0)]), at: 101)
        h.stand(from: 102, to: 105, east: 300)
        #expect(h.tracker.state == .autoPaused)
        // Walking the bike uphill at 0.6 m/s (below the 0.8 m/s stop speed): the distance keeps growing.
        for t in 106...200 {
            h.send(.locations([Ride.fix(Double(t), east: 300 + 0.6 * Double(t - 105), speed: 0.6)]), at: Double(t))
        }
        #expect(h.tracker.state == .moving || h.states.suffix(2).contains(.moving))
        let resumed = try #require(h.recorded.first { $0.timestamp > Ride.at(105) })
        let away = Geodesy.haversineDistance(resumed.coordinate, Ride.fix(0, east: 300, speed: 0).coordinate)
        #expect(away < 60, "resumed \(Int(away)) m from the stop, not after the wake fence")
    }

    @Test("a runner's pace with Doppler speed noise still counts as steady; a changing pace does not")
    func steadyAtRunnersPace() {
        let cycle = RideTracker.Configuration().dutyCycle
        func fixes(_ speeds: [Double]) -> [Fix] {
            speeds.enumerated().map { Ride.fix(Double($0.offset), east: 3.4 * Double($0.offset), speed: $0.element) }
        }
        // 3.4 m/s with ±0.3 m/s noise: a spread of 0.9 m/s is 30% of the slowest reading.
        #expect(GNSSDutyCycle.isSteady(fixes([3.4, 3.0, 3.7, 3.9, 3.2, 3.5, 3.1, 3.6, 3.3, 3.4, 3.5]), cycle))
        // Accelerating from 3 to 5 m/s is not steady.
        #expect(!GNSSDutyCycle.isSteady(fixes([3.0, 3.2, 3.4, 3.6, 3.8, 4.0, 4.2, 4.4, 4.6, 4.8, 5.0]), cycle))
    }
}
