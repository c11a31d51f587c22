import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import Testing
import WaymarkGeo
@testable import WaymarkServer
@testable import WaymarkCLI
import NIOHTTP1

/// `kill -9` of `waymark serve` in the middle of sustained ingest: after a restart on the same
/// database, every point the server acknowledged is there.
@Suite("kill -9 during ingest", .serialized)
struct KillRecoveryTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case sqlite, postgres
        var testDescription: String { rawValue }
        static let postgresURL = ProcessInfo.processInfo.environment["WAYMARK_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
        static let available: [Kind] = postgresURL == nil ? [.sqlite] : [.sqlite, .postgres]
    }

    static let adminToken = "wma_kill9-test-admin-token-0123456789"
    static let senders = 6
    static let batch = 50
    /// Acknowledged batches after which the server is killed (while the other senders are mid-request).
    static let killAfter = 30

    /// What the senders saw acknowledged, and the one-time kill.
    actor Ledger {
        var acknowledged: [Int64] = []
        var batches = 0
        var killed = false

        /// Records an acknowledged batch; returns true exactly once, when it is time to kill.
        func acknowledge(_ millis: [Int64]) -> Bool {
            acknowledged += millis
            batches += 1
            if batches >= KillRecoveryTests.killAfter, !killed {
                killed = true
                return true
            }
            return false
        }
    }

    @Test("every acknowledged point is present after kill -9 and restart", arguments: Kind.available)
    func killNine(kind: Kind) async throws {
        try await Self.withDatabase(kind) { database in
            let server = try await ServerProcess.start(database: database, adminToken: Self.adminToken)
            let (deviceID, token) = try await Self.registerDevice(server: server.baseURL)
            let ledger = Ledger()
            let base = Int64(Date().timeIntervalSince1970 - 3600) * 1000
            await withTaskGroup(of: Void.self) { group in
                for sender in 0..<Self.senders {
                    group.addTask {
                        var k = 0
                        while true {
                            // Sender s owns timestamps base + (k × senders + s) × batch + i (ms): all distinct.
                            let millis = (0..<Self.batch).map { base + Int64((k * Self.senders + sender) * Self.batch + $0) }
                            guard let stored = try? await Self.send(millis, server: server.baseURL, token: token,
                                                                    key: "s\(sender)-\(k)") else { return }
                            #expect(stored == Self.batch)
                            if await ledger.acknowledge(millis) { await server.kill9() }
                            k += 1
                        }
                    }
                }
            }
            let killed = await ledger.killed
            if !killed { await server.terminate() }
            try #require(killed, "the senders stopped before \(Self.killAfter) batches were acknowledged")
            #expect(server.process.terminationReason == .uncaughtSignal && server.process.terminationStatus == SIGKILL)
            let acknowledged = await ledger.acknowledged
            #expect(acknowledged.count >= Self.killAfter * Self.batch)

            // Restart on the same database: it serves again and has every acknowledged point.
            let restarted = try await ServerProcess.start(database: database, adminToken: Self.adminToken)
            let after = try await Self.send([base - 1], server: restarted.baseURL, token: token, key: "after-restart")
            #expect(after == 1)
            await restarted.kill9()
            let stored = try await StoreFactory.withStore(at: database, logger: Self.quiet) { store in
                Set(try await store.positions(PositionQuery(deviceID: deviceID, limit: 1_000_000)).map(\.timestampMillis))
            }
            let missing = acknowledged.filter { !stored.contains($0) }
            #expect(missing.isEmpty, "\(missing.count) of \(acknowledged.count) acknowledged points are missing")
            #expect(stored.contains(base - 1))
        }
    }

    /// Posts one native batch with the given timestamps; returns the `stored` count of a 200 reply, nil on any failure.
    static func send(_ millis: [Int64], server: String, token: String, key: String) async throws -> Int? {
        let client = Self.client
        let fixes = millis.enumerated().map { i, ms in
            Fix(coordinate: Coordinate(uncheckedLatitude: 46.05 + Double(i) * 1e-5, longitude: 14.5), horizontalAccuracy: 5,
                timestamp: Date(timeIntervalSince1970: Double(ms) / 1000))
        }
        let request = SendFormat.native.request(for: fixes, token: token, server: server, key: key)
        var http = HTTPClientRequest(url: request.url)
        http.method = .POST
        for (name, value) in request.headers { http.headers.add(name: name, value: value) }
        http.body = .bytes(ByteBuffer(bytes: request.body))
        let response = try await client.execute(http, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status.code == 200,
              let reply = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any] else { return nil }
        return reply["stored"] as? Int
    }

    static func registerDevice(server: String) async throws -> (id: String, token: String) {
        let client = Self.client
        var request = HTTPClientRequest(url: server + "/api/devices")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(adminToken)")
        request.body = .bytes(ByteBuffer(string: #"{"name":"kill9"}"#))
        let response = try await client.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        let reply = try #require(try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any])
        return (try #require(reply["id"] as? String), try #require(reply["token"] as? String))
    }

    /// A client that fails at once when the server is gone (the shared one retries connecting until the timeout).
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    static let quiet: Logger = {
        var logger = Logger(label: "waymark.test.kill9")
        logger.logLevel = .error
        return logger
    }()

    /// A fresh SQLite file, or a fresh schema in the test PostgreSQL database, removed afterwards.
    static func withDatabase(_ kind: Kind, _ body: (String) async throws -> Void) async throws {
        switch kind {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kill9-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            try await body(directory.appendingPathComponent("waymark.sqlite").path)
        case .postgres:
            let url = try #require(Kind.postgresURL)
            let schema = "k9_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            let admin = try PostgresStore(url: url, logger: quiet)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await admin.run() }
                defer { group.cancelAll() }
                try await admin.execute(unsafeSQL: "CREATE SCHEMA \(schema)")
                do {
                    try await body(url + (url.contains("?") ? "&" : "?") + "search_path=" + schema)
                } catch {
                    try? await admin.execute(unsafeSQL: "DROP SCHEMA \(schema) CASCADE")
                    throw error
                }
                try await admin.execute(unsafeSQL: "DROP SCHEMA \(schema) CASCADE")
            }
        }
    }
}
