import Foundation
import HTTPTypes
import Testing
import WaymarkGeo
import WaymarkServer
import WaymarkServerTesting

/// The `WaymarkServerTesting` product as a user calls it: a fresh temporary SQLite server.
@Suite("WaymarkServerTesting")
struct ServerTestingProductTests {
    @Test("run() gives a server with a registered device; an ingested point is stored; the temporary store is removed")
    func ingestAndQuery() async throws {
        let time = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-60))
        let batch = #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[14.5,46.05]},"properties":{"timestamp":"\#(time)"}}]}"#
        let stored = try await TestTrackingServer.run { server in
            let unauthorized = try await server.send(.post, "/api/ingest", body: batch)
            #expect(unauthorized.status == .unauthorized)
            let response = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: batch)
            #expect(response.status == .ok)
            let admin = try await server.send(.get, "/api/devices", token: TestTrackingServer.adminToken)
            #expect(admin.status == .ok)
            return try await server.storedPositions()
        }
        #expect(stored.count == 1)
        #expect(stored.first?.fix.coordinate.latitude == 46.05)
    }
}
