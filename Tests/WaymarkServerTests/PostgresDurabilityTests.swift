import Foundation
import Logging
import PostgresNIO
import Testing
import WaymarkGeo
@testable import WaymarkServer

/// PostgreSQL's half of "acknowledged means committed to disk": a ``PostgresStore`` answers an ingest after
/// its COMMIT returns, and COMMIT waits for the WAL flush only while `synchronous_commit` is `on`. So every
/// connection the store's pool opens must have it `on`, set by the store itself (not left to the server's
/// default, which an operator's postgresql.conf may have turned off), and still `on` after ingests.
@Suite("PostgreSQL: every connection of the store commits synchronously",
       .enabled(if: StoreKind.postgresURL != nil, StoreKind.skipMessage))
struct PostgresDurabilityTests {
    /// One connection's view: its backend, and `synchronous_commit` with where its value came from.
    struct Session: Hashable {
        var pid: Int32
        var setting: String
        var source: String
    }

    /// Lets `count` tasks through only once all of them have arrived, so each holds its pool connection until
    /// every other task has one too (and the pool has opened `count` distinct connections).
    actor Barrier {
        let count: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
        init(count: Int) { self.count = count }
        func arrive() async {
            if waiting.count + 1 == count {
                waiting.forEach { $0.resume() }
                waiting.removeAll()
                return
            }
            await withCheckedContinuation { waiting.append($0) }
        }
    }

    /// The pool's largest size (`PostgresStore.init` sets 20): the test takes all of them at once.
    static let poolSize = 20

    /// Reads `synchronous_commit` on every connection the pool can open, all held at the same time.
    static func sessions(of store: PostgresStore) async throws -> [Session] {
        let barrier = Barrier(count: poolSize)
        return try await withThrowingTaskGroup(of: Session.self) { group in
            for _ in 0..<poolSize {
                group.addTask {
                    try await store.client.withConnection { connection in
                        let rows = try await connection.query("""
                            SELECT pg_backend_pid(), setting, source FROM pg_settings WHERE name = 'synchronous_commit'
                            """, logger: store.logger)
                        var sessions: [Session] = []
                        for try await (pid, setting, source) in rows.decode((Int32, String, String).self) {
                            sessions.append(Session(pid: pid, setting: setting, source: source))
                        }
                        await barrier.arrive()
                        return try #require(sessions.first)
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test("all 20 pool connections have synchronous_commit = on, asked for by the store, before and after concurrent ingests")
    func synchronousCommitOnEveryConnection() async throws {
        try await StoreKind.postgres.withStore { store in
            let store = try #require(store as? PostgresStore)
            let before = try await Self.sessions(of: store)
            #expect(Set(before.map(\.pid)).count == Self.poolSize, "the test must see \(Self.poolSize) distinct connections")
            #expect(before.allSatisfy { $0.setting == "on" }, "\(before.filter { $0.setting != "on" })")
            // "client": set in the connection's startup packet by the store, so no server default can turn it off.
            #expect(before.allSatisfy { $0.source == "client" }, "\(before.filter { $0.source != "client" })")

            // Ingests on many connections at once (group commit and idempotent requests alone) leave it on.
            let t0 = StoreTests.t0
            try await store.insertDevice(DeviceRecord(id: "d_a", name: "a", createdAt: t0), tokenHash: "hash-a")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<60 {
                    group.addTask {
                        let point = StoreTests.point("d_a", second: Double(i))
                        _ = try await store.ingest(IngestWrite(deviceID: "d_a", idempotencyKey: i.isMultiple(of: 3) ? "k\(i)" : nil,
                                                               positions: [point], receivedAt: t0.addingTimeInterval(Double(i))))
                    }
                }
                try await group.waitForAll()
            }
            let after = try await Self.sessions(of: store)
            #expect(after.allSatisfy { $0.setting == "on" && $0.source == "client" },
                    "\(after.filter { $0.setting != "on" || $0.source != "client" })")
        }
    }

    @Test("the relaxed store's connections have it off (the check above reads the store's own setting)")
    func relaxedIsOff() async throws {
        let url = try #require(StoreKind.postgresURL, StoreKind.skipMessage)
        var logger = Logger(label: "waymark.test.postgres")
        logger.logLevel = .error
        let store = try PostgresStore(url: url, logger: logger, durability: .relaxed)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await store.run() }
            defer { group.cancelAll() }
            let sessions = try await Self.sessions(of: store)
            #expect(sessions.allSatisfy { $0.setting == "off" && $0.source == "client" }, "\(sessions)")
        }
    }
}
