import AsyncHTTPClient
import Foundation
import NIOCore
import WaymarkGeo
import NIOHTTP1

/// Replays a ride to a server as one or more devices, paced by a speed-up factor, and measures
/// throughput and latency. Used by `waymark send` and as the ingest benchmark's load generator.
struct SendReplay: Sendable {
    /// What one run measured.
    struct Report: Hashable, Sendable, Codable {
        var devices: Int
        var format: String
        var requests: Int
        var pointsSent: Int
        var pointsAcknowledged: Int
        var failures: Int
        var elapsedSeconds: Double
        var pointsPerSecond: Double
        var latencyP50Milliseconds: Double
        var latencyP90Milliseconds: Double
        var latencyP99Milliseconds: Double
        var firstError: String?

        var text: String {
            var lines = [
                "sent \(pointsSent) points in \(requests) \(format) requests from \(devices) device(s) in "
                    + String(format: "%.2f s", elapsedSeconds),
                String(format: "throughput %.0f points/s; latency p50 %.1f ms, p90 %.1f ms, p99 %.1f ms",
                       pointsPerSecond, latencyP50Milliseconds, latencyP90Milliseconds, latencyP99Milliseconds),
                "acknowledged \(pointsAcknowledged) points; \(failures) failed requests",
            ]
            if let firstError { lines.append("first error: \(firstError)") }
            return lines.joined(separator: "\n")
        }
    }

    var fixes: [Fix]
    var format: SendFormat
    var server: String
    var tokens: [String]
    /// Virtual seconds per real second; 0 sends as fast as possible.
    var speedup: Double
    var batch: Int
    /// Counts points as they are acknowledged or refused (a progress bar), when set.
    var progress: SharedProgressBar?

    /// Runs every device concurrently and returns the combined report.
    func run(client: HTTPClient = .shared) async -> Report {
        let clock = ContinuousClock()
        let start = clock.now
        let results = await withTaskGroup(of: DeviceResult.self) { group in
            for token in tokens {
                group.addTask { await self.device(token: token, client: client, start: start) }
            }
            var all: [DeviceResult] = []
            for await result in group { all.append(result) }
            return all
        }
        await progress?.finish()
        let elapsed = max((clock.now - start).seconds, 1e-9)
        let latencies = results.flatMap(\.latencies).sorted()
        func percentile(_ p: Double) -> Double {
            latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int((Double(latencies.count - 1) * p).rounded()))] * 1000
        }
        let acknowledged = results.reduce(0) { $0 + $1.acknowledged }
        return Report(devices: tokens.count, format: format.rawValue, requests: latencies.count,
                      pointsSent: results.reduce(0) { $0 + $1.sent }, pointsAcknowledged: acknowledged,
                      failures: results.reduce(0) { $0 + $1.failures }, elapsedSeconds: elapsed,
                      pointsPerSecond: Double(acknowledged) / elapsed, latencyP50Milliseconds: percentile(0.5),
                      latencyP90Milliseconds: percentile(0.9), latencyP99Milliseconds: percentile(0.99),
                      firstError: results.compactMap(\.firstError).first)
    }

    private struct DeviceResult: Sendable {
        var sent = 0, acknowledged = 0, failures = 0
        var latencies: [Double] = []
        var firstError: String?
    }

    private func device(token: String, client: HTTPClient, start: ContinuousClock.Instant) async -> DeviceResult {
        var result = DeviceResult()
        guard let t0 = fixes.first?.timestamp else { return result }
        let size = format.pointsPerRequest(batch: batch)
        let runID = UUID().uuidString.prefix(8)
        var index = 0
        while index < fixes.count {
            let chunk = Array(fixes[index..<min(index + size, fixes.count)])
            if speedup > 0, let last = chunk.last {
                // A real client sends a point (or a full batch) once it has been measured.
                let due = start + .milliseconds(Int64(last.timestamp.timeIntervalSince(t0) / speedup * 1000))
                try? await Task.sleep(until: due, clock: .continuous)
            }
            let request = format.request(for: chunk, token: token, server: server, key: "send-\(runID)-\(index)")
            let began = ContinuousClock.now
            let outcome = await Self.post(request, client: client)
            result.latencies.append((ContinuousClock.now - began).seconds)
            result.sent += chunk.count
            if case .success = outcome { result.acknowledged += chunk.count } else {
                result.failures += 1
                if result.firstError == nil, case .failure(let message) = outcome { result.firstError = message }
            }
            index += size
            await progress?.add(chunk.count)
        }
        return result
    }

    enum Outcome: Sendable { case success, failure(String) }

    static func post(_ request: SendRequest, client: HTTPClient) async -> Outcome {
        var http = HTTPClientRequest(url: request.url)
        http.method = .POST
        for (name, value) in request.headers { http.headers.add(name: name, value: value) }
        http.body = .bytes(ByteBuffer(bytes: request.body))
        do {
            let response = try await client.execute(http, timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 1 << 20)
            guard (200..<300).contains(Int(response.status.code)) else {
                return .failure("HTTP \(response.status.code): \(String(buffer: body).prefix(200))")
            }
            return .success
        } catch {
            return .failure("\(error)")
        }
    }
}
