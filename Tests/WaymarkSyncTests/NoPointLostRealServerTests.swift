import Foundation
import HTTPTypes
import Logging
import NIOCore
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkServer
import WaymarkServerTesting
import WaymarkSimulator
@testable import WaymarkSync

/// The no-point-lost acceptance against Waymark's own server (test audit, issue #36 item 1): the
/// real app records a commute in the simulator through kills, relaunches, suspensions, a tunnel and
/// offline windows, and its upload queue sends over real HTTP to a fault-injecting front whose
/// batches go to `TrackingServer.makeRouter` over a real store (SQLite; PostgreSQL too when
/// `WAYMARK_TEST_POSTGRES_URL` is set). The front answers 5xx before the server sees a batch, and
/// drops or holds the server's reply after it committed; everything else is the server's own ingest:
/// idempotency keys, gap markers, the group commit. At the end, the server's stored points and gap
/// markers must equal what the tracker recorded, and its device-reported geofence events what the
/// engine decided (0 lost, 0 duplicated), schedule by schedule.
@Suite("No point lost against Waymark's own server (router and store behind a fault-injecting front)")
struct NoPointLostRealServerTests {
    static let schedules = Int(ProcessInfo.processInfo.environment["WAYMARK_REAL_SERVER_SCHEDULES"] ?? "") ?? 200

    enum StoreChoice: String, CaseIterable, Sendable {
        case sqlite, postgres
    }

    static let postgresURL: String? = ProcessInfo.processInfo.environment["WAYMARK_TEST_POSTGRES_URL"].flatMap {
        $0.isEmpty ? nil : $0
    }
    static let stores: [StoreChoice] = postgresURL == nil ? [.sqlite] : [.sqlite, .postgres]

    /// Runs `body` with a fresh, migrated store, removed afterwards.
    static func withStore<T: Sendable>(_ choice: StoreChoice, _ body: @Sendable (any Store) async throws -> T) async throws -> T {
        switch choice {
        case .sqlite:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-npl-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let store = try SQLiteStore(path: folder.appendingPathComponent("server.sqlite").path)
            try await store.migrate()
            return try await body(store)
        case .postgres:
            let url = try #require(postgresURL)
            let schema = "npl_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            var logger = Logger(label: "waymark.test.postgres")
            logger.logLevel = .error
            let admin = try PostgresStore(url: url, logger: logger)
            let store = try PostgresStore(url: url + (url.contains("?") ? "&" : "?") + "search_path=" + schema, logger: logger)
            return try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await admin.run() }
                group.addTask { await store.run() }
                defer { group.cancelAll() }
                try await admin.execute(unsafeSQL: "CREATE SCHEMA \(schema)")
                do {
                    try await store.migrate()
                    let result = try await body(store)
                    try await admin.execute(unsafeSQL: "DROP SCHEMA \(schema) CASCADE")
                    return result
                } catch {
                    try? await admin.execute(unsafeSQL: "DROP SCHEMA \(schema) CASCADE")
                    throw error
                }
            }
        }
    }

    struct Outcome: Sendable {
        var seed: UInt64
        var recorded: Int
        var gaps: Int
        var requests: Int
        var missing: Int
        var extra: Int
        var serverCount: Int
        var gapsMatch: Bool
        var leftOnDevice: Int
        /// Geofence events the engine decided, those missing on the server, and those stored more than once.
        var fenceEvents = 0, eventsMissing = 0, eventsDuplicated = 0
        var eventsLeftOnDevice = 0
    }

    @Test("seeded fault schedules on each store: the server's stored points and gap markers equal what the tracker recorded",
          arguments: stores)
    func trackerPointsReachWaymarkServer(store choice: StoreChoice) async throws {
        let result = try await Self.runSchedules(choice, count: Self.schedules, startsRide: true)
        let (outcomes, faults) = result
        #expect(outcomes.count == Self.schedules)
        for outcome in outcomes.sorted(by: { $0.seed < $1.seed }) {
            #expect(outcome.recorded > 0, "seed \(outcome.seed): the tracker recorded nothing")
            #expect(outcome.missing == 0 && outcome.extra == 0 && outcome.serverCount == outcome.recorded,
                    "seed \(outcome.seed): \(outcome.missing) recorded points missing on the server, \(outcome.extra) extra, \(outcome.serverCount) stored of \(outcome.recorded)")
            #expect(outcome.gapsMatch, "seed \(outcome.seed): the server's gap markers differ from the tracker's")
            #expect(outcome.leftOnDevice == 0, "seed \(outcome.seed): \(outcome.leftOnDevice) fixes left on the device")
            #expect(outcome.eventsMissing == 0 && outcome.eventsDuplicated == 0 && outcome.eventsLeftOnDevice == 0,
                    """
                    seed \(outcome.seed): of \(outcome.fenceEvents) geofence events \(outcome.eventsMissing) missing on the server, \
                    \(outcome.eventsDuplicated) stored twice, \(outcome.eventsLeftOnDevice) left on the device
                    """)
        }
        #expect(outcomes.reduce(0) { $0 + $1.fenceEvents } >= 2 * outcomes.count,
                "the engine decided geofence events in the schedules (home exit, office enter at least)")
        #expect(outcomes.reduce(0) { $0 + $1.gaps } > 0, "some schedules left gap markers (kills, the tunnel)")
        #expect(faults["dropAfterCommit", default: 0] > 0 && faults.keys.contains { $0.hasPrefix("5") },
                "the front injected drops after commit and 5xx: \(faults)")
        print("no-point-lost (Waymark's server, \(choice.rawValue)): \(outcomes.count) schedules, "
              + "\(outcomes.reduce(0) { $0 + $1.recorded }) tracker points stored once, "
              + "\(outcomes.reduce(0) { $0 + $1.gaps }) gap markers, "
              + "\(outcomes.reduce(0) { $0 + $1.fenceEvents }) device geofence events stored once, "
              + "\(outcomes.reduce(0) { $0 + $1.requests }) requests, "
              + "faults \(faults.sorted { $0.key < $1.key })")
    }

    /// Plays `count` seeded schedules (two at a time) against Waymark's router over a fresh store of `choice`,
    /// behind the fault-injecting front; returns each schedule's comparison and the faults injected.
    static func runSchedules(_ choice: StoreChoice, count: Int, startsRide: Bool) async throws -> ([Outcome], [String: Int]) {
        let configuration = UploadQueue.Configuration(maxBatchPoints: 60, maxBatchBytes: 32 * 1024, maxBatchAge: 60,
                                                      backoffBase: 2, backoffCap: 120)
        return try await Self.withStore(choice) { store in
            try await TestTrackingServer.run(store: store) { server in
                let client = server.client
                let front = try await IngestTestServer.start(upstream: { token, key, contentType, body in
                    var headers = HTTPFields()
                    headers[.authorization] = "Bearer \(token)"
                    headers[.contentType] = contentType ?? "application/json"
                    if let key, let name = HTTPField.Name("Idempotency-Key") { headers[name] = key }
                    let response = try await client.execute(uri: "/api/ingest", method: .post, headers: headers,
                                                            body: ByteBuffer(bytes: body))
                    return (Int(response.status.code), Array(buffer: response.body))
                })
                defer { front.stop() }
                let outcomes = try await withThrowingTaskGroup(of: Outcome.self) { group in
                    var seeds = (1...UInt64(count)).makeIterator()
                    func add(_ seed: UInt64) {
                        group.addTask {
                            var run = SimulatedRideRun(seed: seed, server: front, configuration: configuration,
                                                       relaunchAfterForceQuit: true, backend: seed % 2 == 0 ? .modern : .locationManager,
                                                       startsRide: startsRide)
                            let (record, token) = try await DeviceRegistry.register(name: run.device, in: store)
                            run.token = token
                            let result = try await run.run()
                            return try await Self.compare(seed: seed, result: result, store: store, deviceID: record.id)
                        }
                    }
                    for _ in 0..<2 { if let seed = seeds.next() { add(seed) } }
                    var all: [Outcome] = []
                    while let outcome = try await group.next() {
                        if let next = seeds.next() { add(next) }
                        all.append(outcome)
                    }
                    return all
                }
                return (outcomes, await front.state.faultCounts)
            }
        }
    }

    @Test("geofences-only mode (no ride) on each store: the server holds every geofence event the engine decided, once",
          arguments: stores)
    func geofenceEventsWithoutRide(store choice: StoreChoice) async throws {
        let (outcomes, faults) = try await Self.runSchedules(choice, count: Self.schedules / 4, startsRide: false)
        #expect(outcomes.count == Self.schedules / 4)
        for outcome in outcomes.sorted(by: { $0.seed < $1.seed }) {
            #expect(outcome.recorded == 0 && outcome.serverCount == 0, "seed \(outcome.seed): no ride, no points")
            #expect(outcome.fenceEvents > 0, "seed \(outcome.seed): the engine decided no geofence event")
            #expect(outcome.eventsMissing == 0 && outcome.eventsDuplicated == 0 && outcome.eventsLeftOnDevice == 0,
                    """
                    seed \(outcome.seed): of \(outcome.fenceEvents) geofence events \(outcome.eventsMissing) missing on the server, \
                    \(outcome.eventsDuplicated) stored twice, \(outcome.eventsLeftOnDevice) left on the device
                    """)
        }
        print("no-point-lost, geofences only (Waymark's server, \(choice.rawValue)): \(outcomes.count) schedules, "
              + "\(outcomes.reduce(0) { $0 + $1.fenceEvents }) device geofence events stored once, "
              + "\(outcomes.reduce(0) { $0 + $1.requests }) requests, faults \(faults.sorted { $0.key < $1.key })")
    }

    /// The server's points and gaps for the device against what the tracker recorded.
    static func compare(seed: UInt64, result: SimulatedRideRun.Result, store: any Store, deviceID: String) async throws -> Outcome {
        func point(_ fix: Fix) -> IngestLedger.Point {
            IngestLedger.Point(timestamp: NativeBatchFormat.timestamp(fix.timestamp),
                               longitude: fix.coordinate.longitude, latitude: fix.coordinate.latitude)
        }
        let positions = try await store.positions(PositionQuery(deviceID: deviceID, limit: 100_000))
        let stored = positions.map { point($0.fix) }
        let expected = Set(result.recorded.map(point))
        let serverGaps = try await store.gaps(GapQuery(deviceID: deviceID, limit: 10_000))
        func gapKey(_ start: Date, _ end: Date, _ reason: String) -> String {
            "\(NativeBatchFormat.timestamp(start))|\(NativeBatchFormat.timestamp(end))|\(reason)"
        }
        let gapsMatch = serverGaps.count == result.gaps.count
            && Set(serverGaps.map { gapKey($0.start, $0.end, $0.reason) }) == Set(result.gaps.map { gapKey($0.start, $0.end, $0.reason.rawValue) })
        var outcome = Outcome(seed: seed, recorded: result.recorded.count, gaps: result.gaps.count, requests: result.requests,
                              missing: expected.subtracting(stored).count, extra: Set(stored).subtracting(expected).count,
                              serverCount: stored.count, gapsMatch: gapsMatch,
                              leftOnDevice: result.storeFixes + result.finalBacklog.pending.count + result.finalBacklog.quarantined)
        // Geofence events: the device-reported records on the server against what the engine decided, by
        // fence, kind, sequence and time, counted (a duplicate would show as a count of 2).
        let reported = try await store.deviceEvents(deviceID: deviceID, kind: DeviceEventRecord.deviceFenceEventKind,
                                                    afterID: 0, limit: 10_000)
        var onServer: [String: Int] = [:]
        for record in reported {
            let event = try #require(record.reportedFenceEvent, "seed \(seed): an unreadable device fence event \(record.detail)")
            let time = try #require(record.time, "seed \(seed): a device fence event without its time")
            onServer["\(event.fenceID)|\(event.event)|\(event.sequence ?? -1)|\(NativeBatchFormat.timestamp(time))", default: 0] += 1
        }
        var decided: [String: Int] = [:]
        for event in result.fenceEvents {
            decided["\(event.fenceID)|\(event.kind.rawValue)|\(event.sequence)|\(NativeBatchFormat.timestamp(event.time))", default: 0] += 1
        }
        outcome.fenceEvents = result.fenceEvents.count
        outcome.eventsMissing = decided.reduce(0) { $0 + max(0, $1.value - onServer[$1.key, default: 0]) }
        outcome.eventsDuplicated = onServer.reduce(0) { $0 + max(0, $1.value - decided[$1.key, default: 0]) }
        outcome.eventsLeftOnDevice = result.finalBacklog.unbatchedFenceEvents
        return outcome
    }
}
