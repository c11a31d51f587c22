import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import WaymarkServer

@Suite("Ingest validation")
struct ValidationTests {
    static func feature(lat: String, lon: String, time: String) -> String {
        #"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]},"properties":{"timestamp":"\#(time)"}}"#
    }

    static func batch(_ features: [String]) -> String { #"{"locations":["# + features.joined(separator: ",") + "]}" }

    @Test("stores the valid points of a batch and reports each invalid one by index and field", arguments: StoreKind.available)
    func mixedBatch(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let body = Self.batch([
                Self.feature(lat: "46.05", lon: "14.5", time: "2025-06-15T10:00:00Z"),
                Self.feature(lat: "91", lon: "14.5", time: "2025-06-15T10:00:01Z"),
                Self.feature(lat: "46.05", lon: "-180.5", time: "2025-06-15T10:00:02Z"),
                Self.feature(lat: "46.05", lon: "14.5", time: "1999-12-31T23:59:59Z"),
                Self.feature(lat: "46.05", lon: "14.5", time: "2025-06-17T00:00:01Z"),  // 24 h + 1 s after the server clock
                Self.feature(lat: "46.05", lon: "14.5", time: "yesterday"),
                Self.feature(lat: "46.06", lon: "14.51", time: "2025-06-16T23:59:59Z"),  // within 24 h: accepted
            ])
            let response = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: body)
            #expect(response.status == .ok)
            let reply = try response.json()
            #expect(reply["stored"] as? Int == 2)
            let rejected = try #require(reply["rejected"] as? [[String: Any]])
            #expect(rejected.map { $0["index"] as? Int } == [1, 2, 3, 4, 5])
            #expect(rejected[0]["field"] as? String == "geometry.coordinates[1]")
            #expect((rejected[0]["message"] as? String)?.contains("outside [-90, 90]") == true)
            #expect(rejected[1]["field"] as? String == "geometry.coordinates[0]")
            #expect((rejected[2]["message"] as? String)?.contains("before 2000") == true)
            #expect((rejected[3]["message"] as? String)?.contains("24 h") == true)
            #expect(rejected[4]["field"] as? String == "properties.timestamp")
            #expect(try await server.storedPositions().count == 2)
        }
    }

    @Test("answers 422 naming every problem when no point is valid, and stores nothing", arguments: StoreKind.available)
    func noValidPoint(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            // NaN and infinity cannot be written in JSON; clients send them as strings.
            let body = Self.batch([
                Self.feature(lat: #""NaN""#, lon: "14.5", time: "2025-06-15T10:00:00Z"),
                Self.feature(lat: "46", lon: #""-Infinity""#, time: "2025-06-15T10:00:00Z"),
            ])
            let response = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: body)
            #expect(response.status == .unprocessableContent)
            let error = try #require(try response.json()["error"] as? [String: Any])
            #expect(error["code"] as? String == "noValidPoint")
            let problems = try #require(error["problems"] as? [[String: Any]])
            #expect(problems.count == 2)
            #expect(problems.allSatisfy { ($0["message"] as? String)?.contains("not a finite number") == true })
            let empty = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: #"{"locations":[]}"#)
            #expect(empty.status == .unprocessableContent)
            #expect(try await server.storedPositions().isEmpty)
        }
    }

    @Test("answers 400 with the line and column of malformed JSON", arguments: StoreKind.available)
    func malformed(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let response = try await server.send(.post, "/api/ingest", token: server.deviceToken,
                                                 body: "{\"locations\":[\n  {\"type\": Feature}]}")
            #expect(response.status == .badRequest)
            let error = try #require(try response.json()["error"] as? [String: Any])
            #expect(error["code"] as? String == "malformedBody")
            #expect((error["message"] as? String)?.contains("line 2, column 12") == true, "\(error)")
            let wrongShape = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: #"[1,2]"#)
            #expect(wrongShape.status == .badRequest)
            let ownTracks = try await server.send(.post, "/pub", token: server.deviceToken, body: #"{"lat":1}"#)
            #expect(ownTracks.status == .badRequest)
            #expect(ownTracks.text.contains("_type"))
        }
    }

    @Test("answers 413 for a body over the configured limit and stores nothing", arguments: StoreKind.available)
    func tooLarge(kind: StoreKind) async throws {
        try await TestServer.run(kind, configure: { $0.maxBodyBytes = 1024 }) { server in
            let features = (0..<40).map { i in
                Self.feature(lat: "46.05", lon: "14.5", time: "2025-06-15T10:00:\(String(format: "%02d", i % 60))Z")
            }
            let response = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: Self.batch(features))
            #expect(response.status == .contentTooLarge)
            #expect(response.text.contains("1024 bytes"))
            let small = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: Self.batch([features[0]]))
            #expect(small.status == .ok)
            #expect(try await server.storedPositions().count == 1)
        }
    }

    @Test("absurd numbers in queries are rejected points (kept as events, answered 200), never a crash", arguments: StoreKind.available)
    func absurdValues(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            for query in ["timestamp=1e30", "timestamp=-1e30", "timestamp=nan", "timestamp=99999999999999999999999",
                          "lat=1e400", "lat=NaN", "location=1,2,3", "timestamp=2016-02-30T99:00:00Z"] {
                // The absurd field comes first: for a repeated name the first value counts.
                let uri = "/?\(query)&id=\(server.deviceToken)&lat=46&lon=14&timestamp=1750000000"
                let response = try await server.send(.get, uri)
                #expect(response.status == .ok, "\(query): \(response.text)")
                #expect(try response.json()["rejected_count"] as? Int == 1 && response.json()["stored"] as? Int == 0, "\(query)")
            }
            for query in ["from=1e30", "to=-1e30", "from=-9e18&to=9e18"] {
                let response = try await server.send(.get, "/api/devices/\(server.device.id)/positions?\(query)", token: server.deviceToken)
                #expect(response.status == .ok, "\(query)")
            }
            #expect(try await server.storedPositions().isEmpty)
        }
    }
}
