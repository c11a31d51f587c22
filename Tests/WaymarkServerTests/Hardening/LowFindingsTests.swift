import Foundation
import HTTPTypes
import NIOCore
import HummingbirdTesting
import Testing
import WaymarkGeo
@testable import WaymarkServer

/// L1, L3 and L5 of the second probe, and M2's polygon caps and edge index.
@Suite("Hardening 2: error echo, framing, offsets, polygon caps")
struct LowFindingsTests {
    @Test("L1: a JSON error about a huge number literal repeats at most a few hundred bytes of it")
    func numberEcho() async throws {
        // Before: a 9 MB literal came back in a 9,000,113-byte 400 reply.
        try await TestServer.run(.sqlite) { server in
            let body = #"{"locations":["# + String(repeating: "1", count: 400_000) + "]}"
            let reply = try await server.send(.post, "/pub", token: server.deviceToken, body: body)
            #expect(reply.status == .badRequest)
            #expect(reply.body.readableBytes < 1_024, "\(reply.body.readableBytes) bytes")
        }
    }

    @Test("L5: a time-zone offset past ±23:59 is not a time")
    func offsets() {
        // Before: +99:99 was read as a shift of 4 days 4 hours 39 minutes.
        #expect(TimestampParser.date(from: "2025-06-15T12:00:00+99:99") == nil)
        #expect(TimestampParser.date(from: "2025-06-15T12:00:00+14:60") == nil)
        #expect(TimestampParser.date(from: "2025-06-15T12:00:00+14:00") == Date(timeIntervalSince1970: 1_749_938_400))   // 22:00Z the day before
        #expect(TimestampParser.date(from: "2025-06-15T12:00:00-12:30") == Date(timeIntervalSince1970: 1_750_033_800))   // 00:30Z the day after
    }

    @Test("L3: a Transfer-Encoding other than chunked gets 400 and a close, and what follows is not read as a request")
    func transferEncoding() async throws {
        // Before: `xchunked` was read as no body, and the bytes after it as the next request (401, then 400).
        try await HardenedServer.run { _, port, _ in
            let connection = try RawConnection(port: port)
            connection.send("POST /api/ingest HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\nGET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            let reply = await connection.readUntilClosed(seconds: 30)
            #expect(reply.closed)
            #expect(reply.text.hasPrefix("HTTP/1.1 400"), "\(reply.text.prefix(60))")
            #expect(reply.text.contains("Transfer-Encoding must be chunked"))
            #expect(reply.text.components(separatedBy: "HTTP/1.1 ").count == 2, "one response only: \(reply.text)")
        }
    }

    /// A ring of `count` vertices on a circle of 0.5° around (46.5, 14.5).
    static func ring(_ count: Int, radius: Double = 0.5, lat: Double = 46.5, lon: Double = 14.5) -> [[Double]] {
        (0..<count).map { k in
            let angle = 2 * Double.pi * Double(k) / Double(count)
            return [lon + radius * cos(angle), lat + radius * sin(angle)]
        }
    }

    static func polygonBody(_ rings: [[[Double]]]) -> String {
        let text = rings.map { ring in "[" + (ring + [ring[0]]).map { "[\($0[0]),\($0[1])]" }.joined(separator: ",") + "]" }
        return #"{"type":"Feature","id":"f_big","properties":{"name":"big"},"geometry":{"type":"Polygon","coordinates":[\#(text.joined(separator: ","))]}}"#
    }

    @Test("M2: a polygon of more than 10,000 vertices or 100 holes is refused with 400 naming the limit", arguments: StoreKind.available)
    func polygonCaps(kind: StoreKind) async throws {
        // Before: a 60,000-vertex polygon and one with 15,000 holes were accepted (1.5 ms per point near them).
        try await TestServer.run(kind) { server in
            let big = try await server.send(.post, "/api/fences", token: TestServer.adminToken,
                                            body: Self.polygonBody([Self.ring(10_001)]))
            #expect(big.status == .badRequest)
            #expect(big.text.contains("at most 10000 vertices"), "\(big.text.prefix(200))")
            let holes = (0..<101).map { k in Self.ring(3, radius: 0.001, lat: 46.3 + Double(k) * 0.003, lon: 14.5) }
            let holey = try await server.send(.post, "/api/fences", token: TestServer.adminToken,
                                              body: Self.polygonBody([Self.ring(100)] + holes))
            #expect(holey.status == .badRequest)
            #expect(holey.text.contains("at most 100 holes"), "\(holey.text.prefix(200))")
            let fits = try await server.send(.post, "/api/fences", token: TestServer.adminToken,
                                             body: Self.polygonBody([Self.ring(10_000)]))
            #expect(fits.status == .created)
        }
    }

    @Test("M2: the polygon edge index answers exactly as Polygon.contains and SegmentCrossing.crossing")
    func edgeIndexMatches() throws {
        var rng = SplitMix64(seed: 42)
        // A star of 2,000 vertices with two holes, across the antimeridian.
        let exterior = (0..<2_000).map { k -> Coordinate in
            let angle = 2 * Double.pi * Double(k) / 2_000, r = k % 2 == 0 ? 0.5 : 0.3
            return Coordinate(uncheckedLatitude: 10 + r * sin(angle), longitude: Coordinate.normalizedLongitude(179.8 + r * cos(angle)))
        }
        let holes = [[(10.0, 179.75), (10.05, 179.8), (9.95, 179.85)], [(10.1, -179.95), (10.15, -179.9), (10.05, -179.9)]].map {
            $0.map { Coordinate(uncheckedLatitude: $0.0, longitude: $0.1) }
        }
        let polygon = try Polygon(exterior: exterior, holes: holes)
        let fence = ServerFence(id: "p", name: "", shape: .polygon(polygon))
        let index = PolygonEdgeIndex(polygon)
        var inside = 0, crossings = 0
        for _ in 0..<4_000 {
            let a = Coordinate(uncheckedLatitude: 10 + Double.random(in: -0.6...0.6, using: &rng),
                               longitude: Coordinate.normalizedLongitude(179.8 + Double.random(in: -0.6...0.6, using: &rng)))
            let b = Coordinate(uncheckedLatitude: 10 + Double.random(in: -0.6...0.6, using: &rng),
                               longitude: Coordinate.normalizedLongitude(179.8 + Double.random(in: -0.6...0.6, using: &rng)))
            #expect(index.contains(a) == polygon.contains(a))
            if polygon.contains(a) { inside += 1 }
            let expected = SegmentCrossing.crossing(fence, from: a, to: b)
            let got = index.crossing(from: a, to: b)
            #expect(got?.enter == expected?.enter && got?.exit == expected?.exit)
            if expected != nil { crossings += 1 }
        }
        #expect(inside > 500 && crossings > 500, "\(inside) inside, \(crossings) crossings")
        // Vertices: on the boundary, or not, by the same rounding in both.
        for k in stride(from: 0, to: 2_000, by: 7) {
            #expect(index.contains(exterior[k]) == polygon.contains(exterior[k]))
        }
    }

    @Test("H2: at most 32 webhooks exist, so one upload's delivery rows are bounded; the 33rd gets 400 naming the limit")
    func webhookCap() async throws {
        // Before: any number of webhooks, each multiplying every event's outbox rows.
        try await TestServer.run(.sqlite) { server in
            for k in 0..<32 {
                let reply = try await server.send(.post, "/api/webhooks", token: TestServer.adminToken,
                                                  body: #"{"url":"https://hooks\#(k).example.com/in"}"#)
                #expect(reply.status == .created)
            }
            let refused = try await server.send(.post, "/api/webhooks", token: TestServer.adminToken,
                                                body: #"{"url":"https://one-more.example.com/in"}"#)
            #expect(refused.status == .badRequest)
            #expect(refused.text.contains("32 webhooks, the limit of 32"))
        }
    }
}
