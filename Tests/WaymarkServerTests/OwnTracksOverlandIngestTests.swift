import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import WaymarkServer
import WaymarkGeo

@Suite("Ingest: OwnTracks and Overland")
struct OwnTracksOverlandIngestTests {
    static func basic(_ token: String, user: String = "ana") -> String {
        "Basic " + Data("\(user):\(token)".utf8).base64EncodedString()
    }

    @Test("stores an OwnTracks location with km/h converted to m/s, percent battery and charging state", arguments: StoreKind.available)
    func ownTracksLocation(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let body = #"{"_type":"location","acc":75,"alt":13,"batt":46,"bs":2,"cog":270,"conn":"w","lat":46.0681247,"lon":11.1512805,"t":"u","tid":"5t","tst":1376715317,"vac":10,"vel":54}"#
            let response = try await server.send(.post, "/pub", headers: [
                .authorization: Self.basic(server.deviceToken),
                HTTPField.Name("X-Limit-U")!: "ana", HTTPField.Name("X-Limit-D")!: "phone",
                .contentType: "application/json",
            ], body: body)
            #expect(response.status == .ok)
            #expect(response.text == "[]")
            let p = try #require(try await server.storedPositions().first)
            #expect(p.fix.timestamp == Date(timeIntervalSince1970: 1_376_715_317))
            #expect(p.fix.speed == 15)  // 54 km/h
            #expect(p.fix.course == 270 && p.fix.horizontalAccuracy == 75 && p.fix.verticalAccuracy == 10)
            #expect(p.fix.altitude == 13 && p.batteryLevel == 0.46 && p.isCharging == true)
            #expect(p.fix.coordinate.latitude == 46.0681247)
        }
    }

    @Test("keeps transitions, waypoints and other types as device events, never as points", arguments: StoreKind.available)
    func ownTracksOtherTypes(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let auth: HTTPFields = [.authorization: Self.basic(server.deviceToken)]
            let transition = #"{"_type":"transition","wtst":1376700000,"lat":48.85833,"lon":2.29513,"tst":1497349316,"acc":5,"tid":"JJ","event":"enter","desc":"Tour Eiffel","t":"c"}"#
            let waypoint = #"{"_type":"waypoint","desc":"Home","lat":46.05,"lon":14.5,"rad":100,"tst":1497349000}"#
            let waypoints = #"{"_type":"waypoints","waypoints":[\#(waypoint)]}"#
            for body in [transition, waypoint, waypoints, #"{"_type":"lwt","tst":1497349316}"#] {
                let response = try await server.send(.post, "/pub", headers: auth, body: body)
                #expect(response.status == .ok && response.text == "[]", "\(body)")
            }
            #expect(try await server.storedPositions().isEmpty)
            let events = try await server.store.deviceEvents(deviceID: server.device.id, afterID: 0, limit: 10)
            #expect(events.map(\.kind) == ["owntracks.transition", "owntracks.waypoint", "owntracks.waypoints", "owntracks.lwt"])
            #expect(events.first?.time == Date(timeIntervalSince1970: 1_497_349_316))
        }
    }

    @Test("refuses OwnTracks without valid Basic credentials", arguments: StoreKind.available)
    func ownTracksAuth(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let body = #"{"_type":"location","lat":1,"lon":2,"tst":1497349316}"#
            let anonymous = try await server.send(.post, "/pub", body: body)
            #expect(anonymous.status == .unauthorized)
            let wrong = try await server.send(.post, "/pub", headers: [.authorization: Self.basic("wmd_wrong")], body: body)
            #expect(wrong.status == .unauthorized)
            #expect(try await server.storedPositions().isEmpty)
        }
    }

    static func feature(lon: Double, lat: Double, time: String, extra: String = "") -> String {
        #"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]},"properties":{"timestamp":"\#(time)","altitude":80,"speed":4.2,"horizontal_accuracy":30,"vertical_accuracy":-1,"motion":["driving","stationary"],"battery_state":"unplugged","battery_level":0.89\#(extra)}}"#
    }

    @Test("stores an Overland batch, replies ok, and acknowledges a replayed Idempotency-Key once", arguments: StoreKind.available)
    func overlandBatch(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let body = #"{"locations":["# + [
                Self.feature(lon: -122.621, lat: 45.521, time: "2015-10-01T08:00:00-0700"),
                Self.feature(lon: -122.622, lat: 45.522, time: "2015-10-01T15:00:30Z"),
            ].joined(separator: ",") + "]}"
            let headers: HTTPFields = [HTTPField.Name("Idempotency-Key")!: "batch-42"]
            let first = try await server.send(.post, "/api/ingest", token: server.deviceToken, headers: headers, body: body)
            #expect(first.status == .ok)
            let reply = try first.json()
            #expect(reply["result"] as? String == "ok")
            #expect(reply["stored"] as? Int == 2)
            let replay = try await server.send(.post, "/api/ingest", token: server.deviceToken, headers: headers, body: body)
            #expect(try replay.json()["result"] as? String == "ok")
            #expect(try replay.json()["replayed"] as? Bool == true)
            let stored = try await server.storedPositions()
            #expect(stored.count == 2)
            let p = try #require(stored.first)
            #expect(p.fix.timestamp == Date(timeIntervalSince1970: 1_443_711_600))
            #expect(p.fix.speed == 4.2 && p.fix.horizontalAccuracy == 30 && p.fix.verticalAccuracy == nil)
            #expect(p.batteryLevel == 0.89 && p.isCharging == false && p.activity == "driving")
            #expect(stored[1].fix.timestamp == Date(timeIntervalSince1970: 1_443_711_630))
        }
    }

    static let gapFeature = #"{"type":"Feature","geometry":null,"properties":{"waymark_kind":"gap","ride_id":"R1","start":"2015-10-01T15:01:00.000Z","end":"2015-10-01T15:05:00.000Z","reason":"terminated"}}"#

    @Test("stores Waymark gap-marker features as gaps, not points; a later bad point keeps its index",
          arguments: StoreKind.available)
    func overlandGapMarkers(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let body = #"{"locations":["# + [
                Self.gapFeature,
                Self.feature(lon: -122.622, lat: 45.522, time: "2015-10-01T15:00:30Z"),
                Self.feature(lon: -122.623, lat: 95, time: "2015-10-01T15:00:31Z"),
            ].joined(separator: ",") + "]}"
            let mixed = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: body)
            #expect(mixed.status == .ok)
            let reply = try mixed.json()
            #expect(reply["stored"] as? Int == 1)
            #expect(reply["gaps"] as? Int == 1)
            let rejected = try #require(reply["rejected"] as? [[String: Any]])
            #expect(rejected.map { $0["index"] as? Int } == [2], "the gap marker is not a rejected point, and indexes stay")
            let gapsOnly = try await server.send(.post, "/api/ingest", token: server.deviceToken,
                                                 body: #"{"locations":[\#(Self.gapFeature)]}"#)
            #expect(gapsOnly.status == .ok, "a batch of gap markers only is not a 422")
            #expect(try gapsOnly.json()["stored"] as? Int == 0)
            #expect(try gapsOnly.json()["gaps"] as? Int == 0, "the same marker again is absorbed")
            #expect(try await server.storedPositions().count == 1)

            let listed = try await server.send(.get, "/api/devices/\(server.device.id)/gaps", token: server.deviceToken).json()
            let gaps = try #require(listed["gaps"] as? [[String: Any]])
            #expect(gaps.count == 1)
            #expect(gaps.first?["start"] as? String == "2015-10-01T15:01:00.000Z")
            #expect(gaps.first?["end"] as? String == "2015-10-01T15:05:00.000Z")
            #expect(gaps.first?["reason"] as? String == "terminated")
            #expect(gaps.first?["ride_id"] as? String == "R1")
            #expect(gaps.first?["device_id"] as? String == server.device.id)
            #expect(listed["next_cursor"] is NSNull)
        }
    }

    @Test("a gap marker without times, with end before start or in the far future is rejected by name",
          arguments: StoreKind.available)
    func invalidGapMarkers(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            func gap(_ properties: String) -> String {
                #"{"type":"Feature","geometry":null,"properties":{"waymark_kind":"gap",\#(properties)}}"#
            }
            let bad = [
                gap(#""end":"2015-10-01T15:05:00Z""#),
                gap(#""start":"2015-10-01T15:05:00Z","end":"2015-10-01T15:01:00Z""#),
                gap(#""start":"soon","end":"2015-10-01T15:01:00Z""#),
                gap(#""start":"2015-10-01T15:05:00Z","end":"2099-01-01T00:00:00Z""#),
            ]
            let reply = try await server.send(.post, "/api/ingest", token: server.deviceToken,
                                              body: #"{"locations":["# + bad.joined(separator: ",") + "]}")
            #expect(reply.status == .unprocessableContent)
            let problems = try #require((reply.json()["error"] as? [String: Any])?["problems"] as? [[String: Any]])
            #expect(problems.map { $0["index"] as? Int } == [0, 1, 2, 3])
            #expect(problems.map { $0["field"] as? String }
                    == ["properties.start", "properties.end", "properties.start", "properties.end"])
            let listed = try await server.send(.get, "/api/devices/\(server.device.id)/gaps", token: server.deviceToken).json()
            #expect((listed["gaps"] as? [Any])?.isEmpty == true)
        }
    }
}
