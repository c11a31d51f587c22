import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkSync

/// The acceptance test with a synthesized fix stream (one fix a second over 10 minutes of
/// riding; the schedule adds the device faults the simulator cannot script: a kill right after a
/// send, suspensions, credential expiry), real HTTP. `NoPointLostSimulatedTests` runs the real
/// app's tracker in the simulator instead.
@Suite("No point lost")
struct NoPointLostTests {
    static let schedules = Int(ProcessInfo.processInfo.environment["WAYMARK_FAULT_SCHEDULES"] ?? "") ?? 200

    @Test("200 seeded fault schedules: the server ends with exactly the recorded points, the device with none")
    func noPointLost() async throws {
        let server = try await IngestTestServer.start()
        defer { server.stop() }
        let configuration = UploadQueue.Configuration(maxBatchPoints: 300, maxBatchBytes: 96 * 1024, maxBatchAge: 120,
                                                      backoffBase: 2, backoffCap: 300)
        var totals = (recorded: 0, requests: 0, kills: 0, lostAnswers: 0, replays: 0, fewest: Int.max)
        let start = Date(timeIntervalSince1970: 1_750_000_000)
        // Two schedules at a time, one per core (a timed-out reply costs no real time: each run's
        // transport times out on a clock of its own, which the server moves as it holds a reply).
        try await withThrowingTaskGroup(of: (UInt64, FaultRun.Result, Check).self) { group in
            var seeds = (1...UInt64(Self.schedules)).makeIterator()
            func add(_ seed: UInt64) {
                group.addTask {
                    let run = FaultRun(schedule: FaultSchedule(seed: seed, start: start, rideSeconds: 600), server: server,
                                       configuration: configuration)
                    let result = try await run.run()
                    return (seed, result, await Check(run: run, result: result, ledger: server.state))
                }
            }
            for _ in 0..<2 { if let seed = seeds.next() { add(seed) } }
            while let (seed, result, check) = try await group.next() {
                if let next = seeds.next() { add(next) }
                #expect(check.serverCount == check.expected.count,
                        "seed \(seed): server has \(check.serverCount), recorded \(check.expected.count)")
                #expect(check.serverPoints == check.expected, "seed \(seed): the server's points differ from the recorded ones")
                #expect(check.crossBatchDuplicates == 0, "seed \(seed): a point was sent in two different batches")
                #expect(result.storeFixes == 0 && result.finalBacklog.isEmpty && result.finalBacklog.quarantined == 0,
                        "seed \(seed): \(result.storeFixes) fixes left on the device")
                totals.recorded += result.recorded.count
                totals.fewest = min(totals.fewest, result.recorded.count)
                totals.requests += result.requests
                totals.kills += result.kills
                totals.lostAnswers += result.lostAnswers
                totals.replays += check.replays
            }
        }
        let faults = await server.state.faultCounts
        print("no-point-lost: \(Self.schedules) schedules, \(totals.recorded) points recorded (fewest in one schedule: \(totals.fewest)) and stored once, "
              + "\(totals.requests) requests (\(totals.replays) replayed keys absorbed), \(totals.kills) kills (\(totals.lostAnswers) right after a send), "
              + "server faults \(faults.sorted { $0.key < $1.key })")
    }
}

/// What the server holds for one schedule's device, against what the device recorded.
struct Check: Sendable {
    var expected: Set<IngestLedger.Point>
    var serverPoints: Set<IngestLedger.Point>
    var serverCount: Int
    var crossBatchDuplicates: Int
    var replays: Int

    init(run: FaultRun, result: FaultRun.Result, ledger: IngestLedger) async {
        await self.init(device: run.device, recorded: result.recorded, ledger: ledger)
    }

    init(device: String, recorded: [Fix], ledger: IngestLedger) async {
        expected = Set(recorded.map {
            IngestLedger.Point(timestamp: NativeBatchFormat.timestamp($0.timestamp),
                               longitude: $0.coordinate.longitude, latitude: $0.coordinate.latitude)
        })
        let points = await ledger.points(device: device)
        serverPoints = Set(points)
        serverCount = points.count
        let stats = await ledger.stats(device: device)
        crossBatchDuplicates = stats.crossBatchDuplicates
        replays = stats.replays
    }
}
