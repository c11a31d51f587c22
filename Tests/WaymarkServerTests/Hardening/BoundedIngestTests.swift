import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
@testable import WaymarkServer

/// H1, L1 and M1 of the security probe: work and memory proportional to what is accepted, replies that
/// summarise rejections in bounded size, and text limits in bytes. Each test would fail on the server
/// before the fix (the old figure is in its comment).
@Suite("Hardening: bounded ingest replies and limits")
struct BoundedIngestTests {
    @Test("H1: a million-entry body (2 MB) is refused before decoding: 413 naming the JSON-value limit, reply under 1 KB")
    func millionZeros() async throws {
        // Before: 422 with a 287 MB reply after 123 s of CPU, 3.6 GB resident. The 413 comes from
        // the pre-scan's JSON-value count, so nothing was decoded (no timing needed to show it).
        try await TestServer.run(.sqlite) { server in
            let response = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: ProbeBodies.zeros(1_000_000))
            #expect(response.status == .contentTooLarge)
            #expect(response.body.readableBytes < 1_024, "reply of \(response.body.readableBytes) bytes")
            #expect(response.text.contains("JSON values"))
        }
    }

    @Test("H1: 60,000 invalid entries get a 422 listing 500 and counting all, reply under 200 KB", arguments: StoreKind.available)
    func manyInvalid(kind: StoreKind) async throws {
        // Before: one problem object per entry (about 6 MB for 60,000).
        try await TestServer.run(kind) { server in
            let response = try await server.send(.post, "/api/ingest", token: server.deviceToken,
                                                 body: ProbeBodies.emptyFeatures(60_000))
            #expect(response.status == .unprocessableContent)
            #expect(response.body.readableBytes < 200_000, "reply of \(response.body.readableBytes) bytes")
            let error = try #require(try response.json()["error"] as? [String: Any])
            #expect(error["rejected_count"] as? Int == 60_000)
            // `{}` has no geometry, hence no latitude or longitude: three problems for each of the first 500.
            let problems = try #require(error["problems"] as? [[String: Any]])
            #expect(problems.count == 1_500)
            #expect(problems.last?["index"] as? Int == 499)
            let byField = try #require(error["rejected_by_field"] as? [String: Int])
            #expect(byField == ["geometry": 60_000, "geometry.coordinates[1]": 60_000, "geometry.coordinates[0]": 60_000])
        }
    }

    @Test("H1: a 200 reply lists the first 500 rejected points in full and counts the rest")
    func partialAcceptance() async throws {
        try await TestServer.run(.sqlite) { server in
            let response = try await server.send(.post, "/api/ingest", token: server.deviceToken,
                                                 body: ProbeBodies.mixed(valid: 0, invalid: 2_000))
            #expect(response.status == .ok)
            let reply = try response.json()
            #expect(reply["stored"] as? Int == 1)
            #expect(reply["rejected_count"] as? Int == 2_000)
            let rejected = try #require(reply["rejected"] as? [[String: Any]])
            #expect(rejected.count == 500)
            #expect(Set(rejected.compactMap { $0["index"] as? Int }) == Set(1...500))
            #expect((reply["rejected_by_field"] as? [String: Int])?["geometry.coordinates[1]"] == 2_000)
        }
    }

    @Test("H1: more entries than maxPointsPerRequest get 413 naming the limit")
    func entryLimit() async throws {
        try await TestServer.run(.sqlite, configure: { $0.maxPointsPerRequest = 1_000 }) { server in
            let over = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: ProbeBodies.emptyFeatures(1_001))
            #expect(over.status == .contentTooLarge)
            #expect(over.text.contains("at most 1000"))
            let pub = "[" + Array(repeating: #"{"_type":"location"}"#, count: 1_001).joined(separator: ",") + "]"
            let overPub = try await server.send(.post, "/pub", token: server.deviceToken, body: pub)
            #expect(overPub.status == .contentTooLarge)
        }
    }

    @Test("H1: /pub with 50,000 position-less location messages answers with a bounded header and keeps a bounded record")
    func ownTracksMany() async throws {
        // Before: 200,000 such messages gave a 49 MB reply and 873 MB resident.
        try await TestServer.run(.sqlite) { server in
            let body = "[" + Array(repeating: #"{"_type":"location"}"#, count: 50_000).joined(separator: ",") + "]"
            let response = try await server.send(.post, "/pub", token: server.deviceToken, body: body)
            #expect(response.status == .ok && response.text == "[]")
            let header = try #require(response.headers[HTTPField.Name("X-Waymark-Rejected")!])
            #expect(header.hasPrefix("50000 rejected") && header.utf8.count <= 1_024)
            // The first 500 rejected points as events, and one counting the other 49,500.
            let events = try await server.store.deviceEvents(deviceID: server.device.id, afterID: 0, limit: 10_000)
            #expect(events.count == 501 && events.allSatisfy { $0.kind == DeviceEventRecord.rejectedKind })
            #expect(events.last?.detail.contains(#""more_rejected":49500"#) == true)
        }
    }

    @Test("L1: X-Waymark-Rejected stays under 1 KiB whatever the rejected values hold")
    func ownTracksHeader() async throws {
        // Before: 9 points whose tst was a 1 MB string gave a 9 MB response header.
        try await TestServer.run(.sqlite) { server in
            let tst = Int(TestServer.now.timeIntervalSince1970) - 100
            let huge = String(repeating: "x", count: 100_000)
            let body = "[" + ([#"{"_type":"location","lat":46,"lon":14,"tst":\#(tst)}"#]
                + Array(repeating: #"{"_type":"location","lat":46,"lon":14,"tst":"\#(huge)"}"#, count: 9)).joined(separator: ",") + "]"
            let response = try await server.send(.post, "/pub", token: server.deviceToken, body: body)
            #expect(response.status == .ok)
            let header = try #require(response.headers[HTTPField.Name("X-Waymark-Rejected")!])
            #expect(header.utf8.count <= 1_024, "header of \(header.utf8.count) bytes")
            #expect(header.hasPrefix("9 rejected"))
            #expect(try await server.storedPositions().count == 1)
        }
    }

    @Test("M1: an activity of one 200,001-byte grapheme cluster is stored as at most 200 bytes", arguments: StoreKind.available)
    func activityBytes(kind: StoreKind) async throws {
        // Before: stored at full size (the limit counted characters: this is one).
        try await TestServer.run(kind) { server in
            let response = try await server.send(.post, "/api/ingest", token: server.deviceToken,
                                                 body: ProbeBodies.point(activity: ProbeBodies.oneCluster(100_000)))
            #expect(response.status == .ok)
            let stored = try #require(try await server.storedPositions().first?.activity)
            #expect(stored.utf8.count <= 200 && stored.utf8.count >= 199)
            #expect(Array(stored.unicodeScalars.prefix(2)) == ["a", "\u{301}"])
            #expect(stored.unicodeScalars.allSatisfy { $0 == "a" || $0 == "\u{301}" }, "cut inside a scalar")
        }
    }

    @Test("M1: device and fence names are limited to 200 bytes, not characters")
    func nameBytes() async throws {
        try await TestServer.run(.sqlite) { server in
            let name = ProbeBodies.oneCluster(1_000)   // 2,001 bytes, one character
            let device = try await server.send(.post, "/api/devices", token: TestServer.adminToken, body: #"{"name":"\#(name)"}"#)
            #expect(device.status == .badRequest)
            #expect(device.text.contains("200 bytes"))
            let fence = #"{"id":"f1","name":"\#(name)","lat":46,"lon":14,"radius":100}"#
            #expect(try await server.send(.post, "/api/fences", token: TestServer.adminToken, body: fence).status == .badRequest)
            let ok = try await server.send(.post, "/api/devices", token: TestServer.adminToken,
                                           body: #"{"name":"\#(ProbeBodies.oneCluster(99))"}"#)
            #expect(ok.status == .created)
        }
    }

    @Test("error messages repeat at most 64 bytes of a client's value")
    func boundedEcho() async throws {
        try await TestServer.run(.sqlite) { server in
            let long = String(repeating: "y", count: 50_000)
            let body = #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[14,46]},"properties":{"timestamp":"\#(long)"}}]}"#
            let response = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: body)
            #expect(response.status == .unprocessableContent)
            #expect(response.body.readableBytes < 1_000, "reply of \(response.body.readableBytes) bytes")
            #expect(response.text.contains("(50000 bytes)"))
            // On /pub the same problem is reported in a header and kept as an event, both bounded too.
            let pub = try await server.send(.post, "/pub", token: server.deviceToken,
                                            body: #"[{"_type":"location","lat":46,"lon":14,"tst":"\#(long)"}]"#)
            #expect(pub.status == .ok)
            #expect(pub.headers[HTTPField.Name("X-Waymark-Rejected")!]?.contains("(50000 bytes)") == true)
            let event = try #require(try await server.store.deviceEvents(deviceID: server.device.id, afterID: 0, limit: 10).first)
            #expect(event.detail.utf8.count < 1_000)
            // Every reply, errors included, tells browsers not to sniff its type.
            #expect(response.headers[.xContentTypeOptions] == "nosniff")
            #expect(try await server.send(.get, "/api/devices").headers[.xContentTypeOptions] == "nosniff")
        }
    }

    @Test("H3: a GPX point with 40,000 attributes is refused at the 256-attribute limit; 1,001 points past a 1,000 limit too")
    func gpxBombs() async throws {
        // Before: 28 s of CPU for 40,000 attributes (quadratic duplicate check); 500,000 ran for more than 12 minutes.
        // The tokenizer's work is bounded by counting its probes in XMLTokenizerLimitTests (WaymarkGeo), not timed here.
        try await TestServer.run(.sqlite, configure: { $0.maxPointsPerRequest = 1_000 }) { server in
            let attributes = (0..<40_000).map { "a\($0)=\"1\"" }.joined(separator: " ")
            let bomb = #"<gpx version="1.1" creator="x" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>"#
                + #"<trkpt lat="46" lon="14" \#(attributes)><time>2025-06-15T10:00:00Z</time></trkpt></trkseg></trk></gpx>"#
            let response = try await server.send(.post, "/api/devices/\(server.device.id)/gpx", token: server.deviceToken, body: bomb)
            #expect(response.status == .badRequest)
            #expect(response.text.contains("256"), "\(response.text.prefix(300))")
            let points = String(repeating: #"<trkpt lat="46" lon="14"><time>2025-06-15T10:00:00Z</time></trkpt>"#, count: 1_001)
            let many = #"<gpx version="1.1" creator="x" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>"#
                + points + "</trkseg></trk></gpx>"
            let over = try await server.send(.post, "/api/devices/\(server.device.id)/gpx", token: server.deviceToken, body: many)
            #expect(over.status == .badRequest)
            #expect(over.text.contains("1000"), "\(over.text.prefix(300))")
            #expect(try await server.storedPositions().isEmpty)
        }
    }
}
