import Foundation
import Testing
@testable import WaymarkGeo

private let t0 = Date(timeIntervalSince1970: 1_700_000_000)
private let plane = LocalProjection(origin: SyntheticTrack.origin)

/// A fix `y` metres north of the origin at `t` seconds after `t0`.
private func fix(y: Double, t: Double, accuracy: Double? = 5) -> Fix {
    Fix(coordinate: plane.coordinate(east: 0, north: y), horizontalAccuracy: accuracy, timestamp: t0.addingTimeInterval(t))
}

private func seconds(_ fixes: [Fix]) -> [Double] {
    fixes.map { $0.timestamp.timeIntervalSince(t0) }
}

@Suite("Fix filters")
struct FixFilterTests {
    @Test("stale fixes older than the maximum age are dropped; newer ones pass")
    func stale() {
        let filter = StaleFixFilter(maximumAge: 10, referenceTime: t0.addingTimeInterval(100))
        let out = [fix(y: 0, t: 80), fix(y: 0, t: 89.9), fix(y: 0, t: 90), fix(y: 0, t: 120)].filtered(through: filter)
        #expect(seconds(out) == [90, 120])
    }

    @Test("duplicate and out-of-order timestamps are dropped")
    func order() {
        let input = [0.0, 1, 1, 2, 1.5, 3, 0, 4].map { fix(y: $0, t: $0) }
        #expect(seconds(input.filtered(through: TimestampOrderFilter())) == [0, 1, 2, 3, 4])
    }

    @Test("the accuracy gate drops poor, invalid and, if asked, unknown accuracies")
    func accuracy() {
        let input = [fix(y: 0, t: 0, accuracy: 5), fix(y: 0, t: 1, accuracy: 65), fix(y: 0, t: 2, accuracy: -1),
                     fix(y: 0, t: 3, accuracy: nil), fix(y: 0, t: 4, accuracy: 50)]
        #expect(seconds(input.filtered(through: AccuracyGate(maximumHorizontalAccuracy: 50))) == [0, 3, 4])
        let strict = AccuracyGate(maximumHorizontalAccuracy: 50, acceptsUnknownAccuracy: false)
        #expect(seconds(input.filtered(through: strict)) == [0, 4])
    }

    @Test("a fix that implies an impossible speed is dropped and the track continues")
    func speedOutlier() {
        var input = (0...20).map { fix(y: Double($0) * 10, t: Double($0)) }
        input[8] = fix(y: 2_000, t: 8)
        let out = input.filtered(through: SpeedOutlierFilter(maximumSpeed: 30))
        #expect(seconds(out) == (0...20).filter { $0 != 8 }.map(Double.init))
    }

    @Test("a wrong first fix is abandoned after the allowed run of rejections")
    func wrongReference() {
        var input = (0...20).map { fix(y: Double($0) * 10, t: Double($0)) }
        input[0] = fix(y: 5_000, t: 0)
        let out = input.filtered(through: SpeedOutlierFilter(maximumSpeed: 30, maximumConsecutiveRejections: 3))
        #expect(seconds(out) == [0] + (4...20).map(Double.init))
    }

    @Test("chained filters run in order on a messy stream")
    func chain() {
        let input = [fix(y: 0, t: 0), fix(y: 10, t: 1), fix(y: 10, t: 1), fix(y: 20, t: 2, accuracy: 300),
                     fix(y: 3_000, t: 3), fix(y: 40, t: 4), fix(y: 30, t: 3.5), fix(y: 50, t: 5)]
        var pipeline = TimestampOrderFilter()
            .then(AccuracyGate(maximumHorizontalAccuracy: 50))
            .then(SpeedOutlierFilter(maximumSpeed: 30))
        #expect(seconds(input.compactMap { pipeline.process($0) }) == [0, 1, 4, 5])
    }
}
