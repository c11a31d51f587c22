import Foundation
import HTTPTypes
import NIOCore
import HummingbirdTesting
import Testing
import WaymarkGeo
@testable import WaymarkServer

/// H4 and H5 of the second probe: device events are written as stored, in pages bounded by count and bytes,
/// and rides are paged with a cursor; both replies are streamed.
@Suite("Hardening 2: paged device events and rides")
struct ListPagingTests {
    /// `count` device events of about `bytes` bytes each (an OwnTracks status with an array of zeros).
    static func storeEvents(_ server: TestServer, count: Int, bytes: Int) async throws {
        let zeros = Array(repeating: "0", count: bytes / 2).joined(separator: ",")
        var events: [DeviceEventRecord] = []
        for k in 0..<count {
            events.append(DeviceEventRecord(deviceID: server.device.id, kind: "owntracks.status",
                                            time: TestServer.now.addingTimeInterval(Double(-k)), receivedAt: TestServer.now,
                                            detail: #"{"_type":"status","k":\#(k),"z":[\#(zeros)]}"#))
        }
        for start in stride(from: 0, to: count, by: 20) {
            _ = try await server.store.ingest(IngestWrite(deviceID: server.device.id, positions: [], receivedAt: TestServer.now,
                                                          deviceEvents: Array(events[start..<min(count, start + 20)])))
        }
    }

    @Test("H4: a page of device events stops after 8 MB, details exactly as stored; next_after continues", arguments: StoreKind.available)
    func deviceEventsByBytes(kind: StoreKind) async throws {
        // Before: every detail was re-parsed into Foundation objects (1,000 records of 64 KiB took 2.65 GB) and a
        // page held `limit` records whatever their size (up to 10,000).
        try await TestServer.run(kind) { server in
            try await Self.storeEvents(server, count: 200, bytes: 60_000)
            let first = try await server.send(.get, "/api/devices/\(server.device.id)/device-events?limit=1000", token: server.deviceToken)
            #expect(first.status == .ok)
            #expect(first.body.readableBytes < 8_500_000, "\(first.body.readableBytes) bytes")
            let page = try first.json()
            let records = try #require(page["device_events"] as? [[String: Any]])
            #expect((130...140).contains(records.count), "\(records.count) records")
            let next = try #require(page["next_after"] as? Int)
            #expect(records.last?["id"] as? Int == next)
            let detail = try #require(records.first?["detail"] as? [String: Any])
            #expect(detail["k"] as? Int == 0 && (detail["z"] as? [Any])?.count == 30_000)
            let second = try await server.send(.get, "/api/devices/\(server.device.id)/device-events?limit=1000&after=\(next)",
                                               token: server.deviceToken)
            let rest = try #require(try second.json()["device_events"] as? [[String: Any]])
            #expect(records.count + rest.count == 200)
            #expect(try second.json()["next_after"] is NSNull)
        }
    }

    @Test("H4: device-events takes limit 1–1000 (100 by default); a stored detail that is not JSON comes back as a string")
    func deviceEventsLimit() async throws {
        try await TestServer.run(.sqlite) { server in
            let path = "/api/devices/\(server.device.id)/device-events"
            #expect(try await server.send(.get, path + "?limit=1001", token: server.deviceToken).status == .badRequest)
            _ = try await server.store.ingest(IngestWrite(deviceID: server.device.id, positions: [], receivedAt: TestServer.now, deviceEvents: [
                DeviceEventRecord(deviceID: server.device.id, kind: "lib.note", time: nil, receivedAt: TestServer.now, detail: "not \"json\""),
            ]))
            let reply = try await server.send(.get, path, token: server.deviceToken)
            let records = try #require(try reply.json()["device_events"] as? [[String: Any]])
            #expect(records.first?["detail"] as? String == "not \"json\"")
            #expect(records.first?["time"] is NSNull)
            #expect(reply.text.hasPrefix(#"{"device_events":[{"detail":"#))
        }
    }

    /// `count` single-point rides: points 601 s apart (the default gap is 600 s).
    static func storeRides(_ server: TestServer, count: Int) async throws {
        let start = TestServer.now.addingTimeInterval(-Double(count + 1) * 601)
        let positions = (0..<count).map { i in
            Position(deviceID: server.device.id, fix: Fix(coordinate: Coordinate(uncheckedLatitude: 46, longitude: 14),
                                                          timestamp: start.addingTimeInterval(Double(i) * 601)))
        }
        _ = try await server.store.ingest(IngestWrite(deviceID: server.device.id, positions: positions, receivedAt: TestServer.now))
    }

    @Test("H5: rides come in pages of `limit` with a cursor, and the pages add up to every ride", arguments: StoreKind.available)
    func ridesPaged(kind: StoreKind) async throws {
        // Before: /rides had no limit: 200,000 single-point rides came back in one 19 MB reply (+400 MB of RSS).
        try await TestServer.run(kind) { server in
            try await Self.storeRides(server, count: 25)
            var starts: [String] = []
            var cursor: String?
            var pages = 0
            repeat {
                let uri = "/api/devices/\(server.device.id)/rides?limit=10" + (cursor.map { "&cursor=\($0)" } ?? "")
                let reply = try await server.send(.get, uri, token: server.deviceToken)
                #expect(reply.status == .ok)
                let json = try reply.json()
                let rides = try #require(json["rides"] as? [[String: Any]])
                #expect(rides.count <= 10)
                #expect(json["gap_s"] as? Int == 600)
                starts += rides.compactMap { $0["start"] as? String }
                cursor = json["next_cursor"] as? String
                pages += 1
            } while cursor != nil && pages < 10
            #expect(pages == 3)
            #expect(starts.count == 25 && Set(starts).count == 25)
            #expect(starts == starts.sorted())
        }
    }

    @Test("H5: a gap under one second is refused; an absent limit pages at 1,000")
    func rideGapFloor() async throws {
        try await TestServer.run(.sqlite) { server in
            let path = "/api/devices/\(server.device.id)/rides"
            let refused = try await server.send(.get, path + "?gap=0.5", token: server.deviceToken)
            #expect(refused.status == .badRequest)
            #expect(refused.text.contains("at least 1"))
            try await Self.storeRides(server, count: 3)
            let reply = try await server.send(.get, path, token: server.deviceToken)
            #expect(reply.text.hasPrefix(#"{"gap_s":600,"next_cursor":null,"rides":[{"distance_m":0,"end":"#), "\(reply.text.prefix(80))")
            #expect((try reply.json()["rides"] as? [Any])?.count == 3)
        }
    }
}
