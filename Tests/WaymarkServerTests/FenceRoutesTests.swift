import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import WaymarkServer

@Suite("Fence API")
struct FenceRoutesTests {
    static let polygonFeature = #"""
    {"type":"Feature","id":"f_park","properties":{"name":"Park","dwellSeconds":60},
     "geometry":{"type":"Polygon","coordinates":[[[14.0,46.0],[14.01,46.0],[14.01,46.01],[14.0,46.01],[14.0,46.0]]]}}
    """#

    @Test("creates a GeoJSON polygon and a circle, lists and deletes them with the admin token", arguments: StoreKind.available)
    func manage(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let admin = TestServer.adminToken
            let created = try await server.send(.post, "/api/fences", token: admin, body: Self.polygonFeature)
            #expect(created.status == .created)
            let circle = try await server.send(.post, "/api/fences", token: admin,
                                               body: #"{"name":"Depot","latitude":46.05,"longitude":14.5,"radiusMeters":150}"#)
            #expect(circle.status == .created)
            let circleID = try #require(((try circle.json())["features"] as? [[String: Any]])?.first?["id"] as? String)
            let list = try await server.send(.get, "/api/fences", token: admin).json()
            let features = try #require(list["features"] as? [[String: Any]])
            #expect(Set(features.compactMap { $0["id"] as? String }) == ["f_park", circleID])
            let depot = try #require(features.first { $0["id"] as? String == circleID })
            #expect((depot["properties"] as? [String: Any])?["radiusMeters"] as? Double == 150)
            #expect(try await server.send(.delete, "/api/fences/\(circleID)", token: admin).status == .noContent)
            #expect(try await server.send(.delete, "/api/fences/\(circleID)", token: admin).status == .notFound)
            #expect(try await server.store.listFences().map(\.id) == ["f_park"])
        }
    }

    @Test("refuses fence changes from a device and malformed fences with the reason", arguments: StoreKind.available)
    func refusals(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let byDevice = try await server.send(.post, "/api/fences", token: server.deviceToken, body: Self.polygonFeature)
            #expect(byDevice.status == .forbidden)
            let noRadius = try await server.send(.post, "/api/fences", token: TestServer.adminToken,
                                                 body: #"{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[14.5,46.05]}}"#)
            #expect(noRadius.status == .badRequest)
            #expect(noRadius.text.contains("radiusMeters"))
            let line = try await server.send(.post, "/api/fences", token: TestServer.adminToken,
                                             body: #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"LineString","coordinates":[]}}]}"#)
            #expect(line.status == .badRequest)
            #expect(line.text.contains("feature 0"))
            #expect(try await server.store.listFences().isEmpty)
        }
    }

    @Test("an upload that enters a fence replies with the event, and the event list shows it", arguments: StoreKind.available)
    func ingestEvents(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            _ = try await server.send(.post, "/api/fences", token: TestServer.adminToken, body: Self.polygonFeature)
            let body = #"""
            {"locations":[
             {"type":"Feature","geometry":{"type":"Point","coordinates":[14.005,46.02]},"properties":{"timestamp":"2025-06-15T10:00:00Z"}},
             {"type":"Feature","geometry":{"type":"Point","coordinates":[14.005,46.005]},"properties":{"timestamp":"2025-06-15T10:01:00Z"}}]}
            """#
            let reply = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: body).json()
            let events = try #require(reply["events"] as? [[String: Any]])
            #expect(events.map { $0["kind"] as? String } == ["enter"])
            #expect(events.first?["timestamp"] as? String == "2025-06-15T10:01:00.000Z")
            let listed = try await server.send(.get, "/api/events", token: server.deviceToken).json()
            #expect((listed["events"] as? [[String: Any]])?.map { $0["fence_id"] as? String } == ["f_park"])
            let other = try await server.send(.get, "/api/events?device=d_someone_else", token: server.deviceToken)
            #expect(other.status == .forbidden)
        }
    }
}
