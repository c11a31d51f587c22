import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import WaymarkServer
import WaymarkGeo

/// The request examples of Traccar's OsmAnd and OwnTracks decoder tests and of the OwnTracks
/// documentation, sent as the peers' clients send them, with the stored values checked.
/// Each example's client id gets its own device (its token replaces the id).
@Suite("Peer compatibility: Traccar and OwnTracks examples")
struct PeerExamplesTests {
    /// Registers a device for each client id and returns the tokens by id.
    static func devices(_ ids: [String], in server: TestServer) async throws -> [String: (DeviceRecord, String)] {
        var result: [String: (DeviceRecord, String)] = [:]
        for id in Set(ids) { result[id] = try await DeviceRegistry.register(name: "peer-\(id)", in: server.store) }
        return result
    }

    static func only(_ device: DeviceRecord, _ server: TestServer) async throws -> Position {
        let stored = try await server.store.positions(PositionQuery(deviceID: device.id))
        #expect(stored.count == 1)
        return try #require(stored.first)
    }

    struct OsmAndCase: Sendable {
        var id: String, uri: String
        var epoch: Double?, latitude: Double, longitude: Double
        var speed: Double?, course: Double?, altitude: Double?, accuracy: Double?, battery: Double?
    }

    /// Every query example of Traccar's OsmAndProtocolDecoderTest that carries a position.
    static let osmAndQueries = [
        OsmAndCase(id: "902064", uri: "/?id=902064&lat=42.06288&lon=-88.23412&timestamp=2016-01-27T18%3A55%3A47Z&hdop=6.0&altitude=224.0&speed=0.0",
                   epoch: 1_453_920_947, latitude: 42.06288, longitude: -88.23412, speed: 0, altitude: 224),
        OsmAndCase(id: "902065", uri: "/?id=902065&lat=42.06288&lon=-88.23412&timestamp=1442068686579&hdop=6.0&altitude=224.0&speed=0.0",
                   epoch: 1_442_068_686.579, latitude: 42.06288, longitude: -88.23412, speed: 0, altitude: 224),
        OsmAndCase(id: "353861053849681", uri: "/?lat=49.60688&lon=6.15788&timestamp=2014-06-04+09%3A10%3A11&altitude=384.7&speed=0.0&id=353861053849681",
                   epoch: 1_401_873_011, latitude: 49.60688, longitude: 6.15788, speed: 0, altitude: 384.7),
        OsmAndCase(id: "123456", uri: "/?id=123456&timestamp=1377177267&lat=60.0&lon=30.0&speed=0.0&bearing=0.0&altitude=0&hdop=0.0",
                   epoch: 1_377_177_267, latitude: 60, longitude: 30, speed: 0, course: 0, altitude: 0),
        OsmAndCase(id: "123457", uri: "/?id=123457&timestamp=1377177267&lat=60.0&lon=30.0",
                   epoch: 1_377_177_267, latitude: 60, longitude: 30),
        OsmAndCase(id: "123458", uri: "/?lat=60.0&lon=30.0&speed=0.0&heading=0.0&vacc=0&hacc=0&altitude=0&deviceid=123458",
                   // hacc=0 is "not available" (every client studied sends 0 for it): stored as unknown.
                   epoch: nil, latitude: 60, longitude: 30, speed: 0, course: 0, altitude: 0, accuracy: nil),
        OsmAndCase(id: "861001000719969", uri: "/?id=861001000719969&lat=41.666667&lon=-0.883333&altitude=350.059479&speed=0.000000&batt=87",
                   epoch: nil, latitude: 41.666667, longitude: -0.883333, speed: 0, altitude: 350.059479, battery: 0.87),
        OsmAndCase(id: "123459", uri: "/?id=123459&timestamp=1377177267&location=60.0,30.0",
                   epoch: 1_377_177_267, latitude: 60, longitude: 30),
        // speed=40 knots = 20.5778 m/s.
        OsmAndCase(id: "123456789012345", uri: "/?id=123456789012345&timestamp=1504763810&lat=40.7232948571&lon=-74.0061408571&bearing=7.19889788244&speed=40&ignition=true&rpm=933&fuel=24",
                   epoch: 1_504_763_810, latitude: 40.7232948571, longitude: -74.0061408571, speed: 40 * 1852 / 3600.0,
                   course: 7.19889788244),
    ]

    @Test("stores every OsmAnd query example of Traccar's decoder test with knots in m/s", arguments: StoreKind.available)
    func osmAndQueries(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let devices = try await Self.devices(Self.osmAndQueries.map(\.id), in: server)
            for example in Self.osmAndQueries {
                let (device, token) = try #require(devices[example.id])
                let uri = example.uri.replacingOccurrences(of: "id=\(example.id)", with: "id=\(token)")
                let response = try await server.send(.get, uri)
                #expect(response.status == .ok, "\(example.uri): \(response.text)")
                let p = try await Self.only(device, server)
                #expect(p.fix.timestamp == example.epoch.map { Date(timeIntervalSince1970: $0) } ?? TestServer.now, "\(example.uri)")
                #expect(p.fix.coordinate.latitude == example.latitude && p.fix.coordinate.longitude == example.longitude)
                #expect(p.fix.speed.map { abs($0 - (example.speed ?? .nan)) < 1e-9 } ?? (example.speed == nil), "\(example.uri)")
                #expect(p.fix.course == example.course && p.fix.altitude == example.altitude, "\(example.uri)")
                #expect(p.fix.horizontalAccuracy == example.accuracy && p.batteryLevel == example.battery, "\(example.uri)")
            }
        }
    }

    @Test("stores Traccar's JSON examples verbatim, with the \"_\" echo and typed extras", arguments: StoreKind.available)
    func traccarJSONVerbatim(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let devices = try await Self.devices(["48241179", "48241180"], in: server)
            let bodies = [
                ("48241179", #"{"location":{"timestamp":"2025-06-15T13:45:12.862Z","coords":{"latitude":37.4219983,"longitude":-122.084,"accuracy":5,"speed":0,"heading":-1,"altitude":5},"is_moving":false,"odometer":0,"event":"motionchange","battery":{"level":1,"is_charging":false},"activity":{"type":"still"},"extras":{},"_":"&id=48241179&lat=37.4219983&lon=-122.084&timestamp=2025-06-15T13:45:12.862Z&"},"device_id":"48241179"}"#),
                ("48241180", #"{"location":{"timestamp":"2025-06-15T13:45:12.862Z","coords":{"latitude":37.4219983,"longitude":-122.084,"accuracy":5,"speed":0,"heading":-1,"altitude":5},"is_moving":false,"odometer":0,"event":"motionchange","battery":{"level":1,"is_charging":false},"activity":{"type":"still"},"extras":{"device_string_test":"long_device_id","device_bool_test":true,"device_bool_false_test":false,"device_integer_test":1,"device_double_test":1.345,"device_very_long_double_test":1763636.3442},"_":"&id=48241180&lat=37.4219983&lon=-122.084&timestamp=2025-06-15T13:45:12.862Z&"},"device_id":"48241180"}"#),
            ]
            for (id, body) in bodies {
                let (device, token) = try #require(devices[id])
                let response = try await server.send(.post, "/", headers: [.contentType: "application/json"],
                                                      body: body.replacingOccurrences(of: id, with: token))
                #expect(response.status == .ok, "\(response.text)")
                let p = try await Self.only(device, server)
                #expect(p.fix.timestamp == Date(timeIntervalSince1970: 1_749_995_112.862))
                #expect(p.fix.coordinate.latitude == 37.4219983 && p.fix.coordinate.longitude == -122.084)
                #expect(p.fix.speed == 0 && p.fix.course == nil && p.fix.altitude == 5 && p.fix.horizontalAccuracy == 5)
                #expect(p.batteryLevel == 1 && p.isCharging == false && p.activity == "still")
            }
        }
    }

    struct OwnTracksCase: Sendable {
        var body: String
        var epoch: Double, latitude: Double, longitude: Double
        var speed: Double?, course: Double?, altitude: Double?, accuracy: Double?, verticalAccuracy: Double?
        var battery: Double?, charging: Bool?, activity: String?
    }

    /// Traccar's OwnTracksProtocolDecoderTest bodies and the location example of the OwnTracks documentation (its transition example is a device event, not a point: ClientSemanticsTests).
    static let ownTracks = [
        OwnTracksCase(body: #"{"_type":"location","acc":15,"alt":440,"batt":46,"conn":"w","lat":46.0681247,"lon":11.1512805,"t":"u","tid":"5t","tst":1551874878,"vac":2,"vel":0}"#,
                      epoch: 1_551_874_878, latitude: 46.0681247, longitude: 11.1512805, speed: 0, altitude: 440, accuracy: 15,
                      verticalAccuracy: 2, battery: 0.46),
        OwnTracksCase(body: #"{"lon":2.29513,"lat":48.85833,"tst":1497349316,"_type":"location","tid":"JJ"}"#,
                      epoch: 1_497_349_316, latitude: 48.85833, longitude: 2.29513),
        // vel 61 km/h = 16.94 m/s.
        OwnTracksCase(body: #"{"cog":271,"lon":2.29513,"acc":5,"vel":61,"vac":21,"lat":48.85833,"tst":1497349316,"alt":167,"_type":"location","tid":"JJ","t":"u","batt":67}"#,
                      epoch: 1_497_349_316, latitude: 48.85833, longitude: 2.29513, speed: 61 / 3.6, course: 271, altitude: 167,
                      accuracy: 5, verticalAccuracy: 21, battery: 0.67),
        OwnTracksCase(body: #"{"lat":48.85,"lon":2.295,"_type":"location","tid":"JJ","tst":1497476456}"#,
                      epoch: 1_497_476_456, latitude: 48.85, longitude: 2.295),
        OwnTracksCase(body: #"{"lon":-122,"acc":5,"created_at":1736161415,"lat":37,"topic":"owntracks/ckrey/22A67880-15C3-41A6-9157-25545C7993AC","t":"u","m":1,"tst":1736161169,"conn":"w","alt":0,"_type":"location","tid":"AC"}"#,
                      // alt 0 without vac: the iOS app's "no valid altitude" (Docs/SERVER.md), stored as unknown.
                      epoch: 1_736_161_169, latitude: 37, longitude: -122, altitude: nil, accuracy: 5),
        OwnTracksCase(body: #"{"topic":"owntracks/qtripp/865284041968706","lat":47.420051,"lon":13.654704,"vel":0,"cog":113,"tst":1736519167,"mcc":232,"mnc":1,"lac":"4F4D","cid":"673A","_type":"location","acc":10,"alt":1113,"t":"I","don":105,"tid":"CS"}"#,
                      epoch: 1_736_519_167, latitude: 47.420051, longitude: 13.654704, speed: 0, course: 113, altitude: 1113, accuracy: 10),
        // The documentation's location example (bs 2: charging); vel 54 km/h = 15 m/s.
        OwnTracksCase(body: #"{"_type":"location","acc":75,"alt":13,"batt":46,"bs":2,"cog":270,"conn":"w","lat":46.0681247,"lon":11.1512805,"t":"u","tid":"5t","tst":1376715317,"vac":10,"vel":54}"#,
                      epoch: 1_376_715_317, latitude: 46.0681247, longitude: 11.1512805, speed: 15, course: 270, altitude: 13,
                      accuracy: 75, verticalAccuracy: 10, battery: 0.46, charging: true),
    ]

    @Test("stores the OwnTracks examples with km/h in m/s, epoch seconds and percent battery", arguments: StoreKind.available)
    func ownTracksExamples(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            for (i, example) in Self.ownTracks.enumerated() {
                let (device, token) = try await DeviceRegistry.register(name: "owntracks-\(i)", in: server.store)
                let response = try await server.send(.post, "/pub", headers: [
                    .authorization: "Basic " + Data("user:\(token)".utf8).base64EncodedString(),
                    .contentType: "application/json", HTTPField.Name("X-Limit-U")!: "user", HTTPField.Name("X-Limit-D")!: "phone",
                ], body: example.body)
                #expect(response.status == .ok && response.text == "[]", "\(example.body): \(response.text)")
                let p = try await Self.only(device, server)
                #expect(p.fix.timestamp == Date(timeIntervalSince1970: example.epoch), "\(example.body)")
                #expect(p.fix.coordinate.latitude == example.latitude && p.fix.coordinate.longitude == example.longitude)
                #expect(p.fix.speed.map { abs($0 - (example.speed ?? .nan)) < 1e-9 } ?? (example.speed == nil), "\(example.body)")
                #expect(p.fix.course == example.course && p.fix.altitude == example.altitude, "\(example.body)")
                #expect(p.fix.horizontalAccuracy == example.accuracy && p.fix.verticalAccuracy == example.verticalAccuracy)
                #expect(p.batteryLevel == example.battery && p.isCharging == example.charging && p.activity == example.activity,
                        "\(example.body)")
            }
        }
    }
}
