import Foundation
import PostgresNIO
import Testing
import WaymarkGeo
@testable import WaymarkServer

/// PostgreSQL group commit (`PostgresStore+GroupCommit.swift`): concurrent requests without an idempotency key
/// share one transaction, written as if they had been committed one after another.
@Suite("PostgreSQL: concurrent requests share a transaction and are written as one after another",
       .enabled(if: StoreKind.postgresURL != nil, StoreKind.skipMessage))
struct PostgresGroupCommitTests {
    static let t0 = StoreTests.t0
    static let home = ServerFence(id: "f_home", name: "Home",
                                  shape: .circle(center: Coordinate(uncheckedLatitude: 46.05, longitude: 14.5), radiusMeters: 100))

    /// A point `second`s after t0, inside the home fence or about 1 km north of it.
    static func point(_ device: String, second: Double, inside: Bool, battery: Double = 0.5) -> Position {
        var p = StoreTests.point(device, second: second, lat: inside ? 46.05 : 46.06)
        p.batteryLevel = battery
        return p
    }

    /// What a test compares: the counts, the events without their ids, and the points stored, in time order.
    struct Summary: Equatable {
        var stored: Int, duplicates: Int, gapsStored: Int, deviceEventsStored: Int
        var events: [String]
        var newPositions: [Position]

        init(_ outcome: IngestOutcome) {
            stored = outcome.stored
            duplicates = outcome.duplicates
            gapsStored = outcome.gapsStored
            deviceEventsStored = outcome.deviceEventsStored
            events = outcome.events.map { "\($0.event.deviceID) \($0.event.fenceID) \($0.event.kind.rawValue) \($0.event.timestamp.timeIntervalSince1970)" }
            newPositions = outcome.newPositions.sorted { $0.timestampMillis < $1.timestampMillis }
        }
    }

    /// Runs `body` on a fresh PostgreSQL store with devices "a" and "b", a revoked device "r" and the home
    /// fence; `body` gets the store and the devices' ids by name.
    static func withPrepared<T: Sendable>(_ body: (PostgresStore, [String: String]) async throws -> T) async throws -> T {
        try await StoreKind.postgres.withStore { store in
            let store = try #require(store as? PostgresStore)
            var ids: [String: String] = [:]
            for name in ["a", "b", "r"] {
                let device = DeviceRecord(id: "d_\(name)", name: name, createdAt: t0)
                try await store.insertDevice(device, tokenHash: "hash-\(name)")
                ids[name] = device.id
            }
            _ = try await store.revokeDevice(id: "d_r", at: t0)
            try await store.upsertFences([home], at: t0)
            return try await body(store, ids)
        }
    }

    @Test("a group's outcomes, stored points, gaps, device events and fence states equal those of its requests committed one by one")
    func groupEqualsSerial() async throws {
        func write(_ device: String, _ points: [Position], second: Double, gaps: [PositionGap] = [],
                   events: [DeviceEventRecord] = []) -> IngestWrite {
            IngestWrite(deviceID: device, positions: points, receivedAt: Self.t0.addingTimeInterval(second), gaps: gaps,
                        deviceEvents: events)
        }
        func writes(_ id: [String: String]) -> [IngestWrite] {
            let (a, b, r) = (id["a"]!, id["b"]!, id["r"]!)
            let gap = PositionGap(deviceID: a, start: Self.t0.addingTimeInterval(11), end: Self.t0.addingTimeInterval(19), reason: "tunnel")
            let battery = DeviceEventRecord(deviceID: b, kind: "status", time: Self.t0.addingTimeInterval(9),
                                            receivedAt: Self.t0.addingTimeInterval(102), detail: "battery low")
            return [
                // a enters; the points arrive out of order; a gap marker with them.
                write(a, [Self.point(a, second: 20, inside: true), Self.point(a, second: 10, inside: false)], second: 100, gaps: [gap]),
                // A revoked device: refused, nothing of it stored.
                write(r, [Self.point(r, second: 10, inside: true)], second: 101),
                write(b, [Self.point(b, second: 10, inside: true)], second: 102, events: [battery]),
                // a again: second 20 is a's duplicate (different values: the first request's stay); a leaves at 30;
                // the gap again (absorbed).
                write(a, [Self.point(a, second: 20, inside: false), Self.point(a, second: 30, inside: false)], second: 103, gaps: [gap]),
                // A duplicate inside one request, and of the previous request; a enters again at 40.
                write(a, [Self.point(a, second: 30, inside: true), Self.point(a, second: 40, inside: true),
                          Self.point(a, second: 40, inside: false)], second: 104),
                // b's device event again (absorbed), and a point older than b's last (stored, not evaluated).
                write(b, [Self.point(b, second: 5, inside: false)], second: 105, events: [battery]),
            ]
        }
        // After the group, one more request per device, each alone: its events show the fence states the
        // group saved (a is inside since 40, b since 10; both leave).
        func after(_ id: [String: String]) -> [IngestWrite] {
            [write(id["a"]!, [Self.point(id["a"]!, second: 60, inside: false)], second: 200),
             write(id["b"]!, [Self.point(id["b"]!, second: 70, inside: false)], second: 201)]
        }
        // The same requests, one transaction each, on a store of their own.
        let serial: ([Summary?], [Position], [String], [Summary]) = try await Self.withPrepared { store, id async throws in
            var summaries: [Summary?] = []
            for write in writes(id) {
                do { summaries.append(Summary(try await store.ingestAlone(write))) } catch { summaries.append(nil) }
            }
            let stored = try await Self.everything(store, id), states = try await Self.fenceStates(store)
            var later: [Summary] = []
            for write in after(id) { later.append(Summary(try await store.ingestAlone(write))) }
            return (summaries, stored, states, later)
        }
        try await Self.withPrepared { store, id async throws in
            let results = await store.commitGroup(writes(id))
            let summaries = results.map { try? Summary($0.get()) }
            #expect(summaries == serial.0)
            #expect(summaries.compactMap { $0 }.count == 5, "all but the revoked device's request are stored")
            #expect(summaries.map { $0?.events.count } == [1, nil, 1, 1, 1, 0])
            #expect(summaries.map { $0?.gapsStored } == [1, nil, 0, 0, 0, 0])
            #expect(summaries.map { $0?.deviceEventsStored } == [0, nil, 1, 0, 0, 0])
            // Event ids ascend in arrival order.
            let ids = results.flatMap { (try? $0.get())?.events.map(\.id) ?? [] }
            #expect(ids.count == 4 && ids == ids.sorted())
            if case .failure(let error as ServerError) = results[1] { #expect(error.code == .unauthorized) } else {
                Issue.record("the revoked device's request must fail with 401: \(results[1])")
            }
            #expect(try await Self.everything(store, id) == serial.1)
            let states = try await Self.fenceStates(store)
            #expect(states == serial.2 && states.count == 2, "the saved fence states are the same")
            var later: [Summary] = []
            for write in after(id) { later.append(Summary(try await store.ingestAlone(write))) }
            #expect(later == serial.3 && later.map(\.events.count) == [1, 1])
            let counts = store.groupCommitTotals
            #expect(counts.groups == 1 && counts.requests == 6 && counts.fallbacks == 0)
        }
    }

    @Test("points of ended days already in two devices' chunks are absorbed by one group, as by single requests")
    func compactedPointsInGroup() async throws {
        try await Self.withPrepared { store, id async throws in
            let (a, b) = (id["a"]!, id["b"]!)
            // t0 is in 2023: these days have ended, so compaction moves the points into chunks.
            for device in [a, b] {
                _ = try await store.ingestAlone(IngestWrite(deviceID: device, idempotencyKey: "first",
                    positions: (1...3).map { Self.point(device, second: Double($0), inside: false) }, receivedAt: Self.t0))
            }
            #expect(try await store.compactHistory(before: Date()) == 6)
            let results = await store.commitGroup([
                IngestWrite(deviceID: a, positions: [Self.point(a, second: 2, inside: false), Self.point(a, second: 4, inside: false)],
                            receivedAt: Self.t0),
                IngestWrite(deviceID: b, positions: [Self.point(b, second: 3, inside: false)], receivedAt: Self.t0),
                IngestWrite(deviceID: a, positions: [Self.point(a, second: 1, inside: false)], receivedAt: Self.t0),
            ])
            #expect(results.map { (try? $0.get()).map { [$0.stored, $0.duplicates] } } == [[1, 1], [0, 1], [0, 1]])
            #expect(try await store.positions(PositionQuery(deviceID: a)).map(\.timestampMillis)
                    == [1, 2, 3, 4].map { Self.t0.addingTimeInterval(Double($0)).millisecondsSince1970 })
            #expect(try await store.positions(PositionQuery(deviceID: b)).count == 3)
            #expect(store.groupCommitTotals.groups == 1)
        }
    }

    @Test("a request that cannot be stored fails alone; the other requests of its group are committed")
    func failingRequestFailsAlone() async throws {
        try await Self.withPrepared { store, id async throws in
            let (a, b) = (id["a"]!, id["b"]!)
            // A battery above 100% breaks a table constraint, which aborts the group's transaction.
            let writes = [
                IngestWrite(deviceID: a, positions: [Self.point(a, second: 1, inside: true)], receivedAt: Self.t0),
                IngestWrite(deviceID: b, positions: [Self.point(b, second: 1, inside: true),
                                                     Self.point(b, second: 2, inside: true, battery: 2)], receivedAt: Self.t0),
                IngestWrite(deviceID: a, positions: [Self.point(a, second: 2, inside: false)], receivedAt: Self.t0),
            ]
            let results = await store.commitGroup(writes)
            #expect((try? results[0].get())?.stored == 1)
            #expect((try? results[2].get())?.stored == 1)
            #expect((try? results[2].get())?.events.map(\.event.kind) == [.exit])
            if case .failure(let error as ServerError) = results[1] { #expect(error.code == .storage) } else {
                Issue.record("the broken request must fail: \(results[1])")
            }
            #expect(try await store.positions(PositionQuery(deviceID: a)).count == 2)
            #expect(try await store.positions(PositionQuery(deviceID: b)).isEmpty, "nothing of the failed request is stored")
            let counts = store.groupCommitTotals
            #expect(counts.groups == 0 && counts.fallbacks == 1)
        }
    }

    @Test("requests queued behind busy committers are committed together, each answered with its own outcome")
    func concurrentRequestsShareCommits() async throws {
        try await Self.withPrepared { store, id async throws in
            let a = id["a"]!
            _ = try await store.ingest(IngestWrite(deviceID: a, positions: [Self.point(a, second: 0, inside: false)], receivedAt: Self.t0))
            let requests = 40
            // Hold device a's fence state row: every group of a's requests waits for it, so the requests arriving
            // meanwhile queue behind the committers instead of each getting a transaction.
            let tasks = try await store.client.withTransaction(logger: store.logger) { blocker in
                try await blocker.query("SELECT 1 FROM fence_states WHERE device_id = \(a) FOR UPDATE", logger: store.logger)
                let tasks = (1...requests).map { n in
                    Task {
                        try await store.ingest(IngestWrite(deviceID: a, positions: [Self.point(a, second: Double(n), inside: n > 20)],
                                                           receivedAt: Self.t0))
                    }
                }
                // Every request is in the store's hands before the lock goes (at the end of this transaction).
                await store.groups.waitUntilAdmitted(requests + 1)
                return tasks
            }
            var outcomes: [IngestOutcome] = []
            for task in tasks { outcomes.append(try await task.value) }
            #expect(outcomes.count == requests && outcomes.allSatisfy { $0.stored == 1 && $0.duplicates == 0 })
            // Each request is answered with its own outcome: the point it sent.
            #expect(outcomes.enumerated().allSatisfy { n, outcome in
                outcome.newPositions.map(\.timestampMillis) == [Self.t0.addingTimeInterval(Double(n + 1)).millisecondsSince1970]
            })
            #expect(outcomes.flatMap(\.events).map(\.event.kind) == [.enter], "one entry, whichever inside point came first")
            #expect(try await store.positions(PositionQuery(deviceID: a)).count == requests + 1)
            let counts = store.groupCommitTotals
            #expect(counts.requests == requests + 1)
            // At most `groupCommitters` groups were taken before the lock was released, and as many after.
            #expect(counts.groups <= 1 + 2 * PostgresStore.groupCommitters, "\(counts.groups) groups for \(requests) requests")
        }
    }

    @Test("#33: today's point-only requests of a group are one statement, as if committed one by one; a fence sends them through the transaction")
    func oneStatementEqualsSerial() async throws {
        // Today's points (the one-statement path takes only points no chunk can hold yet), a minute into the day.
        let today = Date(millisecondsSince1970: PostgresStore.dayStart(Date().millisecondsSince1970) + 60_000)
        func point(_ device: String, _ second: Double, battery: Double = 0.5) -> Position {
            var p = Self.point(device, second: 0, inside: true, battery: battery)
            p.fix.timestamp = today.addingTimeInterval(second)
            return p
        }
        func writes(_ id: [String: String]) -> [IngestWrite] {
            let (a, b, r) = (id["a"]!, id["b"]!, id["r"]!)
            return [
                IngestWrite(deviceID: a, positions: [point(a, 2), point(a, 1)], receivedAt: today),
                IngestWrite(deviceID: r, positions: [point(r, 1)], receivedAt: today),               // revoked: 401
                IngestWrite(deviceID: b, positions: [point(b, 1)], receivedAt: today),
                // a's second 2 again, with another battery: the first request's point stays.
                IngestWrite(deviceID: a, positions: [point(a, 2, battery: 0.9), point(a, 3), point(a, 3)], receivedAt: today),
            ]
        }
        func prepared<T: Sendable>(fence: Bool, _ body: (PostgresStore, [String: String]) async throws -> T) async throws -> T {
            try await Self.withPrepared { store, id in
                if !fence { _ = try await store.deleteFence(id: Self.home.id) }
                return try await body(store, id)
            }
        }
        let serial: ([Summary?], [Position]) = try await prepared(fence: false) { store, id async throws in
            var summaries: [Summary?] = []
            for write in writes(id) {
                do { summaries.append(Summary(try await store.ingestAlone(write))) } catch { summaries.append(nil) }
            }
            return (summaries, try await Self.everything(store, id))
        }
        #expect(serial.0.map { $0.map { [$0.stored, $0.duplicates] } } == [[2, 0], nil, [1, 0], [1, 2]])
        try await prepared(fence: false) { store, id async throws in
            let results = await store.commitGroup(writes(id))
            #expect(results.map { try? Summary($0.get()) } == serial.0)
            if case .failure(let error as ServerError) = results[1] { #expect(error.code == .unauthorized) } else {
                Issue.record("the revoked device's request must fail with 401: \(results[1])")
            }
            #expect(try await Self.everything(store, id) == serial.1)
            #expect(store.oneStatementGroups == 1 && store.groupCommitTotals.groups == 1)
        }
        // With the home fence (every point is inside it): the transaction path, which evaluates the fences.
        try await prepared(fence: true) { store, id async throws in
            let results = await store.commitGroup(writes(id))
            #expect(results.map { (try? $0.get())?.events.map(\.event.kind) } == [[.enter], nil, [.enter], []])
            #expect(try await Self.everything(store, id) == serial.1)
            #expect(store.oneStatementGroups == 0 && store.groupCommitTotals.groups == 1)
        }
    }

    /// Every device's saved fence state row, as text, by device.
    static func fenceStates(_ store: PostgresStore) async throws -> [String] {
        try await store.client.query("""
            SELECT device_id, last_ts, last_lat, last_lon, inside, dwelled FROM fence_states ORDER BY device_id
            """, logger: store.logger).collect().map { row in
                let (device, ts, lat, lon, inside, dwelled) = try row.decode((String, Int64?, Double?, Double?, String, String).self)
                return "\(device) \(ts.map(String.init) ?? "-") \(lat.map { "\($0)" } ?? "-") \(lon.map { "\($0)" } ?? "-") \(inside) \(dwelled)"
            }
    }

    /// Every stored position of the devices in `id`, device by device in time order.
    static func everything(_ store: PostgresStore, _ id: [String: String]) async throws -> [Position] {
        var all: [Position] = []
        for device in id.values.sorted() { all += try await store.positions(PositionQuery(deviceID: device)) }
        return all
    }
}
