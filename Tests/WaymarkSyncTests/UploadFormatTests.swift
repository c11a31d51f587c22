import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
import WaymarkSimulatedPhone
@testable import WaymarkSync
@testable import WaymarkTransport

/// The upload formats on the phone (issue #32, item 2): what each built-in format writes, the
/// template's checks and body, and how the executor batches and keeps what a format cannot carry.
@Suite("Upload formats")
struct UploadFormatTests {
    static func json(_ bytes: [UInt8]) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
    }

    static let fix = Fix(coordinate: Coordinate(uncheckedLatitude: 46.051234567, longitude: 14.505678901), altitude: 301.6,
                         horizontalAccuracy: 6.4, verticalAccuracy: 3.5, speed: 5.5, course: 87.6,
                         timestamp: Date(timeIntervalSince1970: 1_750_000_000.75), source: .gnss)

    @Test("OwnTracks: one location message with the apps' units, Basic auth with the token as password, no Idempotency-Key")
    func ownTracks() throws {
        let format = try UploadFormat.owntracks(user: "jane", device: "phone")
        let request = format.request(fixes: [Self.fix, Self.fix], key: "k1", token: "secret")
        let message = try #require(try Self.json(request.body) as? [String: Any])
        #expect(message["_type"] as? String == "location")
        #expect(message["lat"] as? Double == 46.051234567)
        #expect(message["lon"] as? Double == 14.505678901)
        #expect(message["tst"] as? Int == 1_750_000_000)
        #expect(message["acc"] as? Int == 6)
        #expect(message["alt"] as? Int == 302)
        #expect(message["vac"] as? Int == 4)
        #expect(message["vel"] as? Int == 20)           // 5.5 m/s = 19.8 km/h
        #expect(message["cog"] as? Int == 88)
        #expect(message["tid"] as? String == "ne")
        #expect(message["topic"] as? String == "owntracks/jane/phone")
        let headers = Dictionary(uniqueKeysWithValues: request.headerFields.map { ($0.name, $0.value) })
        #expect(headers["Authorization"] == "Basic " + Data("jane:secret".utf8).base64EncodedString())
        #expect(headers["X-Limit-U"] == "jane" && headers["X-Limit-D"] == "phone")
        #expect(headers["Idempotency-Key"] == nil)
        #expect(format.maxPointsPerRequest == 1 && !format.carriesGapsAndFenceEvents && format.defaultPath == "/pub")
        // Unknown values are left out, not sent as zeros.
        let bare = format.request(fixes: [Fix(coordinate: Self.fix.coordinate, speed: -1, timestamp: Self.fix.timestamp)], key: "k", token: "t")
        let keys = Set(try #require(try Self.json(bare.body) as? [String: Any]).keys)
        #expect(keys == ["_type", "lat", "lon", "tst", "tid", "topic"])
    }

    @Test("OwnTracks names are checked", arguments: [("", "phone", nil), ("ja/ne", "phone", nil), ("jane", "phone", "ABC")] as [(String, String, String?)])
    func ownTracksNames(user: String, device: String, trackerID: String?) {
        do {
            _ = try UploadFormat.owntracks(user: user, device: device, trackerID: trackerID)
            Issue.record("accepted \(user)/\(device)/\(trackerID ?? "nil")")
        } catch let error as TransportError {
            #expect(error.code == .uploadFormat && error.message.hasPrefix("OwnTracks"), "\(error.message)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test("Traccar: the OsmAnd query with time in milliseconds and speed in knots, an empty body, the token as id")
    func traccar() throws {
        let request = UploadFormat.traccar().request(fixes: [Self.fix], key: "k1", token: "tok en&1")
        #expect(request.body.isEmpty && request.contentType == nil && request.authorization == .none && !request.sendsIdempotencyKey)
        let query = Dictionary(uniqueKeysWithValues: request.query.map { ($0.name, $0.value) })
        #expect(query["id"] == "tok en&1")
        #expect(query["timestamp"] == "1750000000750")
        #expect(Double(try #require(query["lat"])) == 46.051234567)
        #expect(abs(Double(try #require(query["speed"]))! * UploadFormat.metresPerSecondPerKnot - 5.5) < 1e-12)
        #expect(query["bearing"] == "87.6" && query["altitude"] == "301.6" && query["accuracy"] == "6.4")
        let url = request.url(appendingQueryTo: "http://h:5055/")
        #expect(url.hasPrefix("http://h:5055/?id=tok%20en%261&timestamp=1750000000750&lat=46.051234567"), "\(url)")
        #expect(request.headerFields.isEmpty)
        #expect(UploadFormat.decimal(1e-7) == "0.0000001" && Double(UploadFormat.decimal(1e-7)) == 1e-7)
    }

    @Test("Overland: the native points without gap markers or geofence events; native keeps them")
    func overland() throws {
        let gap = NativeBatchFormat.Gap(rideID: RideID(), start: Self.fix.timestamp, end: Self.fix.timestamp.addingTimeInterval(60), reason: "terminated")
        let overland = UploadFormat.overland(deviceID: "p1").request(fixes: [Self.fix], gaps: [gap], key: "k", token: "t")
        let native = UploadFormat.native(deviceID: "p1").request(fixes: [Self.fix], gaps: [gap], key: "k", token: "t")
        let features = try #require((try Self.json(overland.body) as? [String: Any])?["locations"] as? [Any])
        #expect(features.count == 1)
        #expect(overland.body == NativeBatchFormat(deviceID: "p1").body(for: [Self.fix]))
        #expect(native.body == NativeBatchFormat(deviceID: "p1").body(for: [Self.fix], gaps: [gap]))
        #expect(overland.sendsIdempotencyKey && native.sendsIdempotencyKey)
        #expect(UploadFormat.overland().acknowledgement == .resultOK)
    }

    @Test("a plain 2xx acknowledges OwnTracks and Traccar requests, never native or Overland ones")
    func acknowledgement() throws {
        let plain = UploadResponse.status(200, body: Array("[]".utf8))
        #expect(try UploadFormat.owntracks(user: "a", device: "b").interpret(plain).isAcknowledgement)
        #expect(UploadFormat.traccar().interpret(.status(200, body: [])).isAcknowledgement)
        #expect(!UploadFormat.native().interpret(plain).isAcknowledgement)
        #expect(!UploadFormat.overland().interpret(plain).isAcknowledgement)
        #expect(UploadFormat.traccar().interpret(.status(400, body: [])) == .status(400, body: []))
        let rejected = UploadResponse.status(200, body: Array(#"{"result":"ok","rejected":[{"index":0,"message":"bad"}]}"#.utf8))
        #expect(UploadFormat.traccar().interpret(rejected).rejections.count == 1, "a reply that already acknowledges keeps its rejections")
    }

    @Test("a template fills numbers, strings and unknowns, inside and outside strings, with extra fields, headers and query")
    func templateBody() throws {
        let template = try UploadTemplate(
            location: #"{"lat":{{latitude}},"lng":{{ longitude }},"at":"{{timestamp}}","ms":{{epoch_milliseconds}},"#
                + #""acc":{{horizontal_accuracy}},"spd":"{{speed_kmh}} km/h","label":"fix of {{device_id}}"}"#,
            rootProperty: "points", extraFields: ["device": "{{device_id}}", "version": 2, "live": true],
            headers: ["X-Api-Key": "{{token}}"], query: ["batch": "{{batch_key}}"], authorization: .none)
        let unknown = Fix(coordinate: Self.fix.coordinate, horizontalAccuracy: -1, timestamp: Self.fix.timestamp)
        let request = UploadFormat.template(template, deviceID: "van \"7\"").request(fixes: [Self.fix, unknown], key: "b-1", token: "s3cret")
        let body = try #require(try Self.json(request.body) as? [String: Any])
        #expect(body["device"] as? String == "van \"7\"" && body["version"] as? Int == 2 && body["live"] as? Bool == true)
        let points = try #require(body["points"] as? [[String: Any]])
        #expect(points.count == 2)
        #expect(points[0]["lat"] as? Double == 46.051234567 && points[0]["lng"] as? Double == 14.505678901)
        #expect(points[0]["at"] as? String == "2025-06-15T15:06:40.750Z")
        #expect(points[0]["ms"] as? Int == 1_750_000_000_750)
        #expect(points[0]["acc"] as? Double == 6.4)
        #expect(points[0]["spd"] as? String == "19.8 km/h")
        #expect(points[0]["label"] as? String == "fix of van \"7\"")
        #expect(points[1]["acc"] is NSNull, "an unknown value outside a string is null")
        #expect(points[1]["spd"] as? String == " km/h", "an unknown value inside a string is empty")
        #expect(request.query == [.init("batch", "b-1")])
        #expect(request.headerFields.contains(.init("X-Api-Key", "s3cret")))
        #expect(!request.headerFields.contains { $0.name == "Authorization" })
        #expect(request.headerFields.contains(.init("Idempotency-Key", "b-1")))
        // At most maxPoints per request; the executor forms batches that size.
        #expect(UploadFormat.template(template).maxPointsPerRequest == 100)
    }

    @Test("a single-location template sends an object, and may put fix values in the query (a form-style API)")
    func templateSingle() throws {
        let template = try UploadTemplate(location: #"{"t":{{epoch_seconds}}}"#, rootProperty: nil,
                                          query: ["lat": "{{latitude}}", "id": "{{device_id}}"], batching: .single)
        let request = UploadFormat.template(template, deviceID: "d1").request(fixes: [Self.fix], key: "k", token: "t")
        #expect(String(decoding: request.body, as: UTF8.self) == #"{"t":1750000000}"#)
        #expect(request.query == [.init("id", "d1"), .init("lat", "46.051234567")])
    }

    @Test("an invalid template is refused with a message naming what is wrong and where", arguments: [
        (#"{"lat":{{lattitude}}}"#, "unknown placeholder '{{lattitude}}' at character 8"),
        (#"{"lat":{{latitude}"#, "'{{' at character 8 has no closing '}}'"),
        (#"[{{latitude}}]"#, "must make a JSON object"),
        (#"{"lat" {{latitude}}}"#, "not valid JSON once filled in"),
    ])
    func templateLocationErrors(location: String, expected: String) {
        do {
            _ = try UploadTemplate(location: location)
            Issue.record("accepted \(location)")
        } catch let error as TransportError {
            #expect(error.code == .uploadFormat)
            #expect(error.message.contains(expected), "\(error.message)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test("template options are checked")
    func templateOptionErrors() {
        let location = #"{"lat":{{latitude}}}"#
        func message(_ make: () throws -> UploadTemplate) -> String {
            do { _ = try make(); return "accepted" } catch let error as TransportError { return error.message } catch { return "\(error)" }
        }
        #expect(message { try UploadTemplate(location: location, rootProperty: "") }.contains("rootProperty is empty"))
        #expect(message { try UploadTemplate(location: location, rootProperty: nil, extraFields: ["a": 1]) }.contains("need a rootProperty"))
        #expect(message { try UploadTemplate(location: location, extraFields: ["locations": 1]) }.contains("has the name of rootProperty"))
        #expect(message { try UploadTemplate(location: location, headers: ["Bad Header": "x"]) }.contains("'Bad Header' is not an HTTP token"))
        #expect(message { try UploadTemplate(location: location, headers: ["Content-Length": "3"]) }.contains("set by the transport"))
        #expect(message { try UploadTemplate(location: location, headers: ["X-A": "a\r\nX-B: b"]) }.contains("line break"))
        #expect(message { try UploadTemplate(location: location, query: ["lat": "{{latitude}}"]) }
            .contains("query item 'lat' uses '{{latitude}}', a value of one fix, but a request carries up to 100 locations"))
        #expect(message { try UploadTemplate(location: location, query: ["x": "{{nope}}"]) }.contains("unknown placeholder '{{nope}}'"))
        #expect(message { try UploadTemplate(location: location, batching: .array(maxPoints: 0)) }.contains("at least one location"))
        #expect(message { try UploadTemplate(location: location, extraFields: ["n": .number(.infinity)]) }.contains("not a finite number"))
    }

    @Test("the request's headers: defaults are the native format's; a template header replaces one of the same name")
    func headers() {
        let native = UploadRequest(key: "k", body: [], token: "t")
        #expect(native.headerFields == [.init("Authorization", "Bearer t"), .init("Content-Type", "application/json"), .init("Idempotency-Key", "k")])
        let replaced = UploadRequest(key: "k", body: [], token: "t", headers: [.init("content-type", "text/plain")])
        #expect(replaced.headerFields == [.init("Authorization", "Bearer t"), .init("Idempotency-Key", "k"), .init("content-type", "text/plain")])
        #expect(native.url(appendingQueryTo: "http://h/p") == "http://h/p")
        #expect(UploadRequest(key: "k", body: [], token: "t", query: [.init("a", "1 2")]).url(appendingQueryTo: "http://h/p?x=1") == "http://h/p?x=1&a=1%202")
    }

    // MARK: - The executor

    static func uploader(_ store: RideStore, _ transport: any UploadTransport, _ format: UploadFormat) throws -> VirtualTimeUploader {
        try VirtualTimeUploader(store: store, transport: transport, credentials: DeviceCredentials(token: "tok"),
                                configuration: .init(backoffBase: 1, backoffCap: 2), uploadFormat: format,
                                now: TestFixes.start.addingTimeInterval(3_600))
    }

    /// Answers every request with `status` and `body`, and keeps the requests.
    actor Recorder: UploadTransport {
        private(set) var requests: [UploadRequest] = []
        let status: Int, body: String
        init(status: Int = 200, body: String = "[]") { self.status = status; self.body = body }
        nonisolated func send(_ request: UploadRequest) async -> UploadResponse { await record(request) }
        func record(_ request: UploadRequest) -> UploadResponse {
            requests.append(request)
            return .status(status, body: Array(body.utf8))
        }
    }

    @Test("a one-point format: batches of one, every point sent once and deleted on a plain 200; gap markers and events kept on the phone")
    func executorOnePoint() async throws {
        let store = try RideStore.inMemory()
        let ride = try store.startRide(at: TestFixes.start)
        let fixes = TestFixes.ride(count: 12)
        try store.append(fixes, to: ride.id)
        try store.recordGap(GapRecord(ride: ride.id, start: TestFixes.start, end: TestFixes.start.addingTimeInterval(30), reason: "terminated"))
        try store.recordFenceEvent(FenceEventUploadTests.event("school", .enter, sequence: 1, at: 5))
        let transport = Recorder()
        var uploader = try Self.uploader(store, transport, try .owntracks(user: "u", device: "d"))
        try await uploader.sendAll()
        let requests = await transport.requests
        #expect(requests.count == 12)
        let times = try requests.map { try #require((try Self.json($0.body) as? [String: Any])?["tst"] as? Int) }
        #expect(times == fixes.map { Int($0.timestamp.timeIntervalSince1970) })
        #expect(try store.fixCount() == 0)
        #expect(try store.backlog().isEmpty)
        let unsent = try store.unsentRecords()
        #expect(unsent.gaps.count == 1 && unsent.fenceEvents.count == 1, "kept on the phone, not marked uploaded")
        #expect(try store.gapsAwaitingUpload().isEmpty && store.fenceEvents(awaitingUploadOnly: true).isEmpty)
        // Back to the native format: they wait for upload again.
        let requeued = try store.requeueUnsentRecords()
        #expect(requeued.gaps == 1 && requeued.fenceEvents == 1)
        #expect(try store.backlog().unbatchedGaps == 1 && store.backlog().unbatchedFenceEvents == 1)
    }

    @Test("a batch formed for the native format and then sent as OwnTracks is split to single points; its records stay on the phone")
    func executorSwitch() async throws {
        let store = try RideStore.inMemory()
        let ride = try store.startRide(at: TestFixes.start)
        try store.append(TestFixes.ride(count: 5), to: ride.id)
        try store.recordGap(GapRecord(ride: ride.id, start: TestFixes.start, end: TestFixes.start.addingTimeInterval(30), reason: "terminated"))
        try store.formBatch(maxPoints: 100, maxBytes: 1 << 20, at: TestFixes.start)
        let transport = Recorder(body: "")
        var uploader = try Self.uploader(store, transport, .traccar())
        try await uploader.sendAll()
        let requests = await transport.requests
        #expect(requests.count == 5 && requests.allSatisfy { $0.body.isEmpty && $0.query.first == .init("id", "tok") })
        #expect(try store.fixCount() == 0 && store.backlog().isEmpty)
        #expect(try store.unsentRecords().gaps.count == 1)
    }

    @Test("a refused request keeps its point on the phone: a non-2xx is no acknowledgement for any format")
    func refusal() async throws {
        let store = try RideStore.inMemory()
        let ride = try store.startRide(at: TestFixes.start)
        try store.append(TestFixes.ride(count: 3), to: ride.id)
        var uploader = try Self.uploader(store, Recorder(status: 503, body: "busy"), .traccar())
        try await uploader.sendAll(maxSteps: 5)
        #expect(try store.fixCount() == 3)
    }
}

