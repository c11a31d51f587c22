import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import WaymarkServer

/// M3 of the second probe: an `Idempotency-Key` reused with another body is refused with 422 naming the key;
/// the same body still replays.
@Suite("Hardening 2: Idempotency-Key reuse")
struct IdempotencyReuseTests {
    static func batch(_ seconds: [Int], lon: Double = 14) -> String {
        let features = seconds.map { s in
            #"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(lon),46]},"properties":{"timestamp":"\#(TimestampParser.format(TestServer.now.addingTimeInterval(Double(s))))"}}"#
        }
        return #"{"locations":[\#(features.joined(separator: ","))]}"#
    }

    static func key(_ value: String) -> HTTPFields { [HTTPField.Name("Idempotency-Key")!: value] }

    @Test("M3: a key reused with a different body gets 422 naming the key, and none of its points is dropped silently",
          arguments: StoreKind.available)
    func differentBody(kind: StoreKind) async throws {
        // Before: 200 {"replayed":true,"stored":2}, and the 5 new points were never stored.
        try await TestServer.run(kind) { server in
            let first = try await server.send(.post, "/api/ingest", token: server.deviceToken, headers: Self.key("batch-1"),
                                              body: Self.batch([-600, -590]))
            #expect(first.status == .ok)
            let reused = try await server.send(.post, "/api/ingest", token: server.deviceToken, headers: Self.key("batch-1"),
                                               body: Self.batch([-500, -499, -498, -497, -496], lon: 15))
            #expect(reused.status == .unprocessableContent)
            let error = try #require(try reused.json()["error"] as? [String: Any])
            #expect(error["code"] as? String == "idempotencyKeyReused")
            #expect((error["message"] as? String)?.contains("'batch-1' was already used by this device with a different request body") == true)
            #expect(try await server.storedPositions().count == 2)
            // The same body under the same key is still a replay.
            let replay = try await server.send(.post, "/api/ingest", token: server.deviceToken, headers: Self.key("batch-1"),
                                               body: Self.batch([-600, -590]))
            #expect(replay.status == .ok)
            #expect(try replay.json()["replayed"] as? Bool == true)
            #expect(try replay.json()["stored"] as? Int == 2)
        }
    }

    @Test("M3: a key used for a GPX upload after a batch is refused as used on another route", arguments: StoreKind.available)
    func otherRoute(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            #expect(try await server.send(.post, "/api/ingest", token: server.deviceToken, headers: Self.key("k-7"),
                                          body: Self.batch([-60])).status == .ok)
            let time = TimestampParser.format(TestServer.now.addingTimeInterval(-30))
            let gpx = #"<gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg><trkpt lat="46" lon="14"><time>\#(time)</time></trkpt></trkseg></trk></gpx>"#
            let reply = try await server.send(.post, "/api/devices/\(server.device.id)/gpx", token: server.deviceToken,
                                              headers: Self.key("k-7"), body: gpx)
            #expect(reply.status == .unprocessableContent)
            #expect(reply.text.contains("on another route"))
            #expect(try await server.storedPositions().count == 1)
        }
    }
}
