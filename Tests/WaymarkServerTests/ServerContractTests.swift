import Foundation
import Testing
@testable import WaymarkServer

/// Programmer misuse of the retention service stops the server at start, naming the setting (#16);
/// the CLI rejects bad values from an operator before they get here.
@Suite("server contracts: an unusable retention setting stops the program")
struct ServerContractTests {
    /// A store in a temporary file named after the test (SQLite's WAL mode needs a file). The exit tests'
    /// child processes stop before they could delete it, so the parent removes it with ``removeScratch(_:)``.
    static func scratchStore(_ name: String) throws -> SQLiteStore {
        try SQLiteStore(path: scratchPath(name))
    }

    static func scratchPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("waymark-contract-\(name).sqlite").path
    }

    /// Removes a ``scratchStore(_:)`` file and its write-ahead log.
    static func removeScratch(_ name: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: scratchPath(name) + suffix) }
    }

    @Test("a zero prune interval (a busy loop) stops the program, naming it")
    func retentionInterval() async throws {
        defer { Self.removeScratch("retention-interval") }
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let store = try ServerContractTests.scratchStore("retention-interval")
            _ = RetentionService(store: store, retentionSeconds: 60, interval: 0)
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("RetentionService: interval must be positive and finite, not 0.0"), "\(message)")
    }

    @Test("a negative history period (which would delete everything) stops the program; none at all is fine")
    func retentionHistory() async throws {
        defer { Self.removeScratch("retention-history") }
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let store = try ServerContractTests.scratchStore("retention-history")
            _ = RetentionService(store: store, retentionSeconds: nil, historySeconds: -1)
        }
        #expect(String(decoding: result.standardErrorContent, as: UTF8.self).contains("historySeconds must be zero or more, not -1"))
        defer { Self.removeScratch("retention-history-parent") }
        let store = try Self.scratchStore("retention-history-parent")
        let service = RetentionService(store: store, retentionSeconds: nil, historySeconds: nil)
        #expect(try await service.expireHistoryOnce() == 0)
    }

    @Test("the default webhook policy is usable; a lease no longer than the timeout is named, and the deliverer stops")
    func webhookPolicy() async throws {
        defer { Self.removeScratch("webhook-policy") }
        #expect(WebhookPolicy().contractViolations.isEmpty)
        var policy = WebhookPolicy()
        policy.timeoutSeconds = 90   // the lease is 60 s: another worker would claim a slow delivery again
        policy.batchSize = 0
        #expect(policy.contractViolations.count == 2, "\(policy.contractViolations)")
        #expect(policy.contractViolations.contains { $0.hasPrefix("leaseSeconds (60.0) must be finite and longer than timeoutSeconds (90.0)") })
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var policy = WebhookPolicy()
            policy.pollSeconds = 0
            _ = WebhookDeliverer(store: try ServerContractTests.scratchStore("webhook-policy"), policy: policy)
        }
        #expect(String(decoding: result.standardErrorContent, as: UTF8.self).contains("WebhookPolicy: pollSeconds must be positive and finite, not 0.0"))
    }

    @Test("an HTTP server with no connections allowed, or a NaN or overflowing timeout, stops the program")
    func httpServerSettings() async throws {
        let connections = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var configuration = ServerConfiguration(adminTokenDigest: "x")
            configuration.maxConnections = 0
            _ = TrackingServer.httpServer(configuration: configuration)
        }
        #expect(String(decoding: connections.standardErrorContent, as: UTF8.self).contains("maxConnections must be at least 1, not 0"))
        for bad in [Double.nan, 1e10] {
            var configuration = ServerConfiguration(adminTokenDigest: "x")
            configuration.bodyTimeoutSeconds = bad
            #expect(configuration.contractViolations.contains { $0.hasPrefix("bodyTimeoutSeconds must be from 0 to 31536000 seconds") })
        }
        let timeout = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var configuration = ServerConfiguration(adminTokenDigest: "x")
            configuration.headerTimeoutSeconds = 1e10   // would overflow NIO's nanosecond timer
            _ = TrackingServer.httpServer(configuration: configuration)
        }
        #expect(String(decoding: timeout.standardErrorContent, as: UTF8.self).contains("headerTimeoutSeconds must be from 0 to 31536000 seconds"))
    }

    @Test("a decode gate without a slot or with a negative queue, a connection limiter admitting none, or a live feed bounded below 1 stops the program, naming the value")
    func directlyMadeLimits() async throws {
        let gate = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = DecodeGate(slots: 0, queueLimit: -1)
        }
        #expect(String(decoding: gate.standardErrorContent, as: UTF8.self)
            .contains("DecodeGate: slots must be at least 1, not 0; queueLimit must be zero or more, not -1"))
        let limiter = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = ConnectionLimiter(limit: 0)
        }
        #expect(String(decoding: limiter.standardErrorContent, as: UTF8.self).contains("ConnectionLimiter: limit must be at least 1, not 0"))
        let feed = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = LiveFeed(maxPendingPositions: 0)
        }
        #expect(String(decoding: feed.standardErrorContent, as: UTF8.self).contains("LiveFeed: maxPendingPositions must be at least 1, not 0"))
        // Usable values are kept; a live feed's bound is at least one message.
        #expect(DecodeGate(slots: 1, queueLimit: 0).slots == 1 && ConnectionLimiter(limit: 1).limit == 1)
        #expect(LiveFeed(maxPendingPositions: 1).maxPendingPositions == LiveFeed.chunkSize)
    }

    @Test("the server's defaults are usable; each offending limit is named, and the router stops")
    func serverConfiguration() async throws {
        defer { Self.removeScratch("server-configuration") }
        var configuration = ServerConfiguration(adminTokenDigest: "x")
        #expect(configuration.contractViolations.isEmpty)
        configuration.maxQueuedDecodes = -1
        configuration.streamTicketSeconds = .infinity
        configuration.historyRetentionSeconds = -86_400
        #expect(configuration.contractViolations.count == 3, "\(configuration.contractViolations)")
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var configuration = ServerConfiguration(adminTokenDigest: "x")
            configuration.maxPointsPerRequest = 0
            _ = TrackingServer.makeRouter(configuration: configuration, store: try ServerContractTests.scratchStore("server-configuration"))
        }
        #expect(String(decoding: result.standardErrorContent, as: UTF8.self).contains("ServerConfiguration: maxPointsPerRequest must be at least 1, not 0"))
    }
}
