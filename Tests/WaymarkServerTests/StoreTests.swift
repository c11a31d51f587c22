import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkServer

/// The store contract, run against every implementation (PostgreSQL when configured).
@Suite("Store")
struct StoreTests {
    /// An outcome's stored and duplicate counts and replay flag.
    static func counts(_ outcome: IngestOutcome) -> (Int, Int, Bool) { (outcome.stored, outcome.duplicates, outcome.replayed) }

    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    static func point(_ device: String, second: Double, lat: Double = 46.05, lon: Double = 14.5) -> Position {
        Position(deviceID: device,
                 fix: Fix(coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon), altitude: 300,
                          horizontalAccuracy: 5, speed: 3.5, course: 90,
                          timestamp: t0.addingTimeInterval(second), source: .gnss),
                 batteryLevel: 0.5, isCharging: false, activity: "walking")
    }

    static func registered(_ store: any Store, name: String = "phone") async throws -> DeviceRecord {
        try await DeviceRegistry.register(name: name, in: store, at: t0).device
    }

    @Test("the PostgreSQL store suite is configured", .enabled(if: StoreKind.postgresURL != nil, StoreKind.skipMessage))
    func postgresConfigured() async throws {
        let migratedTwice = try await StoreKind.postgres.withStore { store in
            try await store.migrate()
            return true
        }
        #expect(migratedTwice)
    }

    @Test("stores every field of a position and reads it back", arguments: StoreKind.available)
    func roundTrip(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let device = try await Self.registered(store)
            var p = Self.point(device.id, second: 0.123)
            p.fix.verticalAccuracy = 3
            let outcome = try await store.ingest(IngestWrite(deviceID: device.id, positions: [p], receivedAt: Self.t0))
            #expect(Self.counts(outcome) == (1, 0, false))
            let read = try await store.positions(PositionQuery(deviceID: device.id))
            #expect(read == [p])
            #expect(read.first?.fix.timestamp.timeIntervalSince1970 == 1_700_000_000.123)
            let sparse = Position(deviceID: device.id, fix: Fix(coordinate: Coordinate(uncheckedLatitude: -33.9, longitude: 151.2),
                                                               timestamp: Self.t0.addingTimeInterval(10)))
            _ = try await store.ingest(IngestWrite(deviceID: device.id, positions: [sparse], receivedAt: Self.t0))
            #expect(try await store.lastPosition(deviceID: device.id) == sparse)
        }
    }

    @Test("absorbs duplicates of the same device and millisecond, within and across requests", arguments: StoreKind.available)
    func duplicates(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let device = try await Self.registered(store)
            let other = try await Self.registered(store, name: "other")
            let a = Self.point(device.id, second: 1), b = Self.point(device.id, second: 2)
            let first = try await store.ingest(IngestWrite(deviceID: device.id, positions: [a, b, a], receivedAt: Self.t0))
            #expect(Self.counts(first) == (2, 1, false))
            let again = try await store.ingest(IngestWrite(deviceID: device.id, positions: [b, Self.point(device.id, second: 3)],
                                                           receivedAt: Self.t0))
            #expect(Self.counts(again) == (1, 1, false))
            #expect(first.newPositions.count == 2)
            #expect(again.newPositions.map(\.fix.timestamp) == [Self.point(device.id, second: 3).fix.timestamp],
                    "only the newly stored point is reported for the live stream")
            // The same timestamp on another device is not a duplicate.
            var otherPoint = a
            otherPoint.deviceID = other.id
            let third = try await store.ingest(IngestWrite(deviceID: other.id, positions: [otherPoint], receivedAt: Self.t0))
            #expect(third.stored == 1)
            #expect(try await store.positions(PositionQuery(deviceID: device.id)).count == 3)
        }
    }

    @Test("acknowledges a replayed idempotency key without storing anything", arguments: StoreKind.available)
    func idempotentReplay(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let device = try await Self.registered(store)
            let batch = (0..<5).map { Self.point(device.id, second: Double($0)) }
            let first = try await store.ingest(IngestWrite(deviceID: device.id, idempotencyKey: "batch-1",
                                                           positions: batch, receivedAt: Self.t0))
            #expect(Self.counts(first) == (5, 0, false))
            // The replay carries a point that was never stored: it must still not be stored.
            let replay = try await store.ingest(IngestWrite(deviceID: device.id, idempotencyKey: "batch-1",
                                                            positions: batch + [Self.point(device.id, second: 99)],
                                                            receivedAt: Self.t0))
            #expect(Self.counts(replay) == (5, 0, true))
            #expect(replay.newPositions.isEmpty, "a replay stores, counts and streams nothing")
            #expect(try await store.positions(PositionQuery(deviceID: device.id)).count == 5)
        }
    }

    @Test("old idempotency keys are forgotten; a later replay is absorbed as duplicates", arguments: StoreKind.available)
    func idempotencyRetention(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let device = try await Self.registered(store)
            let batch = (0..<5).map { Self.point(device.id, second: Double($0)) }
            _ = try await store.ingest(IngestWrite(deviceID: device.id, idempotencyKey: "old", positions: batch, receivedAt: Self.t0))
            _ = try await store.ingest(IngestWrite(deviceID: device.id, idempotencyKey: "new", positions: [Self.point(device.id, second: 50)],
                                                   receivedAt: Self.t0.addingTimeInterval(40 * 86_400)))
            // 30 days' retention, pruned at day 41: only the first key goes.
            let service = RetentionService(store: store, retentionSeconds: 30 * 86_400,
                                           clock: { Self.t0.addingTimeInterval(41 * 86_400) })
            #expect(try await service.pruneOnce() == 1)
            #expect(try await service.pruneOnce() == 0)
            let late = try await store.ingest(IngestWrite(deviceID: device.id, idempotencyKey: "old", positions: batch,
                                                          receivedAt: Self.t0.addingTimeInterval(41 * 86_400)))
            #expect(Self.counts(late) == (0, 5, false), "no longer a replay, but nothing is stored twice")
            let recent = try await store.ingest(IngestWrite(deviceID: device.id, idempotencyKey: "new", positions: [],
                                                            receivedAt: Self.t0.addingTimeInterval(41 * 86_400)))
            #expect(recent.replayed, "a key inside the retention is still answered as a replay")
            #expect(try await store.positions(PositionQuery(deviceID: device.id)).count == 6)
        }
    }

    @Test("stores concurrent uploads of the same points exactly once", arguments: StoreKind.available)
    func concurrentUploads(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let device = try await Self.registered(store)
            let points = (0..<200).map { Self.point(device.id, second: Double($0)) }
            let outcomes = try await withThrowingTaskGroup(of: IngestOutcome.self) { group in
                for upload in 0..<8 {
                    // Half the uploads share one idempotency key; all share the points.
                    let key = upload.isMultiple(of: 2) ? "shared" : nil
                    group.addTask {
                        try await store.ingest(IngestWrite(deviceID: device.id, idempotencyKey: key,
                                                           positions: points.shuffled(), receivedAt: Self.t0))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter { !$0.replayed }.map(\.stored).reduce(0, +) == 200)
            #expect(outcomes.filter(\.replayed).count == 3)
            #expect(try await store.positions(PositionQuery(deviceID: device.id, limit: 1000)).count == 200)
        }
    }

    @Test("writes nothing when any part of a request fails", arguments: StoreKind.available)
    func atomicity(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let device = try await Self.registered(store)
            // The third point breaks a table constraint (battery above 100%): the whole request fails.
            var broken = Self.point(device.id, second: 3)
            broken.batteryLevel = 2
            let points = [Self.point(device.id, second: 1), Self.point(device.id, second: 2), broken]
            await #expect(throws: ServerError.self) {
                try await store.ingest(IngestWrite(deviceID: device.id, idempotencyKey: "k", positions: points,
                                                   receivedAt: Self.t0))
            }
            #expect(try await store.positions(PositionQuery(deviceID: device.id)).isEmpty)
            // The key was not consumed: a corrected retry with the same key is stored.
            broken.batteryLevel = 1
            let retry = try await store.ingest(IngestWrite(deviceID: device.id, idempotencyKey: "k",
                                                           positions: Array(points.prefix(2)) + [broken], receivedAt: Self.t0))
            #expect(Self.counts(retry) == (3, 0, false))
        }
    }

    @Test("pages through positions by key with from, to and a cursor", arguments: StoreKind.available)
    func keysetPagination(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let device = try await Self.registered(store)
            let points = (0..<25).map { Self.point(device.id, second: Double($0) * 60) }
            _ = try await store.ingest(IngestWrite(deviceID: device.id, positions: points.reversed(), receivedAt: Self.t0))
            var seen: [Position] = []
            var cursor: Int64?
            repeat {
                let page = try await store.positions(PositionQuery(deviceID: device.id, afterMillis: cursor, limit: 10))
                seen += page
                cursor = page.count == 10 ? page.last?.timestampMillis : nil
            } while cursor != nil
            #expect(seen == points)
            let window = try await store.positions(PositionQuery(deviceID: device.id, from: Self.t0.addingTimeInterval(120),
                                                                 to: Self.t0.addingTimeInterval(300)))
            #expect(window.map(\.fix.timestamp) == [2, 3, 4].map { Self.t0.addingTimeInterval(Double($0) * 60) })
        }
    }

    @Test("registers, finds by token digest, lists and revokes devices", arguments: StoreKind.available)
    func devices(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (a, tokenA) = try await DeviceRegistry.register(name: "  Ana's phone ", in: store, at: Self.t0)
            let (b, _) = try await DeviceRegistry.register(name: "Bike", in: store, at: Self.t0.addingTimeInterval(1))
            #expect(a.name == "Ana's phone")
            #expect(try await store.listDevices() == [a, b])
            #expect(try await store.device(tokenHash: TokenHasher.digest(tokenA)) == a)
            #expect(try await store.device(tokenHash: TokenHasher.digest("wmd_guess")) == nil)
            try await DeviceRegistry.revoke(id: a.id, in: store, at: Self.t0.addingTimeInterval(5))
            #expect(try await store.device(id: a.id)?.revokedAt == Self.t0.addingTimeInterval(5))
            await #expect(throws: ServerError.self) { try await DeviceRegistry.revoke(id: "d_nope", in: store) }
        }
    }

    @Test("keeps the first admin token when several processes generate one", arguments: StoreKind.available)
    func adminToken(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let first = try await AdminToken.establish(in: store, environmentToken: nil)
            let second = try await AdminToken.establish(in: store, environmentToken: nil)
            let token = try #require(first.newToken)
            #expect(second.newToken == nil)
            #expect(second.digest == first.digest)
            #expect(TokenHasher.matches(token, digest: second.digest))
            let fromEnvironment = try await AdminToken.establish(in: store, environmentToken: "secret-admin-token-0123456789")
            #expect(fromEnvironment.digest == TokenHasher.digest("secret-admin-token-0123456789"))
        }
    }

    @Test("device events commit with the request, a resent copy is absorbed, and they page by id", arguments: StoreKind.available)
    func deviceEvents(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let device = try await Self.registered(store)
            let status = DeviceEventRecord(deviceID: device.id, kind: "owntracks.status", time: Self.t0, receivedAt: Self.t0,
                                     detail: #"{"android":{"hib":1}}"#)
            let untimed = DeviceEventRecord(deviceID: device.id, kind: "owntracks.encrypted", time: nil, receivedAt: Self.t0,
                                      detail: #"{"data":"AAAA"}"#)
            let first = try await store.ingest(IngestWrite(deviceID: device.id, positions: [Self.point(device.id, second: 1)],
                                                           receivedAt: Self.t0, deviceEvents: [status, untimed, status]))
            #expect(first.stored == 1 && first.deviceEventsStored == 2)
            let again = try await store.ingest(IngestWrite(deviceID: device.id, positions: [], receivedAt: Self.t0.addingTimeInterval(5),
                                                           deviceEvents: [untimed]))
            #expect(again.deviceEventsStored == 0)
            let all = try await store.deviceEvents(deviceID: device.id, afterID: 0, limit: 10)
            #expect(all.map(\.kind) == ["owntracks.status", "owntracks.encrypted"])
            #expect(all.first?.time == Self.t0 && all.last?.time == nil && all.last?.detail == #"{"data":"AAAA"}"#)
            #expect(all.first?.receivedAt == Self.t0 && all.first.map { $0.id > 0 } == true)
            let page = try await store.deviceEvents(deviceID: device.id, afterID: all[0].id, limit: 10)
            #expect(page == [all[1]])
        }
    }

    @Test("a revoked device's write stores nothing and is refused", arguments: StoreKind.available)
    func revokedDeviceWrite(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let device = try await Self.registered(store)
            #expect(try await store.revokeDevice(id: device.id, at: Self.t0))
            let fence = ServerFence(id: "f_home", name: "Home", shape: .circle(center: Coordinate(uncheckedLatitude: 46.05, longitude: 14.5),
                                                                      radiusMeters: 100))
            // Without fences, with an idempotency key, and with a fence (each store checks on each path).
            for (key, withFence) in [(nil, false), ("k1", false), (nil, true)] as [(String?, Bool)] {
                if withFence { try await store.upsertFences([fence], at: Self.t0) }
                do {
                    _ = try await store.ingest(IngestWrite(deviceID: device.id, idempotencyKey: key,
                                                           positions: [Self.point(device.id, second: 1)], receivedAt: Self.t0))
                    Issue.record("the write of a revoked device was committed")
                } catch let error as ServerError {
                    #expect(error.code == .unauthorized)
                }
            }
            #expect(try await store.positions(PositionQuery(deviceID: device.id)).isEmpty)
        }
    }

    @Test("lastPositions gives every device's latest position in one call, and none for a device without one",
          arguments: StoreKind.available)
    func lastPositions(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let a = try await Self.registered(store, name: "a"), b = try await Self.registered(store, name: "b")
            _ = try await Self.registered(store, name: "silent")
            _ = try await store.ingest(IngestWrite(deviceID: a.id, positions: [Self.point(a.id, second: 5), Self.point(a.id, second: 9),
                                                                               Self.point(a.id, second: 7)], receivedAt: Self.t0))
            _ = try await store.ingest(IngestWrite(deviceID: b.id, positions: [Self.point(b.id, second: 1)], receivedAt: Self.t0))
            let lasts = try await store.lastPositions()
            #expect(Set(lasts.keys) == [a.id, b.id])
            #expect(lasts[a.id] == Self.point(a.id, second: 9) && lasts[b.id] == Self.point(b.id, second: 1))
            #expect(lasts[a.id] == (try await store.lastPosition(deviceID: a.id)))
        }
    }
}
