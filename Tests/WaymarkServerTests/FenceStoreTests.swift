import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkServer

/// Fences stored in each store and evaluated inside the ingest transaction.
@Suite("Fences in the store")
struct FenceStoreTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)
    static let center = Coordinate(uncheckedLatitude: 46.05, longitude: 14.5)
    static let depot = ServerFence(id: "f_depot", name: "Depot", shape: .circle(center: center, radiusMeters: 100))

    static func at(_ device: String, _ second: Double, _ lat: Double, _ lon: Double = 14.5) -> Position {
        Position(deviceID: device, fix: Fix(coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon),
                                            timestamp: t0.addingTimeInterval(second)))
    }

    static func ingest(_ store: any Store, _ device: String, _ points: [Position], key: String? = nil) async throws -> IngestOutcome {
        try await store.ingest(IngestWrite(deviceID: device, idempotencyKey: key, positions: points, receivedAt: t0))
    }

    @Test("stores, replaces, lists and deletes fences", arguments: StoreKind.available)
    func crud(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let park = ServerFence(id: "f_park", name: "Park", shape: .polygon(try Polygon(exterior: [
                Coordinate(uncheckedLatitude: 46.0, longitude: 14.0), Coordinate(uncheckedLatitude: 46.0, longitude: 14.1),
                Coordinate(uncheckedLatitude: 46.1, longitude: 14.1),
            ])), dwellSeconds: 120)
            try await store.upsertFences([Self.depot, park], at: Self.t0)
            #expect(try await store.listFences() == [Self.depot, park])
            var renamed = Self.depot
            renamed.name = "Main depot"
            try await store.upsertFences([renamed], at: Self.t0)
            #expect(try await store.listFences() == [renamed, park])
            #expect(try await store.deleteFence(id: "f_depot"))
            #expect(try await store.deleteFence(id: "f_depot") == false)
            #expect(try await store.listFences() == [park])
        }
    }

    @Test("a fence added later is evaluated from the device's last stored point", arguments: StoreKind.available)
    func enterAcrossRequests(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let device = try await StoreTests.registered(store).id
            // Stored before the fence exists: no event, but it starts the next segment.
            #expect(try await Self.ingest(store, device, [Self.at(device, 0, 46.04)]).events.isEmpty)
            try await store.upsertFences([Self.depot], at: Self.t0)
            // The next request jumps across the 200 m circle: enter and exit at interpolated times.
            let outcome = try await Self.ingest(store, device, [Self.at(device, 100, 46.06)])
            #expect(outcome.events.map(\.event.kind) == [.enter, .exit])
            let enter = try #require(outcome.events.first).event.timestamp.timeIntervalSince(Self.t0)
            #expect(abs(enter - 45.5) < 0.2)
            let stored = try await store.fenceEvents(deviceID: device, afterID: 0, limit: 10)
            #expect(stored == outcome.events)
            #expect(stored.map(\.id) == stored.map(\.id).sorted())
        }
    }

    @Test("while no fence exists the state is not kept: a fence added again is evaluated from where the device is now",
          arguments: StoreKind.available)
    func stateForgottenWithoutFences(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let device = try await StoreTests.registered(store).id
            try await store.upsertFences([Self.depot], at: Self.t0)
            #expect(try await Self.ingest(store, device, [Self.at(device, 0, 46.05)]).events.map(\.event.kind) == [.enter])
            #expect(try await store.deleteFence(id: Self.depot.id))
            // Leaves while no fence exists: nothing to report.
            #expect(try await Self.ingest(store, device, [Self.at(device, 100, 46.10)]).events.isEmpty)
            try await store.upsertFences([Self.depot], at: Self.t0)
            // Back inside: an entry, judged from the last stored point (outside), not from the state of before.
            #expect(try await Self.ingest(store, device, [Self.at(device, 200, 46.05)]).events.map(\.event.kind) == [.enter])
        }
    }

    @Test("a batch causing many events stores each with the id its reply gives", arguments: StoreKind.available)
    func manyEventsOneBatch(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let device = try await StoreTests.registered(store).id
            // 40 circles 0.01° apart on a meridian; one batch walks through all of them.
            let fences = (0..<40).map { i in
                ServerFence(id: "f\(String(format: "%02d", i))", name: "", shape: .circle(
                    center: Coordinate(uncheckedLatitude: 46 + Double(i) * 0.01, longitude: 14.5), radiusMeters: 150))
            }
            try await store.upsertFences(fences, at: Self.t0)
            let walk = (0..<200).map { s in Self.at(device, Double(s), 45.995 + Double(s) * 0.002) }
            let outcome = try await Self.ingest(store, device, walk.shuffled())
            #expect(outcome.events.count == 80)
            #expect(outcome.events.map(\.event.fenceID) == fences.flatMap { [$0.id, $0.id] })
            let stored = try await store.fenceEvents(deviceID: device, afterID: 0, limit: 100)
            #expect(stored == outcome.events)
        }
    }

    @Test("a reader paging events by id while devices upload concurrently misses none", arguments: StoreKind.available)
    func eventPagingUnderConcurrency(kind: StoreKind) async throws {
        try await kind.withStore { store in
            // A row of 10 circles; every device walks up and down through all of them (2 events per fence and walk).
            let fences = (0..<10).map { i in
                ServerFence(id: "row\(i)", name: "", shape: .circle(
                    center: Coordinate(uncheckedLatitude: 46 + Double(i) * 0.01, longitude: 14.5), radiusMeters: 150))
            }
            try await store.upsertFences(fences, at: Self.t0)
            var devices: [String] = []
            for _ in 0..<6 { devices.append(try await StoreTests.registered(store).id) }
            let done = DoneFlag()
            let uploading = Task {
                defer { Task { await done.set() } }
                return try await withThrowingTaskGroup(of: Int.self) { group in
                    for device in devices {
                        group.addTask {
                            var events = 0
                            for walk in 0..<8 {
                                let points = (0..<50).map { s -> Position in
                                    let t = Double(s) / 49
                                    return Self.at(device, Double(walk * 100 + s), 45.995 + (walk % 2 == 0 ? t : 1 - t) * 0.1)
                                }
                                for chunk in stride(from: 0, to: points.count, by: 10) {
                                    events += try await Self.ingest(store, device, Array(points[chunk..<chunk + 10])).events.count
                                }
                            }
                            return events
                        }
                    }
                    return try await group.reduce(0, +)
                }
            }
            // The reader pages by id, a few events at a time, while the uploads run and until nothing is left.
            var seen: [Int64] = []
            var after: Int64 = 0
            while true {
                let finishedBefore = await done.value
                let page = try await store.fenceEvents(deviceID: nil, afterID: after, limit: 5)
                seen += page.map(\.id)
                if let last = page.last { after = last.id }
                if page.isEmpty {
                    if finishedBefore { break }
                    await Task.yield()
                }
            }
            let total = try await uploading.value
            #expect(total == 6 * 8 * 10 * 2)
            #expect(Set(seen).count == seen.count, "an event was read twice")
            #expect(seen.count == total, "a reader paging by id missed \(total - seen.count) of \(total) events")
        }
    }

    /// Set once the uploads are over.
    actor DoneFlag {
        private(set) var value = false
        func set() { value = true }
    }

    @Test("sorts an out-of-order batch by time and keeps the inside state between requests", arguments: StoreKind.available)
    func outOfOrder(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let device = try await StoreTests.registered(store).id
            try await store.upsertFences([Self.depot], at: Self.t0)
            _ = try await Self.ingest(store, device, [Self.at(device, 0, 46.06)])
            // Sent as [inside at 20 s, outside at 30 s, inside at 10 s]: evaluated as 10, 20, 30.
            let batch = [Self.at(device, 20, 46.0502), Self.at(device, 30, 46.06), Self.at(device, 10, 46.0501)]
            let first = try await Self.ingest(store, device, batch)
            #expect(first.events.map(\.event.kind) == [.enter, .exit])
            #expect(first.events.map(\.event.timestamp) == [Self.t0.addingTimeInterval(10), Self.t0.addingTimeInterval(30)])
            // Inside across a request boundary: the exit comes with the next request.
            let enter = try await Self.ingest(store, device, [Self.at(device, 40, 46.05)])
            #expect(enter.events.map(\.event.kind) == [.enter])
            let exit = try await Self.ingest(store, device, [Self.at(device, 50, 46.07)])
            #expect(exit.events.map(\.event.kind) == [.exit])
            #expect(try await store.fenceEvents(deviceID: nil, afterID: 0, limit: 100).count == 4)
        }
    }

    @Test("a replayed batch or duplicate points cause no second event", arguments: StoreKind.available)
    func noDuplicateEvents(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let device = try await StoreTests.registered(store).id
            try await store.upsertFences([Self.depot], at: Self.t0)
            let batch = [Self.at(device, 0, 46.06), Self.at(device, 10, 46.05)]
            #expect(try await Self.ingest(store, device, batch, key: "b1").events.count == 1)
            #expect(try await Self.ingest(store, device, batch, key: "b1").events.isEmpty)
            #expect(try await Self.ingest(store, device, batch).events.isEmpty)
            #expect(try await store.fenceEvents(deviceID: device, afterID: 0, limit: 10).count == 1)
        }
    }

    @Test("emits one dwell event per stay in a polygon", arguments: StoreKind.available)
    func dwell(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let device = try await StoreTests.registered(store).id
            let square = ServerFence(id: "f_sq", name: "Square", shape: .polygon(try Polygon(exterior: [
                Coordinate(uncheckedLatitude: 46.0, longitude: 14.0), Coordinate(uncheckedLatitude: 46.0, longitude: 14.01),
                Coordinate(uncheckedLatitude: 46.01, longitude: 14.01), Coordinate(uncheckedLatitude: 46.01, longitude: 14.0),
            ])), dwellSeconds: 60)
            try await store.upsertFences([square], at: Self.t0)
            let kinds = { (points: [Position]) async throws -> [ServerFenceEvent.Kind] in
                try await Self.ingest(store, device, points).events.map(\.event.kind)
            }
            #expect(try await kinds([Self.at(device, 0, 46.005, 14.005), Self.at(device, 30, 46.006, 14.005)]) == [.enter])
            #expect(try await kinds([Self.at(device, 70, 46.005, 14.006)]) == [.dwell])
            #expect(try await kinds([Self.at(device, 200, 46.005, 14.007)]) == [])
            #expect(try await kinds([Self.at(device, 300, 46.02, 14.005), Self.at(device, 310, 46.005, 14.005)]) == [.exit, .enter])
            #expect(try await kinds([Self.at(device, 400, 46.005, 14.005)]) == [.dwell])
        }
    }

    @Test("events of one device are invisible to another's query", arguments: StoreKind.available)
    func perDevice(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let a = try await StoreTests.registered(store, name: "a").id
            let b = try await StoreTests.registered(store, name: "b").id
            try await store.upsertFences([Self.depot], at: Self.t0)
            _ = try await Self.ingest(store, a, [Self.at(a, 0, 46.05)])
            _ = try await Self.ingest(store, b, [Self.at(b, 0, 46.06)])
            #expect(try await store.fenceEvents(deviceID: a, afterID: 0, limit: 10).map(\.event.deviceID) == [a])
            #expect(try await store.fenceEvents(deviceID: b, afterID: 0, limit: 10).isEmpty)
        }
    }
}
