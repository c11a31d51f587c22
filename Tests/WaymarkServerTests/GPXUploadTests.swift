import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import WaymarkServer
import WaymarkGeo

@Suite("Ingest: GPX upload")
struct GPXUploadTests {
    static let gpx = """
    <?xml version="1.0" encoding="UTF-8"?>
    <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
      <trk><name>Morning</name><trkseg>
        <trkpt lat="46.0500" lon="14.5000"><ele>295.5</ele><time>2025-06-15T06:00:00Z</time></trkpt>
        <trkpt lat="46.0510" lon="14.5010"><ele>296.0</ele><time>2025-06-15T06:00:05Z</time></trkpt>
        <trkpt lat="46.0520" lon="14.5020"></trkpt>
      </trkseg></trk>
    </gpx>
    """

    @Test("stores the timed track points of an uploaded GPX file and reports the untimed one", arguments: StoreKind.available)
    func upload(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let response = try await server.send(.post, "/api/devices/\(server.device.id)/gpx?name=morning.gpx",
                                                 token: server.deviceToken, body: Self.gpx)
            #expect(response.status == .ok, "\(response.text)")
            let reply = try response.json()
            #expect(reply["stored"] as? Int == 2)
            #expect((reply["rejected"] as? [[String: Any]])?.first?["field"] as? String == "trkpt/time")
            let stored = try await server.storedPositions()
            #expect(stored.map(\.fix.altitude) == [295.5, 296.0])
            #expect(stored.first?.fix.timestamp == Date(timeIntervalSince1970: 1_749_967_200))
            #expect(stored.first?.fix.source == .file)
        }
    }

    @Test("answers 400 naming the file and position of broken GPX", arguments: StoreKind.available)
    func broken(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let response = try await server.send(.post, "/api/devices/\(server.device.id)/gpx?name=broken.gpx",
                                                 token: server.deviceToken, body: "<gpx version=\"1.1\"><trk><trkseg>\n<trkpt lat=\"1\"")
            #expect(response.status == .badRequest)
            #expect(response.text.contains("broken.gpx"), "\(response.text)")
            #expect(try await server.storedPositions().isEmpty)
        }
    }
}
