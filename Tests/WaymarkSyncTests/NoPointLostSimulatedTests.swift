import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
import WaymarkSimulator
@testable import WaymarkSync

/// The no-point-lost acceptance test with the real app: the engine's `RideTracker` records a
/// commute in the simulator through kills, relaunches, suspensions, a tunnel and offline
/// windows, and uploads over real HTTP to a server that injects faults.
@Suite("No point lost (the real app in the simulator)")
struct NoPointLostSimulatedTests {
    static let schedules = Int(ProcessInfo.processInfo.environment["WAYMARK_FAULT_SCHEDULES"] ?? "") ?? 200

    /// Run under both force-quit settings: current iOS relaunches a force-quit app for location
    /// events (field reports, PLATFORM.md §4), older iOS and the setting's alternative do not;
    /// and on both location backends (`CLLocationManager`, and the iOS 17 APIs).
    @Test("200 seeded schedules per force-quit setting and backend: the server ends with exactly the points and gap markers the tracker recorded",
          arguments: [true, false], LocationBackend.allCases)
    func trackerPointsReachTheServer(relaunchAfterForceQuit: Bool, backend: LocationBackend) async throws {
        let server = try await IngestTestServer.start()
        defer { server.stop() }
        let configuration = UploadQueue.Configuration(maxBatchPoints: 60, maxBatchBytes: 32 * 1024, maxBatchAge: 60,
                                                      backoffBase: 2, backoffCap: 120)
        var totals = (recorded: 0, gaps: 0, launches: 0, requests: 0, fewest: Int.max, suspended: 0, dead: 0)
        try await withThrowingTaskGroup(of: (UInt64, SimulatedRideRun.Result, Check, Set<IngestLedger.Gap>).self) { group in
            var seeds = (1...UInt64(Self.schedules)).makeIterator()
            func add(_ seed: UInt64) {
                group.addTask {
                    let run = SimulatedRideRun(seed: seed, server: server, configuration: configuration,
                                               relaunchAfterForceQuit: relaunchAfterForceQuit, backend: backend)
                    let result = try await run.run()
                    let check = await Check(device: run.device, recorded: result.recorded, ledger: server.state)
                    return (seed, result, check, await server.state.gaps(device: run.device))
                }
            }
            for _ in 0..<2 { if let seed = seeds.next() { add(seed) } }
            while let (seed, result, check, gaps) = try await group.next() {
                if let next = seeds.next() { add(next) }
                #expect(!result.recorded.isEmpty, "seed \(seed): the tracker recorded nothing")
                #expect(check.serverCount == check.expected.count,
                        "seed \(seed): server has \(check.serverCount), the tracker recorded \(check.expected.count)")
                #expect(check.serverPoints == check.expected, "seed \(seed): the server's points differ from the recorded ones")
                #expect(check.crossBatchDuplicates == 0, "seed \(seed): a point was sent in two different batches")
                let expectedGaps = Set(result.gaps.map {
                    IngestLedger.Gap(ride: "", start: NativeBatchFormat.timestamp($0.start), end: NativeBatchFormat.timestamp($0.end),
                                     reason: $0.reason.rawValue)
                })
                #expect(Set(gaps.map { IngestLedger.Gap(ride: "", start: $0.start, end: $0.end, reason: $0.reason) }) == expectedGaps,
                        "seed \(seed): gap markers on the server differ from the tracker's")
                #expect(result.storeFixes == 0 && result.finalBacklog.isEmpty && result.finalBacklog.quarantined == 0,
                        "seed \(seed): \(result.storeFixes) fixes left on the device")
                totals.recorded += result.recorded.count
                totals.gaps += result.gaps.count
                totals.launches += result.launches
                totals.requests += result.requests
                totals.fewest = min(totals.fewest, result.recorded.count)
                if result.suspendedSteps > 0 { totals.suspended += 1 }
                if result.deadSteps > 0 { totals.dead += 1 }
            }
        }
        #expect(totals.launches > Self.schedules, "some schedules relaunched the app after a kill")
        #expect(totals.gaps > 0, "some schedules left gaps (kills, the tunnel)")
        #expect(totals.suspended > 0 && totals.dead > 0, "some schedules suspended the app, some killed it")
        let faults = await server.state.faultCounts
        print("no-point-lost (simulated app, \(backend), relaunch after force-quit: \(relaunchAfterForceQuit)): \(Self.schedules) schedules, \(totals.recorded) tracker points "
              + "(fewest \(totals.fewest)), \(totals.gaps) gap markers, \(totals.launches) launches, \(totals.requests) requests, "
              + "\(totals.suspended) schedules with the app suspended and \(totals.dead) with it dead for a while, "
              + "server faults \(faults.sorted { $0.key < $1.key })")
    }

    /// Whether the schedule force-quits the app mid-ride and the user reopens it only after the ride.
    static func forceQuitUntilAfterRide(_ scenario: Scenario) -> Bool {
        let actions: [UserAction] = scenario.user?.actions ?? []
        let opens: [Double] = actions.filter { $0.do == .open }.map(\.at)
        let quits: [Double] = actions.filter { $0.do == .forceQuit }.map(\.at)
        return quits.contains { (quit: Double) -> Bool in !opens.contains { $0 > quit && $0 <= quit + 150 } }
    }

    /// The relaunch-after-force-quit path is exercised by the suite: on the schedules that force-quit the app
    /// mid-ride and reopen it only after the ride, the two settings must give different runs on both
    /// backends (PLATFORM.md §4), and each must still lose nothing.
    @Test("the force-quit setting changes the schedules that reopen only after the ride, on both backends; both lose nothing",
          arguments: LocationBackend.allCases)
    func forceQuitSettingMatters(backend: LocationBackend) async throws {
        let configuration = UploadQueue.Configuration(maxBatchPoints: 60, maxBatchBytes: 32 * 1024, maxBatchAge: 60,
                                                      backoffBase: 2, backoffCap: 120)
        var recorded: [Bool: Int] = [:], launches: [Bool: Int] = [:], schedules = 0, differing = 0
        for seed in UInt64(1)...60 {
            let probe = SimulatedRideRun(seed: seed, server: try await IngestTestServer.start(), configuration: configuration)
            probe.server.stop()
            guard Self.forceQuitUntilAfterRide(probe.scenario) else { continue }
            schedules += 1
            var counts: [Bool: Int] = [:]
            for setting in [true, false] {
                let server = try await IngestTestServer.start()
                defer { server.stop() }
                let run = SimulatedRideRun(seed: seed, server: server, configuration: configuration,
                                           relaunchAfterForceQuit: setting, backend: backend)
                let result = try await run.run()
                let check = await Check(device: run.device, recorded: result.recorded, ledger: server.state)
                #expect(check.serverPoints == check.expected && check.serverCount == check.expected.count,
                        "seed \(seed), relaunch \(setting): server has \(check.serverCount), the tracker recorded \(check.expected.count)")
                recorded[setting, default: 0] += result.recorded.count
                launches[setting, default: 0] += result.launches
                counts[setting] = result.recorded.count
            }
            if counts[true] != counts[false] { differing += 1 }
        }
        #expect(schedules >= 5, "the first 60 schedules must hold some force-quits reopened after the ride")
        // Relaunched for a significant change, the app records part of the ride the other setting loses.
        #expect(recorded[true, default: 0] > recorded[false, default: 0], "\(backend): recorded \(recorded), launches \(launches)")
        #expect(differing > 0, "\(backend): the two settings gave identical runs on all \(schedules) schedules")
    }
}
