import Foundation
import WaymarkGeo
@testable import WaymarkSync

/// One randomized fault schedule over a ride (65 minutes by default, one fix a second), from a seed.
///
/// Device-side faults are scripted events in virtual time; server-side faults are decided per
/// request from the seed and the request number, so a schedule replays exactly.
struct FaultSchedule {
    enum Event: Hashable {
        case deliver                 // the OS hands the app the fixes measured since the last delivery
        case network(online: Bool)
        case suspend, resume
        case kill, relaunch
        case background, foreground
        case expireCredentials
    }

    let seed: UInt64
    let start: Date
    let rideSeconds: Int
    var timeline: [(at: Date, event: Event)] = []
    /// Server faults: probabilities per request.
    var p5xx = 0.0, pDrop = 0.0, pTimeout = 0.0
    /// Probability that the process dies right after a send, before it sees the answer.
    var pKillAfterSend = 0.0

    init(seed: UInt64, start: Date, rideSeconds: Int = 3_900) {
        self.seed = seed
        self.start = start
        self.rideSeconds = rideSeconds
        var rng = SplitMix64(seed: seed &* 0x9E37_79B9 &+ 17)
        let ride = Double(rideSeconds)
        func at(_ s: Double) -> Date { start.addingTimeInterval(s) }
        var t = 0.0
        while t < ride {
            t = min(ride, t + Double(Int.random(in: 1...20, using: &rng)))
            timeline.append((at(t), .deliver))
        }
        timeline.append((at(Double.random(in: 20...120, using: &rng)), .background))
        for _ in 0..<Int.random(in: 0...4, using: &rng) {
            let s = Double.random(in: 0..<ride, using: &rng)
            timeline.append((at(s), .network(online: false)))
            timeline.append((at(s + Double.random(in: 10...900, using: &rng)), .network(online: true)))
        }
        for _ in 0..<Int.random(in: 0...3, using: &rng) {
            let s = Double.random(in: 0..<ride, using: &rng)
            timeline.append((at(s), .suspend))
            timeline.append((at(s + Double.random(in: 30...900, using: &rng)), .resume))
        }
        for _ in 0..<Int.random(in: 0...3, using: &rng) {
            let s = Double.random(in: 0..<ride, using: &rng)
            timeline.append((at(s), .kill))
            timeline.append((at(s + Double.random(in: 5...300, using: &rng)), .relaunch))
        }
        if Double.random(in: 0..<1, using: &rng) < 0.25 {
            timeline.append((at(Double.random(in: 0..<ride, using: &rng)), .expireCredentials))
        }
        p5xx = Double.random(in: 0...0.3, using: &rng)
        pDrop = Double.random(in: 0...0.1, using: &rng)
        pTimeout = Double.random(in: 0..<1, using: &rng) < 0.25 ? 0.05 : 0
        pKillAfterSend = Double.random(in: 0...0.04, using: &rng)
        timeline.sort { $0.at < $1.at }
    }

    /// The server fault for request number `n` of this schedule's device.
    static func serverFault(seed: UInt64, request n: Int, p5xx: Double, pDrop: Double,
                            pTimeout: Double) -> IngestTestServer.Fault? {
        var rng = SplitMix64(seed: seed &* 31 &+ UInt64(n) &* 0x2545_F491_4F6C_DD1D)
        let x = Double.random(in: 0..<1, using: &rng)
        if x < p5xx { return .status([500, 502, 503, 504].randomElement(using: &rng)!) }
        if x < p5xx + pDrop { return .dropAfterCommit }
        if x < p5xx + pDrop + pTimeout { return .holdAfterCommitUntilNextRequest }
        return nil
    }

    /// The commute's fixes: one per second, each with its own millisecond time.
    func fixes() -> [Fix] {
        TestFixes.ride(count: rideSeconds, from: start.addingTimeInterval(0.001 * Double(seed % 1000)))
    }
}
