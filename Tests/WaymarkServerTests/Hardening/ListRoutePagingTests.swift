import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import WaymarkGeo
@testable import WaymarkServer

/// The list routes that were unpaged or built their replies whole (#35): devices, fences, fence events, webhooks
/// and webhook deliveries each come in pages with a hard maximum and a cursor that continues them.
@Suite("Hardening 2: every list route is paged")
struct ListRoutePagingTests {
    /// Follows a route's cursor from the first page to the last; returns each page's entries.
    static func pages(_ server: TestServer, _ path: String, list: String, cursor: String, parameter: String,
                      token: String = TestServer.adminToken, maxPages: Int = 20) async throws -> [[[String: Any]]] {
        var pages: [[[String: Any]]] = []
        var next: String?
        repeat {
            let separator = path.contains("?") ? "&" : "?"
            let uri = path + (next.map { separator + parameter + "=" + $0 } ?? "")
            let reply = try await server.send(.get, uri, token: token)
            #expect(reply.status == .ok, "\(uri): \(reply.text.prefix(200))")
            let json = try reply.json()
            pages.append(try #require(json[list] as? [[String: Any]], "\(uri): \(reply.text.prefix(200))"))
            switch json[cursor] {
            case let text as String: next = text
            case let number as Int: next = String(number)
            case is NSNull, nil: next = nil
            default: Issue.record("\(cursor) is neither a cursor nor null"); next = nil
            }
        } while next != nil && pages.count < maxPages
        return pages
    }

    @Test("GET /api/devices pages by id with next_after; limit is 1…1000; a device sees only itself",
          arguments: StoreKind.available)
    func devicesPaged(kind: StoreKind) async throws {
        // Before: every device in one reply, `limit` ignored.
        try await TestServer.run(kind) { server in
            for k in 0..<6 { _ = try await DeviceRegistry.register(name: "pager \(k)", in: server.store) }
            let pages = try await Self.pages(server, "/api/devices?limit=3", list: "devices", cursor: "next_after", parameter: "after")
            #expect(pages.map(\.count) == [3, 3, 1])
            let ids = pages.flatMap { $0.compactMap { $0["id"] as? String } }
            #expect(ids.count == 7 && Set(ids).count == 7 && ids == ids.sorted())
            let refused = try await server.send(.get, "/api/devices?limit=1001", token: TestServer.adminToken)
            #expect(refused.status == .badRequest)
            #expect(refused.text.contains("1…1000"))
            let own = try await server.send(.get, "/api/devices?limit=1", token: server.deviceToken).json()
            #expect((own["devices"] as? [[String: Any]])?.map { $0["id"] as? String } == [server.device.id])
            #expect(own["next_after"] is NSNull)
        }
    }

    /// A polygon fence with `vertices` vertices on a small circle, whose JSON is about 40 bytes a vertex.
    static func bigPolygon(_ k: Int, vertices: Int) throws -> ServerFence {
        let ring = (0..<vertices).map { i in
            let angle = 2 * Double.pi * Double(i) / Double(vertices)
            return Coordinate(uncheckedLatitude: 46 + 0.01 * sin(angle) + Double(k) * 0.05, longitude: 14 + 0.01 * cos(angle))
        }
        return ServerFence(id: String(format: "f_big_%03d", k), name: "big \(k)", shape: .polygon(try Polygon(exterior: ring)))
    }

    @Test("GET /api/fences ends a page after the fence that passes 8 MiB, with `next`", arguments: StoreKind.available)
    func fencesByBytes(kind: StoreKind) async throws {
        // Before: a page held `limit` fences (up to 10,000) whatever their size: 10,000 polygons of 10,000 vertices
        // would have been one 4 GB reply, built whole.
        try await TestServer.run(kind) { server in
            let fences = try (0..<30).map { try Self.bigPolygon($0, vertices: 10_000) }
            for start in stride(from: 0, to: fences.count, by: 10) {
                try await server.store.upsertFences(Array(fences[start..<start + 10]), at: TestServer.now)
            }
            let first = try await server.send(.get, "/api/fences?limit=1000", token: TestServer.adminToken)
            #expect(first.body.readableBytes > 8 << 20 && first.body.readableBytes < 9 << 20, "\(first.body.readableBytes) bytes")
            let json = try first.json()
            let features = try #require(json["features"] as? [[String: Any]])
            #expect(features.count < 30)
            #expect(json["next"] as? String == features.last?["id"] as? String)
            #expect(json["type"] as? String == "FeatureCollection")
            let pages = try await Self.pages(server, "/api/fences?limit=1000", list: "features", cursor: "next", parameter: "after")
            #expect(pages.count == 2)
            #expect(pages.flatMap { $0.compactMap { $0["id"] as? String } } == fences.map(\.id))
        }
    }

    /// Stores points that walk in and out of a 100 m circle `crossings` times (one event each), and a webhook
    /// first, so every event also queues one delivery.
    static func storeEventsAndDeliveries(_ server: TestServer, crossings: Int) async throws {
        let hook = try await server.send(.post, "/api/webhooks", token: TestServer.adminToken, body: #"{"url":"http://127.0.0.1:9/in"}"#)
        #expect(hook.status == .created)
        try await server.store.upsertFences([ServerFence(id: "f_depot", name: "Depot", shape: .circle(
            center: Coordinate(uncheckedLatitude: 46, longitude: 14), radiusMeters: 100))], at: TestServer.now)
        let start = TestServer.now.addingTimeInterval(-3600)
        let positions = (0...crossings).map { i in
            Position(deviceID: server.device.id, fix: Fix(
                coordinate: Coordinate(uncheckedLatitude: i % 2 == 0 ? 46.01 : 46, longitude: 14),
                timestamp: start.addingTimeInterval(Double(i) * 60)))
        }
        let outcome = try await server.store.ingest(IngestWrite(deviceID: server.device.id, positions: positions, receivedAt: TestServer.now))
        #expect(outcome.events.count == crossings)
    }

    @Test("GET /api/events pages with next_after; webhook deliveries page newest first with next_before",
          arguments: StoreKind.available)
    func eventsAndDeliveriesPaged(kind: StoreKind) async throws {
        // Before: neither reply had a cursor (a client could not tell the last page), and deliveries could not be
        // paged past the newest `limit` at all.
        try await TestServer.run(kind) { server in
            try await Self.storeEventsAndDeliveries(server, crossings: 7)
            let events = try await Self.pages(server, "/api/events?limit=3", list: "events", cursor: "next_after", parameter: "after")
            #expect(events.map(\.count) == [3, 3, 1])
            let eventIDs = events.flatMap { $0.compactMap { $0["id"] as? Int } }
            #expect(eventIDs.count == 7 && eventIDs == eventIDs.sorted() && Set(eventIDs).count == 7)
            let own = try await Self.pages(server, "/api/events?limit=5", list: "events", cursor: "next_after", parameter: "after",
                                           token: server.deviceToken)
            #expect(own.map(\.count) == [5, 2])

            let deliveries = try await Self.pages(server, "/api/webhooks/deliveries?limit=3", list: "deliveries",
                                                  cursor: "next_before", parameter: "before")
            #expect(deliveries.map(\.count) == [3, 3, 1])
            let ids = deliveries.flatMap { $0.compactMap { $0["id"] as? Int } }
            #expect(ids.count == 7 && ids == ids.sorted(by: >) && Set(ids).count == 7)
            #expect(Set(deliveries.flatMap { $0.compactMap { $0["event_id"] as? Int } }) == Set(eventIDs))
            let bad = try await server.send(.get, "/api/webhooks/deliveries?before=x", token: TestServer.adminToken)
            #expect(bad.status == .badRequest)
            #expect(bad.text.contains("before 'x'"))
        }
    }

    @Test("GET /api/webhooks pages by id with next_after; limit is 1…32", arguments: StoreKind.available)
    func webhooksPaged(kind: StoreKind) async throws {
        // Before: every webhook in one reply, `limit` ignored.
        try await TestServer.run(kind) { server in
            for k in 0..<5 {
                let reply = try await server.send(.post, "/api/webhooks", token: TestServer.adminToken,
                                                  body: #"{"url":"https://hooks\#(k).example.com/in"}"#)
                #expect(reply.status == .created)
            }
            let pages = try await Self.pages(server, "/api/webhooks?limit=2", list: "webhooks", cursor: "next_after", parameter: "after")
            #expect(pages.map(\.count) == [2, 2, 1])
            let ids = pages.flatMap { $0.compactMap { $0["id"] as? String } }
            #expect(ids == ids.sorted() && Set(ids).count == 5)
            #expect(try await server.send(.get, "/api/webhooks?limit=33", token: TestServer.adminToken).status == .badRequest)
            let all = try await server.send(.get, "/api/webhooks", token: TestServer.adminToken).json()
            #expect((all["webhooks"] as? [Any])?.count == 5 && all["next_after"] is NSNull)
        }
    }

    @Test("the 32-webhook cap holds when 48 creations race: exactly 32 are created, the rest get 400",
          arguments: StoreKind.available)
    func webhookCapIsAtomic(kind: StoreKind) async throws {
        // Before: the route counted, then inserted, so creations that counted at the same time all passed the cap.
        try await TestServer.run(kind) { server in
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for k in 0..<48 {
                    group.addTask {
                        try await server.send(.post, "/api/webhooks", token: TestServer.adminToken,
                                              body: #"{"url":"https://race\#(k).example.com/in"}"#).status
                    }
                }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .created }.count == 32)
            #expect(statuses.filter { $0 == .badRequest }.count == 16)
            #expect(try await server.store.listWebhooks().count == 32)
        }
    }

    @Test("the store's capped insert is atomic under concurrent calls", arguments: StoreKind.available)
    func storeCapIsAtomic(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let before = try await withThrowingTaskGroup(of: Int.self) { group in
                for k in 0..<40 {
                    group.addTask {
                        try await store.insertWebhook(Webhook(id: "w_race_\(k)", url: URL(string: "https://r\(k).example.com/in")!,
                                                              secret: "s", createdAt: TestServer.now), ifFewerThan: 32)
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            // Each call saw a different count below the cap when it inserted: 0, 1, …, 31, and 32 for the refused ones.
            #expect(before.filter { $0 < 32 }.sorted() == Array(0..<32))
            #expect(try await store.listWebhooks().count == 32)
        }
    }
}
