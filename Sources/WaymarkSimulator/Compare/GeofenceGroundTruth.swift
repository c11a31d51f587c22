import Foundation
import WaymarkEngine
import WaymarkGeo

/// True fence crossings from the simulator's true trajectory, sampled every second.
///
/// A fence is truly entered when the true path goes deeper than `margin` inside after having been
/// more than `margin` outside (and the reverse for an exit); grazes within the margin are "don't
/// care". Loose crossings (margin 0) are every true change of side: a delivered event that matches
/// none of them is false.
struct GroundTruth: Sendable {
    struct Crossing: Hashable, Sendable { var fence: String; var kind: FenceEvent.Kind; var t: Double }
    struct Score: Sendable {
        var strictCrossings = 0
        var recall = 0.0, precision = 0.0
        var missed: [Crossing] = [], falseEvents: [Crossing] = []
    }

    var strict: [Crossing] = []
    var loose: [Crossing] = []
    var radius: [String: Double] = [:]
    static let margin = 40.0, window = 150.0, debounce = 90.0

    init(fences: [Fence], simulation sim: Simulation, from start: Double) {
        let index = FenceIndex(bulk: fences.map {
            guard case .circle(let c, let r) = $0.shape else { fatalError("circles only") }
            return (c, r)
        })
        let ids = fences.map(\.id)
        for fence in fences { if case .circle(_, let r) = fence.shape { radius[fence.id] = r } }
        var strictState = [Int8](repeating: 0, count: fences.count)   // 0 unknown, 1 inside, -1 outside
        var looseState = [Int8](repeating: 0, count: fences.count)
        var t = start.rounded(.up)
        var near = Set<Int>(fences.indices)   // fences whose state may not be "outside" yet
        var seen = [Double](repeating: -1, count: fences.count)
        while t <= sim.endTime {
            let p = sim.trajectory.position(at: t)
            index.forEachCircle(near: p, slack: Self.margin + 1) { handle, d in
                let i = Int(handle)
                seen[i] = t
                let s = d - radius[ids[i]]!
                let strictNow: Int8 = s < -Self.margin ? 1 : s > Self.margin ? -1 : 0
                if strictNow != 0, strictNow != strictState[i] {
                    if strictState[i] != 0 { strict.append(Crossing(fence: ids[i], kind: strictNow == 1 ? .enter : .exit, t: t)) }
                    strictState[i] = strictNow
                }
                let looseNow: Int8 = s < 0 ? 1 : -1
                if looseNow != looseState[i] {
                    if looseState[i] != 0 { loose.append(Crossing(fence: ids[i], kind: looseNow == 1 ? .enter : .exit, t: t)) }
                    looseState[i] = looseNow
                }
                if strictState[i] != -1 || looseState[i] != -1 { near.insert(i) }
            }
            for i in near where seen[i] != t {
                near.remove(i)
                if strictState[i] == 1 { strict.append(Crossing(fence: ids[i], kind: .exit, t: t)) }
                if looseState[i] == 1 { loose.append(Crossing(fence: ids[i], kind: .exit, t: t)) }
                strictState[i] = -1
                looseState[i] = -1
            }
            t += 1
        }
    }

    /// Recall over strict crossings of fences at least `minimumRadius` big (quick re-entries within
    /// the debounce are don't-care); precision of `events`: an event is false when the true path was
    /// never on the claimed side within a minute of it.
    ///
    /// A strict crossing is found when an event of its kind lies between a minute before the true path
    /// crossed the boundary itself (a slow, slanting approach is decided long before the margin is
    /// reached) and the fence's next strict crossing (or five minutes).
    func score(_ events: [FenceEvent], simulation sim: Simulation, minimumRadius: Double,
               centers: [String: Coordinate]) -> Score {
        var score = Score()
        let delivered = events.map { Crossing(fence: $0.fenceID, kind: $0.kind, t: $0.time.timeIntervalSince(sim.epoch)) }
        var lastExit: [String: Double] = [:]
        var pendingDontCare = Set<String>()
        var counted: [(Crossing, Double, Double)] = []
        let strictByFence = Dictionary(grouping: strict, by: \.fence)
        let looseByFence = Dictionary(grouping: loose, by: \.fence)
        for c in strict {
            if c.kind == .enter, let e = lastExit[c.fence], c.t - e < Self.debounce { pendingDontCare.insert(c.fence); continue }
            if c.kind == .exit { lastExit[c.fence] = c.t; if pendingDontCare.remove(c.fence) != nil { continue } }
            guard radius[c.fence]! >= minimumRadius else { continue }
            let start = (looseByFence[c.fence] ?? []).last { $0.kind == c.kind && $0.t <= c.t }?.t ?? c.t
            let next = (strictByFence[c.fence] ?? []).first { $0.t > c.t }?.t ?? .infinity
            counted.append((c, start - 60, min(next, c.t + 300)))
        }
        score.strictCrossings = counted.count
        var used = Set<Int>()
        let byFence = Dictionary(grouping: delivered.indices, by: { delivered[$0].fence })
        for (c, lo, hi) in counted {
            let match = byFence[c.fence]?.first { !used.contains($0) && delivered[$0].kind == c.kind && (lo...hi).contains(delivered[$0].t) }
            if let match { used.insert(match) } else { score.missed.append(c) }
        }
        score.recall = counted.isEmpty ? 1 : Double(counted.count - score.missed.count) / Double(counted.count)
        for e in delivered {
            let center = centers[e.fence]!, r = radius[e.fence]!
            let sides = stride(from: e.t - 60, through: e.t + 60, by: 3).map {
                Geodesy.haversineDistance(sim.trajectory.position(at: $0), center) - r
            }
            let correct = e.kind == .enter ? sides.contains { $0 < 0 } : sides.contains { $0 > 0 }
            if !correct { score.falseEvents.append(e) }
        }
        score.precision = delivered.isEmpty ? 1 : Double(delivered.count - score.falseEvents.count) / Double(delivered.count)
        return score
    }
}
