import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import WaymarkGeo
import WaymarkTransport
@testable import WaymarkServer

/// Geofence events a Waymark device decided and uploaded in the native format (issue #31 item 2): stored
/// as device events apart from the server's own, queried, exported, streamed and sent to webhooks, each
/// marked as the device's; refused with the field named when they lack what makes them events.
@Suite("Device-reported geofence events")
struct DeviceFenceEventTests {
    static let t0 = TestServer.now.addingTimeInterval(-600)

    static func fix(_ seconds: Double, lat: Double = 46.05) -> Fix {
        Fix(coordinate: Coordinate(uncheckedLatitude: lat, longitude: 14.5), horizontalAccuracy: 8,
            timestamp: t0.addingTimeInterval(seconds))
    }

    static func event(_ fence: String, _ kind: String, sequence: UInt64, at seconds: Double,
                      place: Coordinate? = Coordinate(uncheckedLatitude: 46.05, longitude: 14.5)) -> NativeBatchFormat.FenceEvent {
        let time = t0.addingTimeInterval(seconds)
        return NativeBatchFormat.FenceEvent(fenceID: fence, event: kind, time: time, earliest: time.addingTimeInterval(-4),
                                            latest: time.addingTimeInterval(2), deliveredAt: time.addingTimeInterval(3),
                                            timing: "live", sequence: sequence, cause: place == nil ? "region" : "fix",
                                            coordinate: place, horizontalAccuracy: place == nil ? nil : 8,
                                            userData: ["site": "north"])
    }

    static func body(fixes: [Fix] = [], events: [NativeBatchFormat.FenceEvent]) -> String {
        String(decoding: NativeBatchFormat(deviceID: "phone").body(for: fixes, fenceEvents: events), as: UTF8.self)
    }

    static func key(_ value: String) -> HTTPFields {
        var fields = HTTPFields()
        fields[HTTPField.Name("Idempotency-Key")!] = value
        return fields
    }

    @Test("stored as device events apart from the server's, once per event, listed by kind and exported as CSV",
          arguments: StoreKind.available)
    func storedQueriedExported(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let events = [Self.event("school", "enter", sequence: 1, at: 60), Self.event("school", "exit", sequence: 2, at: 300, place: nil)]
            let reply = try await server.send(.post, "/api/ingest", token: server.deviceToken, headers: Self.key("b1"),
                                              body: Self.body(fixes: [Self.fix(0), Self.fix(60)], events: events))
            #expect(reply.status == .ok, "\(reply.text)")
            let json = try reply.json()
            #expect(json["stored"] as? Int == 2 && json["device_events"] as? Int == 2)
            #expect((json["rejected"] as? [Any])?.isEmpty == true)
            #expect(try await server.storedPositions().count == 2, "fence events are never points")
            #expect(try await server.store.fenceEvents(deviceID: server.device.id, afterID: 0, limit: 10).isEmpty,
                    "the server decided nothing: it holds no fences")

            // The same events again under a new key (a batch split or resent by a new process): absorbed.
            let again = try await server.send(.post, "/api/ingest", token: server.deviceToken, headers: Self.key("b2"),
                                              body: Self.body(events: events))
            #expect(again.status == .ok)
            #expect(try again.json()["device_events"] as? Int == 0)

            let other = #"{"locations":[{"type":"Feature","geometry":null,"properties":{"action":"app_paused","timestamp":"2025-06-15T23:50:00Z"}}]}"#
            _ = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: other)
            let all = try await server.send(.get, "/api/devices/\(server.device.id)/device-events", token: TestServer.adminToken).json()
            #expect((all["device_events"] as? [Any])?.count == 3)
            let page = try await server.send(.get, "/api/devices/\(server.device.id)/device-events?kind=waymark.fence_event",
                                             token: server.deviceToken).json()
            let listed = try #require(page["device_events"] as? [[String: Any]])
            #expect(listed.count == 2)
            #expect(listed.allSatisfy { $0["kind"] as? String == DeviceEventRecord.deviceFenceEventKind })
            let detail = try #require(listed.first?["detail"] as? [String: Any])
            #expect(detail["fence_id"] as? String == "school" && detail["event"] as? String == "enter")
            #expect(detail["sequence"] as? Int == 1 && detail["timing"] as? String == "live")
            #expect(detail["latitude"] as? Double == 46.05 && (detail["user_data"] as? [String: String])?["site"] == "north")
            #expect(listed.first?["time"] as? String == NativeBatchFormat.timestamp(Self.t0.addingTimeInterval(60)))

            let csv = try await server.send(.get, "/api/devices/\(server.device.id)/device-events?kind=waymark.fence_event&format=csv",
                                            token: TestServer.adminToken)
            #expect(csv.status == .ok && csv.headers[.contentType] == "text/csv; charset=utf-8")
            let rows = csv.text.split(separator: "\n")
            #expect(rows.count == 3)
            #expect(rows[0] == "id,kind,time,received,fence_id,event,latitude,longitude,timing,sequence,detail")
            #expect(rows[1].contains(",waymark.fence_event,") && rows[1].contains(",school,enter,46.05,14.5,live,1,"))
            #expect(rows[2].contains(",school,exit,,,live,2,"), "an event iOS decided has no place")
            #expect(try await server.send(.get, "/api/devices/\(server.device.id)/device-events?format=xml",
                                          token: TestServer.adminToken).status == .badRequest)
        }
    }

    @Test("an event without its fence, kind or time is refused at its index, naming the field; the rest is kept",
          arguments: StoreKind.available)
    func invalidEventsAreNamed(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let good = Self.body(fixes: [Self.fix(0)], events: [Self.event("school", "enter", sequence: 1, at: 60)])
            var object = try #require(try JSONSerialization.jsonObject(with: Data(good.utf8)) as? [String: Any])
            var features = try #require(object["locations"] as? [[String: Any]])
            var broken = features[1]
            var properties = try #require(broken["properties"] as? [String: Any])
            properties["event"] = "arrive"
            properties.removeValue(forKey: "time")
            broken["properties"] = properties
            features.append(broken)
            object["locations"] = features
            let body = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
            let reply = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: body)
            #expect(reply.status == .ok, "\(reply.text)")
            let json = try reply.json()
            #expect(json["stored"] as? Int == 1 && json["device_events"] as? Int == 1)
            let rejected = try #require(json["rejected"] as? [[String: Any]])
            let fields = Set(rejected.compactMap { $0["field"] as? String })
            #expect(fields == ["properties.event", "properties.time"], "\(rejected)")
            #expect(rejected.allSatisfy { $0["index"] as? Int == 1 })
            #expect(rejected.contains { ($0["message"] as? String)?.contains("'arrive' is not one of enter, exit, dwell") == true })
        }
    }

    @Test("each reported event goes to every webhook, marked as the device's", arguments: StoreKind.available)
    func webhookPayload(kind: StoreKind) async throws {
        try await WebhookReceiver.run { receiver, url in
            try await TestServer.run(kind) { server in
                _ = try await WebhookTests.subscribe(server, url)
                // A server fence too: the device's event and the server's own are delivered side by side.
                _ = try await server.send(.post, "/api/fences", token: TestServer.adminToken, body: WebhookTests.fence)
                _ = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: WebhookTests.enterBatch(minute: 0))
                let reply = try await server.send(.post, "/api/ingest", token: server.deviceToken,
                                                  body: Self.body(events: [Self.event("school", "enter", sequence: 4, at: 60)]))
                #expect(reply.status == .ok, "\(reply.text)")
                #expect(try await server.store.outboxDepth().pending == 2)
                let deliverer = WebhookDeliverer(store: server.store, policy: .localReceivers)
                #expect(try await deliverer.deliverDue(at: TestServer.now) == 2)
                let payloads = try await receiver.received.map {
                    try #require(try JSONSerialization.jsonObject(with: $0.body) as? [String: Any])
                }
                let device = try #require(payloads.first { $0["source"] as? String == "device" })
                #expect(device["type"] as? String == "device.fence.enter" && device["fence_id"] as? String == "school")
                #expect(device["device_id"] as? String == server.device.id && device["sequence"] as? Int == 4)
                #expect(device["lat"] as? Double == 46.05 && device["timing"] as? String == "live")
                #expect(device["timestamp"] as? String == NativeBatchFormat.timestamp(Self.t0.addingTimeInterval(60)))
                let decided = try #require(payloads.first { $0["type"] as? String == "fence.enter" })
                #expect(decided["source"] == nil && decided["fence_id"] as? String == "f_depot")
                // The same event resent is absorbed: no second delivery.
                _ = try await server.send(.post, "/api/ingest", token: server.deviceToken,
                                          body: Self.body(events: [Self.event("school", "enter", sequence: 4, at: 60)]))
                #expect(try await server.store.outboxDepth().pending == 0)
            }
        }
    }

    @Test("more reported fence events than maxFenceEventsPerRequest: 413 naming the limit, nothing stored")
    func perRequestCap() async throws {
        try await TestServer.run(.sqlite, configure: { $0.maxFenceEventsPerRequest = 3 }) { server in
            let events = (1...4).map { Self.event("f\($0)", "enter", sequence: 1, at: Double($0)) }
            let reply = try await server.send(.post, "/api/ingest", token: server.deviceToken,
                                              body: Self.body(fixes: [Self.fix(0)], events: events))
            #expect(reply.status == .contentTooLarge)
            #expect(reply.text.contains("maxFenceEventsPerRequest") && reply.text.contains("reports 4 fence events"))
            #expect(try await server.storedPositions().isEmpty)
        }
    }

    @Test("the live stream carries a reported event as a `device` frame in the device-events shape")
    func liveFrame() throws {
        let record = DeviceEventRecord(id: 31, deviceID: "d_1", kind: DeviceEventRecord.deviceFenceEventKind,
                                       time: Self.t0, receivedAt: TestServer.now, detail: #"{"event":"enter","fence_id":"school"}"#)
        let frame = Routes.serverSentEvent(.deviceEvent(record))
        #expect(frame.hasPrefix("event: device\ndata: {\"detail\":{\"event\":\"enter\",\"fence_id\":\"school\"},\"device_id\":\"d_1\",\"id\":31,"))
        #expect(frame.contains(#""kind":"waymark.fence_event""#) && frame.hasSuffix("}\n\n"))
        #expect(LiveFeed.Message.deviceEvent(record).deviceID == "d_1")
    }

    @Test("the server's decoder and the format's reference decoder read the same events")
    func decodersAgree() throws {
        let events = [Self.event("school", "enter", sequence: 1, at: 60), Self.event("gym", "dwell", sequence: 9, at: 90, place: nil)]
        let bytes = NativeBatchFormat(deviceID: "phone").body(for: [Self.fix(0)], fenceEvents: events)
        let reference = try NativeBatchFormat.decode(bytes)
        #expect(reference.fenceEvents == events && reference.fixes.count == 1 && reference.deviceID == "phone")
        let decoded = try OverlandDecoder.decode(try JSONSerialization.jsonObject(with: Data(bytes)))
        #expect(decoded.candidates.count == 1)
        #expect(decoded.events.map(\.kind) == [DeviceEventRecord.deviceFenceEventKind, DeviceEventRecord.deviceFenceEventKind])
        for (event, candidate) in zip(events, decoded.events) {
            let detail = try #require(try JSONSerialization.jsonObject(with: Data(candidate.detail.utf8)) as? [String: Any])
            #expect(detail["fence_id"] as? String == event.fenceID && detail["event"] as? String == event.event)
            #expect(candidate.time == event.time)
        }
    }
}

/// Fences flowing to phones (issue #31 item 3, the server's half): `GET /api/fences` is conditional on
/// the fence set's version, so a phone re-checks its copy for a few bytes.
@Suite("Conditional fence list (ETag)")
struct ConditionalFenceListTests {
    @Test("every page carries the fence set's ETag; If-None-Match answers 304 until a fence changes",
          arguments: StoreKind.available)
    func conditionalList(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            _ = try await server.send(.post, "/api/fences", token: TestServer.adminToken, body: WebhookTests.fence)
            let first = try await server.send(.get, "/api/fences", token: server.deviceToken)
            #expect(first.status == .ok)
            let tag = try #require(first.headers[.eTag])
            #expect(tag.hasPrefix("\"fences-") && first.headers[.cacheControl] == "no-cache")
            var conditional = HTTPFields()
            conditional[.ifNoneMatch] = tag
            let unchanged = try await server.send(.get, "/api/fences", token: server.deviceToken, headers: conditional)
            #expect(unchanged.status == .notModified && unchanged.body.readableBytes == 0 && unchanged.headers[.eTag] == tag)
            var weak = HTTPFields()
            weak[.ifNoneMatch] = "\"other\", W/\(tag)"
            #expect(try await server.send(.get, "/api/fences", token: server.deviceToken, headers: weak).status == .notModified)

            let second = #"{"id":"f_school","name":"School","latitude":46.06,"longitude":14.51,"radiusMeters":80}"#
            _ = try await server.send(.post, "/api/fences", token: TestServer.adminToken, body: second)
            let changed = try await server.send(.get, "/api/fences", token: server.deviceToken, headers: conditional)
            #expect(changed.status == .ok && changed.headers[.eTag] != tag)
            #expect((try changed.json()["features"] as? [Any])?.count == 2)
            let newTag = try #require(changed.headers[.eTag])
            _ = try await server.send(.delete, "/api/fences/f_school", token: TestServer.adminToken)
            var latest = HTTPFields()
            latest[.ifNoneMatch] = newTag
            #expect(try await server.send(.get, "/api/fences", token: server.deviceToken, headers: latest).status == .ok,
                    "a deletion changes the version too")
            #expect(try await server.send(.get, "/api/fences", headers: conditional).status == .unauthorized,
                    "the tag is checked only after the token")
        }
    }
}
