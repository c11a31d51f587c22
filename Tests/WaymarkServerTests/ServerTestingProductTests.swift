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
            let path = try #require((server.store as? SQLiteStore)?.path, "run() uses a SQLite store file")
            #expect(FileManager.default.fileExists(atPath: path))
            return (try await server.storedPositions(), path)
        }
        #expect(stored.0.count == 1)
        #expect(stored.0.first?.fix.coordinate.latitude == 46.05)
        // The temporary store (and its folder) is gone once run() returns.
        let folder = URL(fileURLWithPath: stored.1).deletingLastPathComponent().path
        #expect(!FileManager.default.fileExists(atPath: stored.1))
        #expect(!FileManager.default.fileExists(atPath: folder))
    }
}
