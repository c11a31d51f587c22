import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import WaymarkGeo
@testable import WaymarkServer

@Suite("Queries and exports")
struct QueryExportTests {
    static let start = Date(timeIntervalSince1970: 1_749_981_600)  // 2025-06-15T10:00:00Z

    /// Two rides: 30 points one minute apart, a 1 h pause, then 20 more.
    static func seed(_ server: TestServer) async throws -> [Position] {
        var positions: [Position] = []
        for i in 0..<50 {
            let offset = Double(i) * 60 + (i >= 30 ? 3600 : 0)
            positions.append(Position(
                deviceID: server.device.id,
                fix: Fix(coordinate: Coordinate(uncheckedLatitude: 46 + Double(i) * 0.001, longitude: 14.5),
                         altitude: Double(i), speed: 2, timestamp: start.addingTimeInterval(offset), source: .gnss),
                batteryLevel: 0.5, activity: i == 0 ? "on, \"foot\"" : nil))
        }
        _ = try await server.store.ingest(IngestWrite(deviceID: server.device.id, positions: positions, receivedAt: start))
        return positions
    }

    @Test("pages positions with limit and cursor, filtered by from and to", arguments: StoreKind.available)
    func positions(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let seeded = try await Self.seed(server)
            var cursor: String?
            var timestamps: [String] = []
            repeat {
                let uri = "/api/devices/\(server.device.id)/positions?limit=20" + (cursor.map { "&cursor=\($0)" } ?? "")
                let reply = try await server.send(.get, uri, token: server.deviceToken).json()
                let page = try #require(reply["positions"] as? [[String: Any]])
                timestamps += page.compactMap { $0["timestamp"] as? String }
                cursor = reply["next_cursor"] as? String
            } while cursor != nil
            #expect(timestamps == seeded.map { TimestampParser.format($0.fix.timestamp) })
            let window = try await server.send(
                .get, "/api/devices/\(server.device.id)/positions?from=2025-06-15T10:05:00Z&to=2025-06-15T10:08:00Z",
                token: TestServer.adminToken).json()
            #expect((window["positions"] as? [[String: Any]])?.count == 3)
            // The same window with UTC offsets: escaped (%2B), literal (+), and form-style + for a space.
            for (from, to) in [("2025-06-15T12:05:00%2B02:00", "2025-06-15T12:08:00%2B02:00"),
                               ("2025-06-15T12:05:00+02:00", "2025-06-15T07:08:00-03:00"),
                               ("2025-06-15+10:05:00", "2025-06-15+10:08:00")] {
                let offset = try await server.send(
                    .get, "/api/devices/\(server.device.id)/positions?from=\(from)&to=\(to)", token: TestServer.adminToken)
                #expect(offset.status == .ok, "\(from)")
                #expect((try offset.json()["positions"] as? [[String: Any]])?.count == 3, "\(from)")
            }
            let last = try await server.send(.get, "/api/devices/\(server.device.id)/last", token: server.deviceToken).json()
            #expect(last["timestamp"] as? String == TimestampParser.format(seeded[49].fix.timestamp))
            #expect(last["lat"] as? Double == seeded[49].fix.coordinate.latitude)
            let bad = try await server.send(.get, "/api/devices/\(server.device.id)/positions?limit=0", token: server.deviceToken)
            #expect(bad.status == .badRequest)
        }
    }

    @Test("splits rides at gaps longer than the configured or requested gap", arguments: StoreKind.available)
    func rides(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            _ = try await Self.seed(server)
            let reply = try await server.send(.get, "/api/devices/\(server.device.id)/rides", token: server.deviceToken).json()
            let rides = try #require(reply["rides"] as? [[String: Any]])
            #expect(rides.map { $0["points"] as? Int } == [30, 20])
            #expect(rides.first?["start"] as? String == "2025-06-15T10:00:00.000Z")
            #expect(rides.first?["end"] as? String == "2025-06-15T10:29:00.000Z")
            // 29 steps of 0.001° latitude ≈ 111.2 m each.
            let distance = try #require(rides.first?["distance_m"] as? Double)
            #expect(abs(distance - 29 * 111.19) < 5)
            let joined = try await server.send(.get, "/api/devices/\(server.device.id)/rides?gap=7200", token: server.deviceToken).json()
            #expect((joined["rides"] as? [[String: Any]])?.count == 1)
        }
    }

    @Test("exports GPX with one segment per ride, GeoJSON and CSV", arguments: StoreKind.available)
    func exports(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let seeded = try await Self.seed(server)
            let base = "/api/devices/\(server.device.id)/export"
            let gpx = try await server.send(.get, base + "?format=gpx", token: server.deviceToken)
            #expect(gpx.headers[.contentType] == "application/gpx+xml")
            #expect(gpx.text.components(separatedBy: "<trkseg>").count - 1 == 2)
            #expect(gpx.text.components(separatedBy: "<trkpt ").count - 1 == 50)
            #expect(gpx.text.contains(#"<trkpt lat="46.0" lon="14.5"><ele>0.0</ele><time>2025-06-15T10:00:00.000Z</time></trkpt>"#))
            #expect(gpx.text.hasSuffix("</trkseg>\n</trk>\n</gpx>\n"))

            let geojson = try await server.send(.get, base + "?format=geojson&from=2025-06-15T10:00:00Z&to=2025-06-15T10:02:00Z",
                                                token: server.deviceToken).json()
            let features = try #require(geojson["features"] as? [[String: Any]])
            #expect(features.count == 2)
            let geometry = try #require(features[1]["geometry"] as? [String: Any])
            #expect(geometry["coordinates"] as? [Double] == [14.5, seeded[1].fix.coordinate.latitude])

            let csv = try await server.send(.get, base + "?format=csv", token: server.deviceToken).text
            let lines = csv.split(separator: "\n")
            #expect(lines.count == 51)
            #expect(lines[0].hasPrefix("timestamp,latitude,longitude"))
            #expect(lines[1] == #"2025-06-15T10:00:00.000Z,46.0,14.5,0.0,,2.0,,0.5,,"on, ""foot""",,,false"#)
            let unknown = try await server.send(.get, base + "?format=kml", token: server.deviceToken)
            #expect(unknown.status == .badRequest)
        }
    }

    @Test("a GPX export starts a new segment at every uploaded gap marker", arguments: StoreKind.available)
    func gpxSegmentsAtGapMarkers(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            _ = try await Self.seed(server)
            // Markers inside the first ride (after points 9 and 19; one-minute steps, no long pause) and
            // one inside the hour-long pause, where the ride gap already splits.
            let marked = [9, 19].map { Self.start.addingTimeInterval(Double($0) * 60 + 10) }
                + [Self.start.addingTimeInterval(30 * 60 + 600)]
            let gaps = marked.map { PositionGap(deviceID: server.device.id, start: $0, end: $0.addingTimeInterval(20),
                                                reason: "signal lost") }
            _ = try await server.store.ingest(IngestWrite(deviceID: server.device.id, positions: [], receivedAt: Self.start,
                                                          gaps: gaps))
            let gpx = try await server.send(.get, "/api/devices/\(server.device.id)/export?format=gpx",
                                            token: server.deviceToken).text
            let segments = gpx.components(separatedBy: "<trkseg>").dropFirst()
            #expect(segments.map { $0.components(separatedBy: "<trkpt ").count - 1 } == [10, 10, 10, 20])
            let csv = try await server.send(.get, "/api/devices/\(server.device.id)/export?format=csv", token: server.deviceToken).text
            #expect(csv.split(separator: "\n").count == 51, "gap markers are not rows")
            // `gap` overrides the ride gap for the export, as for /rides: 30 s splits every minute step.
            let fine = try await server.send(.get, "/api/devices/\(server.device.id)/export?format=gpx&gap=30",
                                             token: server.deviceToken).text
            #expect(fine.components(separatedBy: "<trkseg>").count - 1 == 50)
            let bad = try await server.send(.get, "/api/devices/\(server.device.id)/export?format=gpx&gap=-1",
                                            token: server.deviceToken)
            #expect(bad.status == .badRequest)
        }
    }

    @Test("pages gap markers by (start, end), also when two share a start", arguments: StoreKind.available)
    func gapPaging(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            // 7 markers; the 3rd, 4th and 5th share a start.
            let starts = [0, 60, 120, 120, 120, 300, 600].map { Self.start.addingTimeInterval(Double($0)) }
            let gaps = starts.enumerated().map { i, start in
                PositionGap(deviceID: server.device.id, rideID: "R\(i)", start: start,
                            end: start.addingTimeInterval(Double(10 + i)), reason: "signal lost")
            }
            _ = try await server.store.ingest(IngestWrite(deviceID: server.device.id, positions: [], receivedAt: Self.start,
                                                          gaps: gaps.shuffled()))
            var cursor: String?
            var rides: [String] = []
            repeat {
                let uri = "/api/devices/\(server.device.id)/gaps?limit=2" + (cursor.map { "&cursor=\($0)" } ?? "")
                let reply = try await server.send(.get, uri, token: server.deviceToken).json()
                rides += (reply["gaps"] as? [[String: Any]] ?? []).compactMap { $0["ride_id"] as? String }
                cursor = reply["next_cursor"] as? String
            } while cursor != nil
            #expect(rides == (0..<7).map { "R\($0)" })
            let bad = try await server.send(.get, "/api/devices/\(server.device.id)/gaps?cursor=12", token: server.deviceToken)
            #expect(bad.status == .badRequest)
        }
    }

    @Test("streams an export larger than one page in time order")
    func largeExport() async throws {
        try await TestServer.run(.sqlite) { server in
            let count = Routes.streamPage * 2 + 17
            let positions = (0..<count).map { i in
                Position(deviceID: server.device.id,
                         fix: Fix(coordinate: Coordinate(uncheckedLatitude: 46, longitude: 14), timestamp: Self.start.addingTimeInterval(Double(i))))
            }
            _ = try await server.store.ingest(IngestWrite(deviceID: server.device.id, positions: positions, receivedAt: Self.start))
            let csv = try await server.send(.get, "/api/devices/\(server.device.id)/export?format=csv", token: server.deviceToken).text
            let rows = csv.split(separator: "\n").dropFirst()
            #expect(rows.count == count)
            #expect(rows.last?.hasPrefix(TimestampParser.format(Self.start.addingTimeInterval(Double(count - 1)))) == true)
        }
    }
}
