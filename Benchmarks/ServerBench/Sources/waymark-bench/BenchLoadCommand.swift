import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// `waymark-bench load`: native 500-point batches from N concurrent devices against a running server.
///
/// Each device keeps one request in flight (closed loop) and sends as fast as the server answers,
/// or, with `--rate`, on a fixed schedule; latency is then measured from the scheduled send time,
/// so a slow reply delays (and is charged to) the requests queued behind it. The first `--warmup`
/// seconds are not counted, and acknowledgements of requests sent before then are ignored. Bodies are templates
/// whose timestamps are rewritten in place, so the generator's own CPU stays small; it is reported.
struct BenchLoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load", abstract: "Drive a server with native batches from concurrent devices; print JSON.")

    @Option(help: "The server's base URL.")
    var server: String
    @Option(name: .customLong("admin-token"), help: "The admin token (devices bench-1… are registered with it).")
    var adminToken: String
    @Option(help: "Concurrent devices.")
    var devices: Int = 50
    @Option(help: "Points per batch.")
    var batch: Int = 500
    @Option(help: "Seconds to run.")
    var seconds: Double = 10
    @Option(help: "Total points/s to offer (0: as fast as the server answers).")
    var rate: Double = 0
    @Option(help: "Seconds of load before measuring (first connections, the server loading its fences).")
    var warmup: Double = 2

    /// Registers a device through the admin API (`POST /api/devices`) and returns its upload token.
    func registerDevice(named name: String, server base: String) async throws -> String {
        struct Registered: Decodable { let token: String }
        var request = HTTPClientRequest(url: base + "/api/devices")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(adminToken)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: Array(try JSONEncoder().encode(["name": name]))))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .created, let registered = try? JSONDecoder().decode(Registered.self, from: Data(body.readableBytesView)) else {
            throw ValidationError("POST \(base)/api/devices answered \(response.status.code): is --admin-token the server's?")
        }
        return registered.token
    }

    func run() async throws {
        var base = server
        while base.hasSuffix("/") { base.removeLast() }
        var tokens: [String] = []
        for d in 0..<devices {
            tokens.append(try await registerDevice(named: "bench-\(d)", server: base))
        }
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(120), concurrentHTTP1ConnectionsPerHostSoftLimit: devices)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let workload = BenchWorkload(batch: batch)
        let clock = ContinuousClock()
        let start = clock.now
        let measureFrom = start + .seconds(warmup)
        let interval: Duration? = rate > 0 ? .seconds(Double(batch * devices) / rate) : nil
        let run = LoadRun(server: base, workload: workload, client: client, start: start, measureFrom: measureFrom,
                          deadline: measureFrom + .seconds(seconds), interval: interval, devices: devices)
        let cpuTask = Task {
            try? await Task.sleep(until: measureFrom, clock: clock)
            return processCPUSeconds()
        }
        let results = await withTaskGroup(of: LoadRun.DeviceResult.self) { group in
            for (d, token) in tokens.enumerated() { group.addTask { await run.device(d, token: token) } }
            var all: [LoadRun.DeviceResult] = []
            for await result in group { all.append(result) }
            return all
        }
        let elapsed = (clock.now - measureFrom).seconds
        let cpu = processCPUSeconds() - (await cpuTask.value)
        try await client.shutdown()
        let latencies = results.flatMap(\.latencies).sorted()
        let acknowledged = results.reduce(0) { $0 + $1.acknowledged }
        var report: [String: Any] = [
            "devices": devices, "batch": batch, "offeredRate": rate, "seconds": elapsed, "warmupSeconds": warmup,
            "requests": latencies.count, "failures": results.reduce(0) { $0 + $1.failures },
            "pointsAcknowledged": acknowledged, "pointsPerSecond": Double(acknowledged) / elapsed,
            "latencyP50Ms": quantile(latencies, 0.5) * 1000, "latencyP90Ms": quantile(latencies, 0.9) * 1000,
            "latencyP99Ms": quantile(latencies, 0.99) * 1000, "latencyMaxMs": (latencies.last ?? 0) * 1000,
            "generatorCPUSeconds": cpu, "generatorCores": cpu / elapsed,
        ]
        if let error = results.compactMap(\.firstError).first { report["firstError"] = error }
        printJSON(report)
    }
}

/// One load run's shared parameters; ``device(_:token:)`` is one device's loop.
struct LoadRun: Sendable {
    struct DeviceResult: Sendable {
        var acknowledged = 0, failures = 0
        var latencies: [Double] = []
        var firstError: String?
    }

    let server: String
    let workload: BenchWorkload
    let client: HTTPClient
    let start: ContinuousClock.Instant
    /// Requests sent before this instant are warm-up: not counted.
    let measureFrom: ContinuousClock.Instant
    let deadline: ContinuousClock.Instant
    let interval: Duration?
    let devices: Int

    func device(_ d: Int, token: String) async -> DeviceResult {
        let clock = ContinuousClock()
        var result = DeviceResult()
        var template = BatchTemplate(workload: workload, device: d)
        let offset = interval.map { $0 * (Double(d) / Double(devices)) } ?? .zero
        var k = 0
        while true {
            let scheduled = interval.map { start + offset + $0 * k } ?? clock.now
            if scheduled >= deadline { break }
            if scheduled > clock.now { try? await Task.sleep(until: scheduled, clock: clock) }
            var request = HTTPClientRequest(url: server + "/api/ingest")
            request.method = .POST
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
            request.headers.add(name: "Content-Type", value: "application/json")
            request.headers.add(name: "Idempotency-Key", value: "bench-\(d)-\(k)")
            request.body = .bytes(ByteBuffer(bytes: template.body(batchIndex: k)))
            let counted = scheduled >= measureFrom
            do {
                let response = try await client.execute(request, timeout: .seconds(120))
                let body = try await response.body.collect(upTo: 1 << 20)
                let reply = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
                if response.status.code == 200, let stored = reply?["stored"] as? Int {
                    if counted { result.acknowledged += stored }
                } else {
                    result.failures += 1
                    if result.firstError == nil { result.firstError = "HTTP \(response.status.code): \(String(buffer: body).prefix(300))" }
                }
            } catch {
                result.failures += 1
                if result.firstError == nil { result.firstError = "\(error)" }
            }
            if counted { result.latencies.append((clock.now - scheduled).seconds) }
            k += 1
        }
        return result
    }
}
