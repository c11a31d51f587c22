import Foundation
import Testing
@testable import WaymarkEngine
import WaymarkGeo

/// The ride tracker's stop detection on its own (#16): when a slow stretch is a stop, and which
/// fixes at a stop are the rider leaving rather than the receiver wandering.
@Suite("Stop detector: stopping after the stop time, moving again only when clearly away")
struct StopDetectorTests {
    static let stop = Coordinate(uncheckedLatitude: 46.05, longitude: 14.5)
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)
    /// Defaults: stop below 0.8 m/s for 20 s; resume at 1 m/s or 30 m away.
    static let c = RideTracker.Configuration()

    /// A fix `seconds` in, `metres` east of the stop, at `speed` (nil: no Doppler speed).
    static func fix(_ seconds: Double, metres: Double = 0, speed: Double? = 0.2, accuracy: Double = 5) -> Fix {
        Fix(coordinate: Geodesy.destination(from: stop, bearing: 90, distance: metres), horizontalAccuracy: accuracy,
            speed: speed, timestamp: t0.addingTimeInterval(seconds), source: .gnss)
    }

    @Test("slow for the stop time near where it began is a stop; slow fixes near the last point are creeping; a fast fix starts over")
    func stopping() {
        var detector = StopDetector()
        let far = Coordinate(uncheckedLatitude: 46.06, longitude: 14.5)
        let first = detector.moving(Self.fix(0), lastRecorded: far, configuration: Self.c)
        #expect(first == .moving)   // slow, but far from the last point
        let nearLast = detector.moving(Self.fix(5), lastRecorded: Self.stop, configuration: Self.c)
        #expect(nearLast == .creeping)
        let at19 = detector.moving(Self.fix(19), lastRecorded: far, configuration: Self.c)
        #expect(at19 == .moving)
        let at20 = detector.moving(Self.fix(20), lastRecorded: far, configuration: Self.c)
        #expect(at20 == .stopped)

        var restarted = StopDetector()
        _ = restarted.moving(Self.fix(0), lastRecorded: far, configuration: Self.c)
        _ = restarted.moving(Self.fix(10, speed: 5), lastRecorded: far, configuration: Self.c)   // moving: the slow stretch ends
        let afterFast = restarted.moving(Self.fix(20), lastRecorded: far, configuration: Self.c)
        #expect(afterFast == .moving)
        let twentyLater = restarted.moving(Self.fix(40), lastRecorded: far, configuration: Self.c)
        #expect(twentyLater == .stopped)

        // Slow but drifting farther than the stop speed covers in the stop time: the stretch starts at the drift.
        var drifting = StopDetector()
        _ = drifting.moving(Self.fix(0), lastRecorded: far, configuration: Self.c)
        let drift = Self.c.stopSpeed * Self.c.stopSeconds + 5
        let drifted = drifting.moving(Self.fix(20, metres: drift), lastRecorded: far, configuration: Self.c)
        #expect(drifted == .moving)
        let stillThere = drifting.moving(Self.fix(40, metres: drift), lastRecorded: far, configuration: Self.c)
        #expect(stillThere == .stopped)
    }

    @Test("at a stop: one far fix without speed or at speed resumes; a slow far fix needs a second; wander never does")
    func movingAgain() {
        var detector = StopDetector()
        let far = Self.c.resumeDistanceMeters + 2 * 5 + 1
        let wander = detector.movesAgain(Self.fix(0, metres: 8), anchor: Self.stop, configuration: Self.c)
        #expect(!wander)   // wander
        let farNoSpeed = detector.movesAgain(Self.fix(1, metres: far, speed: nil), anchor: Self.stop, configuration: Self.c)
        #expect(farNoSpeed)

        var pushing = StopDetector()   // slower than the stop speed, getting farther
        let firstFar = pushing.movesAgain(Self.fix(0, metres: far), anchor: Self.stop, configuration: Self.c)
        #expect(!firstFar)
        let secondFar = pushing.movesAgain(Self.fix(1, metres: far + 1), anchor: Self.stop, configuration: Self.c)
        #expect(secondFar)

        var rolling = StopDetector()   // at the resume speed, a third of the resume distance away: the third fix
        let near = Self.c.resumeDistanceMeters / 3 + 1
        let verdicts = (0..<3).map { rolling.movesAgain(Self.fix(Double($0), metres: near, speed: 1.2), anchor: Self.stop, configuration: Self.c) }
        #expect(verdicts == [false, false, true])

        var reset = StopDetector()
        _ = reset.movesAgain(Self.fix(0, metres: far), anchor: Self.stop, configuration: Self.c)
        reset.reset()
        let afterReset = reset.movesAgain(Self.fix(1, metres: far), anchor: Self.stop, configuration: Self.c)
        #expect(!afterReset, "the far streak was forgotten")
    }
}
