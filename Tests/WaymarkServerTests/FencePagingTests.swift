import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import WaymarkGeo
@testable import WaymarkServer

/// `GET /api/fences?limit&after`: pages of fences by id with a `next` cursor.
@Suite("Fence paging")
struct FencePagingTests {
    /// A circle fence with this id (and a name and radius derived from `n`).
    static func circle(_ id: String, _ n: Int = 0, dwell: Double? = nil) -> ServerFence {
        ServerFence(id: id, name: "fence \(n)",
              shape: .circle(center: Coordinate(uncheckedLatitude: 46 + Double(n % 100) * 0.01, longitude: 14 + Double(n / 100) * 0.01),
                             radiusMeters: 100 + Double(n % 50)),
              dwellSeconds: dwell)
    }

    /// `text` percent-encoded for a query value (only letters and digits stay as they are).
    static func queryValue(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    /// Follows `next` from the first page with `limit`, returning each page's reply.
    static func allPages(_ server: TestServer, limit: Int, token: String) async throws -> [[String: Any]] {
        var pages: [[String: Any]] = []
        var after: String?
        repeat {
            let uri = "/api/fences?limit=\(limit)" + (after.map { "&after=\(queryValue($0))" } ?? "")
            let reply = try await server.send(.get, uri, token: token)
            #expect(reply.status == .ok, "\(uri): \(reply.text.prefix(300))")
            let page = try reply.json()
            pages.append(page)
            after = page["next"] as? String
            #expect(pages.count <= 100, "runaway paging")
        } while after != nil && pages.count <= 100
        return pages
    }

    static func ids(_ page: [String: Any]) -> [String] {
        ((page["features"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
    }

    @Test("2,500 fences in pages of 1000: 1000 + 1000 + 500, every id once and in order, no `next` on the last page; a device token may list",
          arguments: StoreKind.available)
    func pages(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            // Plain ids plus a few that need percent-encoding as a cursor, stored in shuffled order.
            let odd = ["a b", "a+b", "a&after=zzz", "f_/slash", "é-fence"]
            let plain = (0..<(2500 - odd.count)).map { String(format: "f_%05d", $0) }
            var generator = SystemRandomNumberGenerator()
            let fences = (plain + odd).enumerated().map { Self.circle($1, $0) }.shuffled(using: &generator)
            for chunk in stride(from: 0, to: fences.count, by: 700) {
                try await server.store.upsertFences(Array(fences[chunk..<min(chunk + 700, fences.count)]), at: TestServer.now)
            }
            let pages = try await Self.allPages(server, limit: 1000, token: server.deviceToken)
            #expect(pages.map { Self.ids($0).count } == [1000, 1000, 500])
            #expect(pages.allSatisfy { $0["type"] as? String == "FeatureCollection" })
            // `next` is the last id of a full page, and the last page has no `next` member at all.
            for page in pages.dropLast() { #expect(page["next"] as? String == Self.ids(page).last) }
            #expect(pages.last?.keys.contains("next") == false)
            let listed = pages.flatMap(Self.ids)
            #expect(Set(listed) == Set(plain + odd) && listed.count == 2500, "every id exactly once")
            #expect(listed == (try await server.store.listFences().map(\.id)), "in the store's id order, as listFences")
            #expect(Array(listed.filter { $0.hasPrefix("f_0") }) == plain, "plain ids ascending")
            // The same pages through the store method itself.
            let first = try await server.store.fences(after: nil, limit: 1000).map(\.id)
            #expect(first == Array(listed.prefix(1000)))
            #expect(try await server.store.fences(after: first.last, limit: 5).map(\.id) == Array(listed[1000..<1005]))
            #expect(try await server.store.fences(after: listed.last, limit: 5).isEmpty)
            // The default limit is 1000; no token is still 401.
            #expect(Self.ids(try await server.send(.get, "/api/fences", token: server.deviceToken).json()).count == 1000)
            #expect(try await server.send(.get, "/api/fences").status == .unauthorized)
        }
    }

    @Test("`next` appears only when another fence follows; `after` may be any id, stored or not", arguments: StoreKind.available)
    func cursorEdges(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            try await server.store.upsertFences(["f_a", "f_b", "f_c"].map { Self.circle($0) }, at: TestServer.now)
            let admin = TestServer.adminToken
            let exact = try await server.send(.get, "/api/fences?limit=3", token: admin).json()
            #expect(Self.ids(exact) == ["f_a", "f_b", "f_c"] && exact["next"] == nil, "a full last page has no next")
            let two = try await server.send(.get, "/api/fences?limit=2", token: admin).json()
            #expect(Self.ids(two) == ["f_a", "f_b"] && two["next"] as? String == "f_b")
            let rest = try await server.send(.get, "/api/fences?limit=2&after=f_b", token: admin).json()
            #expect(Self.ids(rest) == ["f_c"] && rest["next"] == nil)
            let between = try await server.send(.get, "/api/fences?after=f_aa", token: admin).json()
            #expect(Self.ids(between) == ["f_b", "f_c"], "a cursor needs not be a stored id")
            let past = try await server.send(.get, "/api/fences?after=f_c", token: admin)
            let pastPage = try past.json()
            #expect(past.status == .ok && Self.ids(pastPage).isEmpty && pastPage["next"] == nil)
            #expect(Self.ids(try await server.send(.get, "/api/fences?after=", token: admin).json()).count == 3)
        }
    }

    @Test("a limit outside 1…10000 or not a number gets 400 naming the limit", arguments: StoreKind.available)
    func badLimits(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            try await server.store.upsertFences([Self.circle("f_a")], at: TestServer.now)
            for bad in ["0", "-1", "10001", "99999999999999999999", "abc", "1.5", "", "%201"] {
                let reply = try await server.send(.get, "/api/fences?limit=\(bad)", token: server.deviceToken)
                #expect(reply.status == .badRequest, "limit=\(bad)")
                #expect(reply.text.contains("limit") && reply.text.contains("1…10000"), "limit=\(bad): \(reply.text)")
            }
            for good in ["1", "10000"] {
                #expect(try await server.send(.get, "/api/fences?limit=\(good)", token: server.deviceToken).status == .ok)
            }
        }
    }

    /// A default page holds at most 1000 fences, so its size is bounded by 1000 of the largest fences:
    /// 161,529 bytes for these typical circles (short id and name, dwell set) and 593,251 bytes for
    /// circles with 200-byte ids and names and long numbers. (A polygon's size grows with its vertices,
    /// bounded by the request body limit of the POST that stored it.)
    @Test("the reply of a default page is bounded (≤ 170 KB for 1000 typical circles, ≤ 600 KB for the longest ids and names)")
    func boundedReply() async throws {
        try await TestServer.run(.sqlite) { server in
            try await server.store.upsertFences((0..<3000).map { Self.circle(String(format: "f_%06d", $0), $0, dwell: 60) },
                                                at: TestServer.now)
            let page = try await server.send(.get, "/api/fences", token: server.deviceToken)
            #expect(Self.ids(try page.json()).count == 1000)
            #expect(page.body.readableBytes <= 170_000, "default page of typical circles: \(page.body.readableBytes) bytes")
            let long = (0..<1500).map { n in
                ServerFence(id: String(repeating: "x", count: 194) + String(format: "%06d", n), name: String(repeating: "n", count: 200),
                      shape: .circle(center: Coordinate(uncheckedLatitude: -33.123456789012, longitude: -151.123456789012),
                                     radiusMeters: 12345.678901234),
                      dwellSeconds: 86400.123456789)
            }
            try await server.store.upsertFences(long, at: TestServer.now)
            let largest = try await server.send(.get, "/api/fences?after=x", token: server.deviceToken)
            #expect(Self.ids(try largest.json()).count == 1000)
            #expect(largest.body.readableBytes <= 600_000, "default page of the largest circles: \(largest.body.readableBytes) bytes")
        }
    }

    @Test("a page's features are exactly FenceCodec.feature's: circles, polygons with holes, dwell null or set")
    func encodingMatchesCodec() throws {
        let ring = [(46.0, 14.0), (46.0, 14.01), (46.01, 14.01), (46.01, 14.0)].map { Coordinate(uncheckedLatitude: $0.0, longitude: $0.1) }
        let hole = [(46.004, 14.004), (46.004, 14.006), (46.006, 14.005)].map { Coordinate(uncheckedLatitude: $0.0, longitude: $0.1) }
        let fences = [
            Self.circle("f_circle", 7),
            Self.circle("f_dwell", 3, dwell: 0),
            ServerFence(id: "f_poly", name: "Park \"quoted\" / ünïcödé", shape: .polygon(try Polygon(exterior: ring, holes: [hole])),
                  dwellSeconds: 90.5),
        ]
        func object(_ data: Data) throws -> NSDictionary {
            try #require(try JSONSerialization.jsonObject(with: data) as? NSDictionary)
        }
        let paged = try object(try JSONReply.data(Routes.FencePage(fences: fences, next: "f_poly")))
        let expected: [String: Any] = ["type": "FeatureCollection", "features": fences.map(FenceCodec.feature), "next": "f_poly"]
        #expect(paged == (try object(try JSONSerialization.data(withJSONObject: expected))))
        let last = try object(try JSONReply.data(Routes.FencePage(fences: [], next: nil)))
        #expect(last == ["type": "FeatureCollection", "features": [Any]()] as NSDictionary)
    }
}
