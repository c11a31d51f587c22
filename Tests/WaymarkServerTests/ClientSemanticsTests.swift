import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import WaymarkServer
import WaymarkGeo

/// Request shapes real clients send, taken from each client's source (Docs/SERVER.md, "What real clients
/// send"), replayed with the stored values checked: records without a position become device events, values
/// meaning "unknown" are stored as unknown, and a client that resends refused requests forever is answered 2xx.
@Suite("Ingest: what real clients mean")
struct ClientSemanticsTests {
    /// 2025-06-15T10:00:00Z, a few hours before the test server's clock.
    static let t = Date(timeIntervalSince1970: 1_749_981_600)

    static func basic(_ token: String) -> HTTPFields {
        [.authorization: "Basic " + Data("me:\(token)".utf8).base64EncodedString(), .contentType: "application/json"]
    }

    static func deviceEvents(_ server: TestServer) async throws -> [DeviceEventRecord] {
        try await server.store.deviceEvents(deviceID: server.device.id, afterID: 0, limit: 1000)
    }

    static func detail(_ event: DeviceEventRecord) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(event.detail.utf8)) as? [String: Any])
    }

    // MARK: Overland (aaronpk/Overland-iOS, OpenHumans/Overland_android)

    @Test("Overland: a batch of only an app event is a success that stores an event, not a point", arguments: StoreKind.available)
    func overlandAppEventOnly(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let body = #"{"locations":[{"type":"Feature","properties":{"timestamp":"2025-06-15T10:00:00Z","action":"will_terminate","device_id":"","wifi":"","battery_state":"unplugged","battery_level":0.8}}]}"#
            let response = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: body)
            #expect(response.status == .ok)
            let reply = try response.json()
            #expect(reply["result"] as? String == "ok" && reply["stored"] as? Int == 0 && reply["device_events"] as? Int == 1)
            #expect(try await server.storedPositions().isEmpty)
            let events = try await Self.deviceEvents(server)
            #expect(events.map(\.kind) == ["overland.will_terminate"])
            #expect(events.first?.time == Self.t)
            // The same batch again (Overland resends until it sees result ok): absorbed, still one event.
            #expect(try await server.send(.post, "/api/ingest", token: server.deviceToken, body: body).status == .ok)
            #expect(try await Self.deviceEvents(server).count == 1)
        }
    }

    @Test("Overland: visits, app events with coordinates and trip summaries are events; a trip at [0,0] invents no point",
          arguments: StoreKind.available)
    func overlandNonFixes(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let body = #"""
            {"locations":[
             {"type":"Feature","geometry":{"type":"Point","coordinates":[14.5,46.05]},"properties":{"timestamp":"2025-06-15T10:00:00Z","action":"visit","arrival_date":"2025-06-15T09:40:00Z","departure_date":null,"horizontal_accuracy":35,"device_id":"","wifi":"","battery_state":"unplugged","battery_level":0.8}},
             {"type":"Feature","geometry":{"type":"Point","coordinates":[14.5,46.05]},"properties":{"timestamp":"2025-06-15T10:00:01Z","action":"paused_location_updates","device_id":"","wifi":"","battery_state":"unplugged","battery_level":0.8}},
             {"type":"Feature","geometry":{"type":"Point","coordinates":[0,0]},"properties":{"timestamp":"2025-06-15T10:00:02Z","type":"trip","mode":"bicycle","start":"2025-06-15T09:00:00Z","end":"2025-06-15T10:00:02Z","start_location":null,"end_location":null,"duration":3602,"distance":0,"stopped_automatically":false,"steps":0,"device_id":"","wifi":"","battery_state":"unplugged","battery_level":0.8}}]}
            """#
            let response = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: body)
            #expect(response.status == .ok)
            #expect(try await server.storedPositions().isEmpty)
            let events = try await Self.deviceEvents(server)
            #expect(events.map(\.kind) == ["overland.visit", "overland.paused_location_updates", "overland.trip"])
            let visit = try Self.detail(try #require(events.first))
            #expect((visit["properties"] as? [String: Any])?["arrival_date"] as? String == "2025-06-15T09:40:00Z")
        }
    }

    @Test("Overland iOS: vertical accuracy -1 drops the altitude; an empty motion list is no activity, whatever the setting says",
          arguments: StoreKind.available)
    func overlandUnknowns(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let body = #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[14.5,46.05]},"properties":{"timestamp":"2025-06-15T10:00:00Z","altitude":0,"speed":-1,"course":-1,"horizontal_accuracy":65,"vertical_accuracy":-1,"speed_accuracy":-1,"course_accuracy":-1,"motion":[],"pauses":false,"activity":"other_navigation","desired_accuracy":100,"tracking_mode":1,"locations_in_payload":1,"device_id":"","wifi":"","battery_state":"unknown","battery_level":-1}}],"current":{"type":"Feature","geometry":{"type":"Point","coordinates":[14.6,46.1]},"properties":{"timestamp":"2025-06-15T10:05:00Z"}},"trip":{"mode":"walk","start":"2025-06-15T09:00:00Z","distance":1200,"start_location":null,"current_location":null}}"#
            #expect(try await server.send(.post, "/api/ingest", token: server.deviceToken, body: body).status == .ok)
            let stored = try await server.storedPositions()
            #expect(stored.count == 1)
            let p = try #require(stored.first)
            #expect(p.fix.altitude == nil && p.activity == nil && p.fix.horizontalAccuracy == 65)
            #expect(p.fix.speed == nil && p.fix.course == nil && p.batteryLevel == nil && p.isCharging == nil)
        }
    }

    @Test("Overland Android: a boolean battery_state is the charging state; motion 'unknown' is no activity; vertical accuracy -1 keeps the altitude",
          arguments: StoreKind.available)
    func overlandAndroid(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let body = #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[14.5,46.05]},"properties":{"timestamp":"2025-06-15T10:00:00.000Z","battery_level":0.87,"speed":-1,"altitude":301,"horizontal_accuracy":12,"vertical_accuracy":-1,"significant_change":"disabled","locations_in_payload":1,"battery_state":true,"device_id":"","wifi":"","deferred":"0","desired_accuracy":"10","activity":"other","pauses":false,"motion":["unknown"]}}],"trip":"{\"distance\": \"0\"}"}"#
            #expect(try await server.send(.post, "/api/ingest", token: server.deviceToken, body: body).status == .ok)
            let p = try #require(try await server.storedPositions().first)
            #expect(p.isCharging == true && p.batteryLevel == 0.87)
            #expect(p.fix.altitude == 301 && p.fix.verticalAccuracy == nil && p.activity == nil)
        }
    }

    /// The same fix, altitude 14 m with `vertical_accuracy -1`, as each Overland app sends it: Overland iOS copies
    /// Core Location, where a negative vertical accuracy means the altitude is invalid; Overland Android's template
    /// fills it from the transistorsoft plugin's `altitude_accuracy`, −1 when the accuracy is unknown, beside a real
    /// altitude. The Android feature is told by its boolean `battery_state` (`battery.is_charging`).
    @Test("Overland: vertical accuracy -1 is an invalid altitude from iOS, an unknown accuracy from Android (altitude 14 m kept)",
          arguments: StoreKind.available)
    func overlandAltitudePerClient(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let iOS = #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[14.5,46.05]},"properties":{"timestamp":"2025-06-15T10:00:00Z","altitude":14,"speed":-1,"course":-1,"horizontal_accuracy":12,"vertical_accuracy":-1,"speed_accuracy":-1,"course_accuracy":-1,"motion":["walking"],"pauses":false,"activity":"other","desired_accuracy":100,"tracking_mode":1,"locations_in_payload":1,"device_id":"","wifi":"","battery_state":"unplugged","battery_level":0.8}}]}"#
            let android = #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[14.5,46.05]},"properties":{"timestamp":"2025-06-15T10:00:10.000Z","battery_level":0.8,"speed":-1,"altitude":14,"horizontal_accuracy":12,"vertical_accuracy":-1,"significant_change":"disabled","locations_in_payload":1,"battery_state":false,"device_id":"","wifi":"","deferred":"0","desired_accuracy":"-1","activity":"other","pauses":true,"motion":["walking"]}}],"trip":"{\"distance\": \"0\"}"}"#
            for body in [iOS, android] {
                #expect(try await server.send(.post, "/api/ingest", token: server.deviceToken, body: body).status == .ok)
            }
            let stored = try await server.storedPositions().sorted { $0.fix.timestamp < $1.fix.timestamp }
            #expect(stored.count == 2)
            let fromIOS = try #require(stored.first), fromAndroid = try #require(stored.last)
            #expect(fromIOS.fix.timestamp == Self.t && fromIOS.isCharging == false)
            #expect(fromIOS.fix.altitude == nil && fromIOS.fix.verticalAccuracy == nil)
            #expect(fromAndroid.fix.timestamp == Self.t.addingTimeInterval(10) && fromAndroid.isCharging == false)
            #expect(fromAndroid.fix.altitude == 14 && fromAndroid.fix.verticalAccuracy == nil)
        }
    }

    // MARK: OwnTracks (owntracks/ios, owntracks/android)

    @Test("OwnTracks: an encrypted message is kept as an event, not dropped behind a 200", arguments: StoreKind.available)
    func ownTracksEncrypted(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let body = #"{"_type":"encrypted","data":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}"#
            let response = try await server.send(.post, "/pub", headers: Self.basic(server.deviceToken), body: body)
            #expect(response.status == .ok && response.text == "[]")
            let event = try #require(try await Self.deviceEvents(server).first)
            #expect(event.kind == "owntracks.encrypted" && event.time == nil)
            #expect(try Self.detail(event)["data"] as? String == "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
        }
    }

    @Test("OwnTracks Android up to 2.5.6: zeros for accuracy, altitude and course are unknown", arguments: StoreKind.available)
    func ownTracksZeros(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let body = #"{"_type":"location","_id":"1a2b3c4d","acc":0,"alt":0,"batt":87,"bs":1,"cog":0,"conn":"m","created_at":1749981605,"lat":46.05,"lon":14.5,"m":1,"t":"p","tid":"me","topic":"owntracks/http/me","tst":1749981600,"vac":0,"vel":0}"#
            #expect(try await server.send(.post, "/pub", headers: Self.basic(server.deviceToken), body: body).status == .ok)
            let p = try #require(try await server.storedPositions().first)
            #expect(p.fix.horizontalAccuracy == nil && p.fix.verticalAccuracy == nil && p.fix.altitude == nil && p.fix.course == nil)
            #expect(p.fix.speed == 0 && p.batteryLevel == 0.87 && p.isCharging == false)
        }
    }

    @Test("OwnTracks iOS: an altitude without vertical accuracy is not stored", arguments: StoreKind.available)
    func ownTracksAltitudeWithoutVac(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let body = #"{"_type":"location","acc":65,"alt":0,"batt":80,"bs":1,"conn":"w","lat":46.05,"lon":14.5,"m":1,"tid":"ph","topic":"owntracks/me/phone","tst":1749981600}"#
            #expect(try await server.send(.post, "/pub", headers: Self.basic(server.deviceToken), body: body).status == .ok)
            let p = try #require(try await server.storedPositions().first)
            #expect(p.fix.altitude == nil && p.fix.horizontalAccuracy == 65)
        }
    }

    @Test("OwnTracks: a transition is an event, so the location sent with it is stored whole", arguments: StoreKind.available)
    func ownTracksTransitionThenLocation(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let transition = #"{"_type":"transition","_id":"0badf00d","acc":12,"desc":"Home","event":"leave","lat":46.05,"lon":14.5,"t":"c","tid":"me","topic":"NOKEY","tst":1749981600,"wtst":1700000000}"#
            let location = #"{"_type":"location","_id":"1a2b3c4d","acc":12,"alt":301,"batt":87,"bs":1,"created_at":1749981601,"lat":46.05,"lon":14.5,"t":"c","tid":"me","topic":"owntracks/http/me","tst":1749981600,"vac":4,"vel":15}"#
            for body in [transition, location] {
                #expect(try await server.send(.post, "/pub", headers: Self.basic(server.deviceToken), body: body).status == .ok)
            }
            let stored = try await server.storedPositions()
            #expect(stored.count == 1)
            let p = try #require(stored.first)
            #expect(p.batteryLevel == 0.87 && p.fix.altitude == 301 && abs((p.fix.speed ?? 0) - 15 / 3.6) < 1e-9 && p.activity == nil)
            let event = try #require(try await Self.deviceEvents(server).first)
            #expect(event.kind == "owntracks.transition" && event.time == Self.t)
            #expect(try Self.detail(event)["event"] as? String == "leave")
        }
    }

    @Test("OwnTracks iOS: a transition with no known location (zeros) is acknowledged as an event with no time",
          arguments: StoreKind.available)
    func ownTracksTransitionWithoutLocation(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let body = #"{"_type":"transition","acc":0,"created_at":1749981600,"desc":"Home","event":"enter","lat":0,"lon":0,"rid":"a1b2c3","t":"c","tid":"ph","topic":"owntracks/me/phone/event","tst":0,"wtst":1700000000}"#
            #expect(try await server.send(.post, "/pub", headers: Self.basic(server.deviceToken), body: body).status == .ok)
            #expect(try await server.storedPositions().isEmpty)
            let event = try #require(try await Self.deviceEvents(server).first)
            // tst 0 is "unknown"; created_at is read instead.
            #expect(event.kind == "owntracks.transition" && event.time == Self.t)
        }
    }

    @Test("OwnTracks Android: a point it can never get accepted (clock 2 days ahead) is answered 200 and kept as a rejected event",
          arguments: StoreKind.available)
    func ownTracksRejectedPoint(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let body = #"{"_type":"location","_id":"1a2b3c4d","acc":12,"created_at":1750204800,"lat":46.05,"lon":14.5,"tid":"me","topic":"owntracks/http/me","tst":1750204800}"#
            let response = try await server.send(.post, "/pub", headers: Self.basic(server.deviceToken), body: body)
            #expect(response.status == .ok && response.text == "[]")
            #expect(response.headers[HTTPField.Name("X-Waymark-Rejected")!]?.hasPrefix("1 rejected; point 0: tst:") == true)
            #expect(try await server.storedPositions().isEmpty)
            let event = try #require(try await Self.deviceEvents(server).first)
            #expect(event.kind == DeviceEventRecord.rejectedKind && event.time == nil)
            let detail = try Self.detail(event)
            let problem = try #require((detail["problems"] as? [[String: Any]])?.first)
            #expect(problem["field"] as? String == "tst" && (problem["message"] as? String)?.contains("more than 24 h") == true)
            #expect((detail["values"] as? [String: Any])?["lat"] as? Double == 46.05)
        }
    }

    // MARK: Traccar Client (traccar/traccar-client, traccar-client-sdk, traccar-client-android, traccar-client-ios)

    @Test("Traccar Client 10: a heartbeat without coordinates and a push-token registration are events, answered 200",
          arguments: StoreKind.available)
    func traccarHeartbeat(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            let heartbeat = "id=\(server.deviceToken)&timestamp=1749981600&batt=87&charge=false&battery_health=good&battery_voltage=4012&battery_temp=27.5"
            #expect(try await server.send(.post, "/", headers: form, body: heartbeat).status == .ok)
            #expect(try await server.send(.post, "/", headers: form, body: "id=\(server.deviceToken)&notificationToken=fcm-abc123").status == .ok)
            #expect(try await server.storedPositions().isEmpty)
            let events = try await Self.deviceEvents(server)
            #expect(events.map(\.kind) == ["osmand.status", "osmand.status"])
            let detail = try Self.detail(try #require(events.first))
            #expect(detail["batt"] as? String == "87" && detail["battery_voltage"] as? String == "4012")
            #expect(detail["id"] == nil, "the token is never stored")
            #expect(events.first?.time == Self.t)
            // A normal point of the same client: knots to m/s, percent battery.
            let point = "id=\(server.deviceToken)&lat=46.05&lon=14.5&timestamp=1749981600&accuracy=12.0&altitude=301.0&speed=8.1&bearing=90.0&batt=87&charge=false&battery_health=good&battery_voltage=4012&battery_temp=27.5"
            #expect(try await server.send(.post, "/", headers: form, body: point).status == .ok)
            let p = try #require(try await server.storedPositions().first)
            #expect(abs((p.fix.speed ?? 0) - 8.1 * 1852 / 3600) < 1e-9 && p.batteryLevel == 0.87 && p.isCharging == false)
        }
    }

    @Test("Traccar Client 9 JSON: activity 'unknown' is no activity; -1 values are unknown", arguments: StoreKind.available)
    func traccarJSON(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let body = #"{"location":{"timestamp":"2025-06-15T10:00:00.000Z","coords":{"latitude":46.05,"longitude":14.5,"accuracy":12.0,"speed":-1,"heading":-1,"altitude":0},"is_moving":false,"odometer":0,"event":"","battery":{"level":-1,"is_charging":false},"activity":{"type":"unknown"},"extras":{}},"device_id":"\#(server.deviceToken)"}"#
            #expect(try await server.send(.post, "/", headers: [.contentType: "application/json"], body: body).status == .ok)
            let p = try #require(try await server.storedPositions().first)
            #expect(p.activity == nil && p.fix.speed == nil && p.fix.course == nil && p.batteryLevel == nil)
            #expect(p.fix.horizontalAccuracy == 12)
        }
    }

    @Test("legacy Traccar Client: accuracy 0 is unknown (Android); batt=0 with charge=true is an unreadable battery (iOS)",
          arguments: StoreKind.available)
    func traccarLegacy(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let android = "/?id=\(server.deviceToken)&timestamp=1749981600&lat=46.05&lon=14.5&speed=0.0&bearing=0.0&altitude=0.0&accuracy=0.0&batt=87.0"
            #expect(try await server.send(.post, android).status == .ok)
            let ios = "/?id=\(server.deviceToken)&timestamp=1749981660&lat=46.050000&lon=14.500000&altitude=0&accuracy=65&batt=0&charge=true"
            #expect(try await server.send(.post, ios).status == .ok)
            let stored = try await server.storedPositions()
            #expect(stored.count == 2)
            #expect(stored.first?.fix.horizontalAccuracy == nil && stored.first?.batteryLevel == 0.87)
            #expect(stored.last?.batteryLevel == nil && stored.last?.isCharging == nil && stored.last?.fix.horizontalAccuracy == 65)
        }
    }

    @Test("Traccar SDK JSON upload: an array of flat OsmAnd objects is one device's points; another device's id is refused",
          arguments: StoreKind.available)
    func traccarJSONArray(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let json: HTTPFields = [.contentType: "application/json"]
            let body = #"[{"id":"\#(server.deviceToken)","lat":46.05,"lon":14.5,"timestamp":1749981600,"accuracy":12.0,"altitude":301.0,"speed":8.1,"bearing":90.0,"batt":87,"charge":false},{"id":"\#(server.deviceToken)","timestamp":1749981660,"batt":86}]"#
            let response = try await server.send(.post, "/", headers: json, body: body)
            #expect(response.status == .ok, "\(response.text)")
            let p = try #require(try await server.storedPositions().first)
            #expect(abs((p.fix.speed ?? 0) - 8.1 * 1852 / 3600) < 1e-9 && p.fix.horizontalAccuracy == 12 && p.isCharging == false)
            #expect(try await Self.deviceEvents(server).map(\.kind) == ["osmand.status"])
            let mixed = #"[{"id":"\#(server.deviceToken)","lat":46.05,"lon":14.5,"timestamp":1749981700},{"id":"wmd_other","lat":46,"lon":14,"timestamp":1749981700}]"#
            #expect(try await server.send(.post, "/", headers: json, body: mixed).status == .badRequest)
            #expect(try await server.storedPositions().count == 1)
        }
    }

    @Test("OsmAnd's template with speed_mps and accuracy: speed in m/s and the accuracy are kept", arguments: StoreKind.available)
    func osmAndMetresPerSecond(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let uri = "/osmand?id=\(server.deviceToken)&lat=46.05&lon=14.5&timestamp=1749981600000&accuracy=12.0&altitude=301.0&speed_mps=4.2&bearing=90&batt=80"
            #expect(try await server.send(.get, uri).status == .ok)
            let p = try #require(try await server.storedPositions().first)
            #expect(p.fix.speed == 4.2 && p.fix.horizontalAccuracy == 12 && p.fix.timestamp == Self.t && p.batteryLevel == 0.8)
        }
    }

    // MARK: GPSLogger (mendhak/gpslogger), Colota (dietrichmax/colota)

    @Test("GPSLogger's default template: 'longitude' and 'time' are read, so the fix keeps its own time",
          arguments: StoreKind.available)
    func gpsLoggerDefaultTemplate(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let uri = "/osmand?lat=46.05&longitude=14.5&time=2025-06-15T10%3A00%3A00.000Z&s=4.2&id=\(server.deviceToken)"
            #expect(try await server.send(.get, uri).status == .ok)
            let p = try #require(try await server.storedPositions().first)
            #expect(p.fix.timestamp == Self.t && p.fix.coordinate.longitude == 14.5)
        }
    }

    @Test("Colota: a synthetic point with accuracy 0 is stored with unknown accuracy", arguments: StoreKind.available)
    func colotaZeroAccuracy(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let body = #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[14.5,46.05]},"properties":{"timestamp":"2025-06-15T10:00:00Z","horizontal_accuracy":0,"battery_level":0.87,"battery_state":"unplugged"}}],"device_id":"colota"}"#
            #expect(try await server.send(.post, "/api/ingest", token: server.deviceToken, body: body).status == .ok)
            let p = try #require(try await server.storedPositions().first)
            #expect(p.fix.horizontalAccuracy == nil && p.batteryLevel == 0.87)
        }
    }

    @Test("Colota's default field-mapped JSON: one flat object, vel in m/s, bs as a battery status code",
          arguments: StoreKind.available)
    func colotaFieldMapped(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let json: HTTPFields = [.contentType: "application/json"]
            // The token in the object's `id` (a custom field), then in a Bearer header.
            let body = #"{"lat":46.05,"lon":14.5,"acc":12,"alt":301,"vel":4.2,"batt":87,"bs":1,"tst":1749981600,"bear":90,"id":"\#(server.deviceToken)"}"#
            #expect(try await server.send(.post, "/", headers: json, body: body).status == .ok)
            let headed = #"{"lat":46.06,"lon":14.5,"acc":0,"batt":50,"bs":2,"tst":1749981660}"#
            #expect(try await server.send(.post, "/", token: server.deviceToken, headers: json, body: headed).status == .ok)
            let stored = try await server.storedPositions()
            #expect(stored.count == 2)
            let p = try #require(stored.first)
            #expect(p.fix.timestamp == Self.t && p.fix.speed == 4.2 && p.fix.horizontalAccuracy == 12 && p.fix.altitude == 301)
            #expect(p.fix.course == 90 && p.batteryLevel == 0.87 && p.isCharging == false, "bs 1 is unplugged")
            #expect(stored.last?.isCharging == true && stored.last?.fix.horizontalAccuracy == nil, "bs 2 is charging; acc 0 is unknown")
        }
    }

    @Test("a battery status code: 0 unknown, 1 unplugged, 2 charging, 3 full; it wins over charge", arguments: StoreKind.available)
    func colotaBatteryStatus(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            for (i, bs) in ["0", "1", "2", "3", "7"].enumerated() {
                let uri = "/osmand?id=\(server.deviceToken)&lat=46.05&lon=14.5&tst=\(1_749_981_600 + i)&vel=3&bs=\(bs)&charge=true"
                #expect(try await server.send(.get, uri).status == .ok)
            }
            let stored = try await server.storedPositions()
            #expect(stored.map(\.isCharging) == [nil, false, true, true, nil])
            #expect(stored.allSatisfy { $0.fix.speed == 3 }, "vel is m/s")
        }
    }

    // MARK: reading events

    @Test("device events are listed by id, a page at a time, to the device itself and the admin only", arguments: StoreKind.available)
    func listing(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            for i in 0..<3 {
                let body = #"{"_type":"status","tst":\#(1_749_981_600 + i),"android":{"hib":1}}"#
                #expect(try await server.send(.post, "/pub", headers: Self.basic(server.deviceToken), body: body).status == .ok)
            }
            let path = "/api/devices/\(server.device.id)/device-events"
            let first = try await server.send(.get, path + "?limit=2", token: server.deviceToken).json()
            let page = try #require(first["device_events"] as? [[String: Any]])
            #expect(page.count == 2 && page.first?["kind"] as? String == "owntracks.status")
            #expect(page.first?["time"] as? String == "2025-06-15T10:00:00.000Z")
            #expect((page.first?["detail"] as? [String: Any])?["android"] != nil)
            let next = try #require(first["next_after"] as? Int)
            let rest = try await server.send(.get, path + "?after=\(next)", token: TestServer.adminToken).json()
            #expect((rest["device_events"] as? [[String: Any]])?.count == 1 && rest["next_after"] is NSNull)
            let (_, otherToken) = try await DeviceRegistry.register(name: "other", in: server.store, at: TestServer.now)
            #expect(try await server.send(.get, path, token: otherToken).status == .forbidden)
            #expect(try await server.send(.get, path + "?after=-1", token: server.deviceToken).status == .badRequest)
        }
    }
}
