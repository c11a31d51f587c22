import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import WaymarkGeo
@testable import WaymarkServer

/// Thousands of malformed ingest requests over HTTP (the router, in-process): every one is answered
/// with 200 (what survived mutation is still a valid request) or a 4xx, never a 5xx; every body
/// that is not JSON gets 400 on the JSON routes. The million-body run is Scripts/fuzz_ingest.sh.
@Suite("Malformed requests over HTTP")
struct MalformedRequestTests {
    struct Route: Sendable {
        var method: HTTPRequest.Method
        var path: String
        var seed: Int
        var isJSON: Bool
        var contentType: String
    }

    static let routes = [
        Route(method: .post, path: "/api/ingest", seed: 0, isJSON: true, contentType: "application/json"),
        Route(method: .post, path: "/pub", seed: 1, isJSON: true, contentType: "application/json"),
        Route(method: .post, path: "/", seed: 2, isJSON: true, contentType: "application/json"),
        Route(method: .post, path: "/osmand", seed: 3, isJSON: false, contentType: "application/x-www-form-urlencoded"),
    ]

    @Test("mutated bodies on every ingest route get 200 or 4xx, never 5xx", arguments: StoreKind.available)
    func mutatedBodies(kind: StoreKind) async throws {
        let perRoute = kind == .sqlite ? 800 : 200
        try await TestServer.run(kind) { server in
            var rng = SplitMix64(seed: 99)
            var statuses: [Int: Int] = [:]
            for route in Self.routes {
                var seed = DecoderFuzzTests.seeds[route.seed]
                if route.seed == 2 { seed = seed.replacingOccurrences(of: #""device_id":"x""#, with: #""device_id":"\#(server.deviceToken)""#) }
                if route.seed == 3 { seed = seed.replacingOccurrences(of: "id=abc", with: "id=\(server.deviceToken)") }
                for _ in 0..<perRoute {
                    let body = DecoderFuzzTests.mutate(Array(seed.utf8), &rng)
                    var headers: HTTPFields = [.contentType: route.contentType]
                    if route.seed < 2 { headers[.authorization] = "Basic " + Data("ana:\(server.deviceToken)".utf8).base64EncodedString() }
                    if route.seed == 0 { headers[.authorization] = "Bearer \(server.deviceToken)" }
                    let response = try await server.client.execute(uri: route.path, method: route.method, headers: headers,
                                                                   body: ByteBuffer(bytes: body))
                    let status = Int(response.status.code)
                    statuses[status, default: 0] += 1
                    #expect(status == 200 || (400..<500).contains(status),
                            "\(route.path) answered \(status) for \(String(decoding: body, as: UTF8.self)): \(response.text)")
                    if route.isJSON, (try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed])) == nil {
                        #expect(status == 400 || status == 401, "\(route.path): not JSON but \(status)")
                    }
                }
            }
            // The mix exercised both outcomes: accepted bodies and each kind of rejection.
            #expect(statuses[200, default: 0] > 0 && statuses[400, default: 0] > 0 && statuses[422, default: 0] > 0, "\(statuses)")
        }
    }

    @Test("garbage query strings, headers and text with NUL characters are answered 4xx or stored", arguments: StoreKind.available)
    func garbageRequests(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let token = server.deviceToken
            // The OsmAnd protocol's garbage is a rejected point: answered 200 (its clients resend refused requests
            // forever) and kept as a `rejected` device event, never stored as a point.
            let osmAnd = ["/?id=\(token)&lat=%zz&lon=%&timestamp=%00", "/?id=\(token)&lat=1e999&lon=-1e999&timestamp=99999999999999999999",
                          "/?id=\(token)&location=,&timestamp=1377177267"]
            for uri in osmAnd {
                let response = try await server.send(.get, uri)
                #expect(response.status == .ok && (try? response.json()["rejected_count"] as? Int) == 1, "\(uri): \(response.text)")
            }
            let rejected = try await server.store.deviceEvents(deviceID: server.device.id, afterID: 0, limit: 10)
            #expect(rejected.map(\.kind) == Array(repeating: DeviceEventRecord.rejectedKind, count: 3))
            let requests: [(HTTPRequest.Method, String, HTTPFields, String?)] = [
                (.post, "/api/ingest", [.authorization: "Bearer \(token)", .contentType: "application/json"],
                 String(repeating: "[", count: 100_000)),
                (.post, "/api/ingest", [.authorization: "Bearer \(token)", HTTPField.Name("Idempotency-Key")!: String(repeating: "k", count: 300)],
                 #"{"locations":[]}"#),
                (.post, "/pub", [.authorization: "Basic %%%"], "{}"),
                (.post, "/", [.contentType: "application/json"], #"{"location":{},"device_id":{"a":1}}"#),
            ]
            for (method, uri, headers, body) in requests {
                let response = try await server.send(method, uri, headers: headers, body: body)
                #expect((400..<500).contains(Int(response.status.code)), "\(uri) answered \(response.status): \(response.text)")
            }
            // Text fields with NUL characters (which PostgreSQL cannot store) are stored without them.
            let nul = #"{"_type":"transition","lat":46.05,"lon":14.5,"tst":1750000000,"event":"en\u0000ter"}"#
            let auth: HTTPFields = [.authorization: "Basic " + Data("ana:\(token)".utf8).base64EncodedString()]
            let reply = try await server.send(.post, "/pub", headers: auth, body: nul)
            #expect(reply.status == .ok, "\(reply.text)")
            let overland = #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[14.5,46.05]},"properties":{"timestamp":"2025-06-15T10:00:00Z","motion":["\u0000walking"]}}]}"#
            #expect(try await server.send(.post, "/api/ingest", token: token, body: overland).status == .ok)
            #expect(try await server.storedPositions().map(\.activity) == ["walking"])
            // The transition is a device event, its text kept as sent (JSON escapes the NUL).
            let events = try await server.store.deviceEvents(deviceID: server.device.id, afterID: 0, limit: 10)
            let event = try #require(events.first { $0.kind == "owntracks.transition" })
            #expect(event.detail.contains(#""event":"en\u0000ter""#))
        }
    }
}
