import ArgumentParser
import Foundation
import WaymarkServer

/// `waymark-bench evaluate`: ``FenceEngine/evaluate(_:state:)`` alone on the ingest load's points
/// (the same devices, batches and fences as `waymark-bench load` with `waymark-bench seed-fences`), no database and
/// no HTTP: the CPU the fences add to each ingest transaction. Small enough to run under callgrind.
struct BenchEvaluateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate", abstract: "Fence evaluation of the ingest load's batches, in memory; print JSON.")

    @Option(help: "Circular benchmark fences.")
    var fences: Int = 100_000
    @Option(help: "Devices.")
    var devices: Int = 50
    @Option(help: "Batches per device.")
    var batches: Int = 20
    @Option(help: "Points per batch.")
    var batch: Int = 500

    func run() async throws {
        let clock = ContinuousClock()
        var t = clock.now
        let engine = FenceEngine(fences: BenchWorkload.fences(count: fences))
        let buildSeconds = (clock.now - t).seconds
        let workload = BenchWorkload(batch: batch, now: Date(timeIntervalSince1970: 1_800_000_000))
        var inputs: [[Position]] = []
        for k in 0..<batches {
            for d in 0..<devices { inputs.append(workload.positions(device: d, deviceID: "d\(d)", batchIndex: k)) }
        }
        var states = [DeviceFenceState](repeating: DeviceFenceState(), count: devices)
        var kinds: [ServerFenceEvent.Kind: Int] = [:]
        t = clock.now
        for (n, positions) in inputs.enumerated() {
            for event in engine.evaluate(positions, state: &states[n % devices]) { kinds[event.kind, default: 0] += 1 }
        }
        let seconds = (clock.now - t).seconds
        let points = inputs.count * batch
        printJSON(["fences": fences, "points": points, "engineBuildSeconds": buildSeconds, "seconds": seconds,
                   "pointsPerSecond": Double(points) / seconds, "nanosecondsPerPoint": seconds * 1e9 / Double(points),
                   "enter": kinds[.enter, default: 0], "exit": kinds[.exit, default: 0], "dwell": kinds[.dwell, default: 0],
                   "devicesInsideAtEnd": states.filter { !$0.inside.isEmpty }.count])
    }
}
