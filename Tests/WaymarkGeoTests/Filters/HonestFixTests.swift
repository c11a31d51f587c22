import Foundation
import Testing
@testable import WaymarkGeo

private let t0 = Date(timeIntervalSince1970: 1_700_000_000)
private let plane = LocalProjection(origin: SyntheticTrack.origin)

private func fix(y: Double, t: Double, accuracy: Double? = 5) -> Fix {
    Fix(coordinate: plane.coordinate(east: 0, north: y), horizontalAccuracy: accuracy, timestamp: t0.addingTimeInterval(t))
}

@Suite("Honest fixes: source information, the impossible-speed flag")
struct HonestFixTests {
    @Test("flag mode keeps an impossible jump, flagged, and the next fix is compared with the last plausible one")
    func flagMode() {
        var input = (0...20).map { fix(y: Double($0) * 10, t: Double($0)) }
        input[8] = fix(y: 2_000, t: 8)
        let out = input.filtered(through: SpeedOutlierFilter(maximumSpeed: 30, mode: .flag))
        #expect(out.count == 21, "nothing dropped")
        #expect(out.indices.filter { out[$0].impliesImpossibleSpeed } == [8])
        #expect(out[8].coordinate == input[8].coordinate, "the flagged fix is passed on as it was measured")
        // Had the jump become the reference, 9 (2 km back in a second) would be flagged too.
        #expect(!out[9].impliesImpossibleSpeed)
    }

    @Test("drop mode (the default) keeps the old behaviour: the jump is gone")
    func dropMode() {
        var input = (0...20).map { fix(y: Double($0) * 10, t: Double($0)) }
        input[8] = fix(y: 2_000, t: 8)
        #expect(SpeedOutlierFilter(maximumSpeed: 30).mode == .drop)
        let out = input.filtered(through: SpeedOutlierFilter(maximumSpeed: 30))
        #expect(out.count == 20 && out.allSatisfy { !$0.impliesImpossibleSpeed })
    }

    @Test("flag mode trusts the next fix after the allowed run: a real relocation is followed")
    func flagRun() {
        var input = (0...20).map { fix(y: Double($0) * 10, t: Double($0)) }
        input[0] = fix(y: 5_000, t: 0)
        let out = input.filtered(through: SpeedOutlierFilter(maximumSpeed: 30, maximumConsecutiveRejections: 3, mode: .flag))
        #expect(out.indices.filter { out[$0].impliesImpossibleSpeed } == [1, 2, 3])
    }

    @Test("a fix flagged upstream passes a second gate as it is and is no reference")
    func flaggedUpstream() {
        var gate = SpeedOutlierFilter(maximumSpeed: 30, mode: .flag)
        _ = gate.process(fix(y: 0, t: 0))
        var upstream = fix(y: 5, t: 1)
        upstream.impliesImpossibleSpeed = true
        let passed = gate.process(upstream)
        #expect(passed == upstream)
        // Compared with the fix at 0 s (not the flagged one at 1 s): 55 m in 2 s is plausible.
        let next = gate.process(fix(y: 55, t: 2))
        #expect(next?.impliesImpossibleSpeed == false)
    }

    @Test("the Kalman filter passes a flagged fix through and its estimate does not move")
    func kalmanSkipsFlagged() {
        var clean = KalmanFilter(), withJump = KalmanFilter()
        var jump = fix(y: 3_000, t: 5)
        jump.impliesImpossibleSpeed = true
        for t in 0..<5 {
            _ = clean.process(fix(y: Double(t) * 5, t: Double(t)))
            _ = withJump.process(fix(y: Double(t) * 5, t: Double(t)))
        }
        let passed = withJump.process(jump)
        #expect(passed == jump)
        let a = clean.process(fix(y: 30, t: 6)), b = withJump.process(fix(y: 30, t: 6))
        #expect(a != nil && a == b, "the flagged fix left no trace in the state")
    }

    @Test("the full pipeline keeps a flagged jump unsmoothed and the track continues smoothly")
    func pipeline() {
        var input = (0...30).map { fix(y: Double($0) * 5, t: Double($0)) }
        input[15] = fix(y: 4_000, t: 15)
        let pipeline = TimestampOrderFilter().then(AccuracyGate(maximumHorizontalAccuracy: 50))
            .then(SpeedOutlierFilter(maximumSpeed: 30, mode: .flag)).then(KalmanFilter())
        let out = input.filtered(through: pipeline)
        #expect(out.count == 31)
        #expect(out[15].impliesImpossibleSpeed && out[15].coordinate == input[15].coordinate)
        for i in 16...30 {
            #expect(Geodesy.haversineDistance(out[i].coordinate, input[i].coordinate) < 10, "fix \(i) dragged")
        }
    }

    @Test("packed flags: every combination round-trips, 0 is an unknown origin with no flag")
    func packed() {
        let infos: [Fix.SourceInformation?] = [nil] + [(false, false), (true, false), (false, true), (true, true)]
            .map { Fix.SourceInformation(isSimulatedBySoftware: $0.0, isProducedByAccessory: $0.1) }
        var seen = Set<Int>()
        for info in infos {
            for impossible in [false, true] {
                var f = fix(y: 0, t: 0)
                f.sourceInformation = info
                f.impliesImpossibleSpeed = impossible
                var back = fix(y: 0, t: 0)
                back.packedFlags = f.packedFlags
                #expect(back == f)
                seen.insert(f.packedFlags)
            }
        }
        #expect(seen.count == 10)
        var zero = fix(y: 0, t: 0)
        zero.packedFlags = 0
        #expect(zero.sourceInformation == nil && !zero.impliesImpossibleSpeed)
    }

    @Test("Codable: JSON written before the marks reads as unknown and unflagged; a mark-free fix writes the old keys")
    func codable() throws {
        let old = #"{"coordinate":{"latitude":46.05,"longitude":14.5},"horizontalAccuracy":5,"timestamp":0,"source":"gnss"}"#
        let read = try JSONDecoder().decode(Fix.self, from: Data(old.utf8))
        #expect(read.sourceInformation == nil && !read.impliesImpossibleSpeed)
        let keys = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(read)) as? [String: Any]).keys
        #expect(Set(keys) == ["coordinate", "horizontalAccuracy", "timestamp", "source"])
        var marked = read
        marked.sourceInformation = Fix.SourceInformation(isSimulatedBySoftware: true, isProducedByAccessory: false)
        marked.impliesImpossibleSpeed = true
        #expect(try JSONDecoder().decode(Fix.self, from: JSONEncoder().encode(marked)) == marked)
        var known = read
        known.sourceInformation = Fix.SourceInformation(isSimulatedBySoftware: false, isProducedByAccessory: false)
        #expect(try JSONDecoder().decode(Fix.self, from: JSONEncoder().encode(known)).sourceInformation != nil,
                "a known all-false origin stays known")
    }
}
