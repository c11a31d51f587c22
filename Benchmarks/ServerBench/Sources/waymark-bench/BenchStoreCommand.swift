import ArgumentParser
import Foundation
import WaymarkServer

/// `waymark-bench store`: the raw insert ceiling — the rows `waymark-bench load` sends, written directly
/// through ``Store/ingest(_:)`` (one transaction per batch, idempotency key, fence evaluation),
/// from the same number of concurrent tasks, with no HTTP and no JSON.
struct BenchStoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store", abstract: "Insert the load's rows directly through the store; print JSON.")

    @Option(help: "SQLite file path or postgres:// URL (migrated if needed).")
    var database: String
    @Option(help: "Concurrent writers (devices).")
    var devices: Int = 50
    @Option(help: "Points per batch.")
    var batch: Int = 500
    @Option(help: "Seconds to run.")
    var seconds: Double = 10

    func run() async throws {
        let command = self
        let report = try await StoreFactory.withStore(at: database, logger: quietLogger) { store in
            var ids: [String] = []
            for d in 0..<command.devices {
                ids.append(try await DeviceRegistry.register(name: "store-bench-\(d)", in: store).device.id)
            }
            let workload = BenchWorkload(batch: command.batch)
            let clock = ContinuousClock()
            let start = clock.now
            let deadline = start + .seconds(command.seconds)
            let cpuBefore = processCPUSeconds()
            let counts = try await withThrowingTaskGroup(of: (Int, [Double]).self) { group in
                for (d, id) in ids.enumerated() {
                    group.addTask {
                        var stored = 0, k = 0
                        var latencies: [Double] = []
                        while clock.now < deadline {
                            let positions = workload.positions(device: d, deviceID: id, batchIndex: k)
                            let t0 = clock.now
                            let outcome = try await store.ingest(IngestWrite(deviceID: id, idempotencyKey: "bench-\(d)-\(k)",
                                                                             positions: positions, receivedAt: Date()))
                            latencies.append((clock.now - t0).seconds)
                            stored += outcome.stored
                            k += 1
                        }
                        return (stored, latencies)
                    }
                }
                var total = 0
                var latencies: [Double] = []
                for try await (stored, l) in group { total += stored; latencies += l }
                return (total, latencies.sorted())
            }
            let elapsed = (clock.now - start).seconds
            let cpu = processCPUSeconds() - cpuBefore
            return ["database": StoreFactory.isPostgres(command.database) ? "postgresql" : "sqlite",
                    "devices": command.devices, "batch": command.batch, "seconds": elapsed,
                    "pointsStored": counts.0, "pointsPerSecond": Double(counts.0) / elapsed,
                    "transactionP50Ms": quantile(counts.1, 0.5) * 1000, "transactionP99Ms": quantile(counts.1, 0.99) * 1000,
                    "processCPUSeconds": cpu] as [String: any Sendable]
        }
        printJSON(report)
    }
}

/// `waymark-bench seed-fences`: stores the benchmark's N circular fences in a database.
struct BenchSeedFencesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed-fences", abstract: "Store N benchmark fences (circles over the load's region).")

    @Option(help: "SQLite file path or postgres:// URL (migrated if needed).")
    var database: String
    @Option(help: "How many fences.")
    var count: Int = 100_000

    func run() async throws {
        let fences = BenchWorkload.fences(count: count)
        try await StoreFactory.withStore(at: database, logger: quietLogger) { store in
            for chunk in stride(from: 0, to: fences.count, by: 5000) {
                try await store.upsertFences(Array(fences[chunk..<min(chunk + 5000, fences.count)]), at: Date())
            }
        }
        printJSON(["fences": fences.count])
    }
}
