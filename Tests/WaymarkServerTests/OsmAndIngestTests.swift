import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import WaymarkServer
import WaymarkGeo

/// The OsmAnd protocol and Traccar Client JSON, with the request shapes of Traccar's own decoder tests.
@Suite("Ingest: OsmAnd and Traccar Client")
struct OsmAndIngestTests {
    /// Replaces the placeholder `TOKEN` with the device token (the OsmAnd `id` carries it).
    static func uri(_ template: String, _ server: TestServer) -> String {
        template.replacingOccurrences(of: "TOKEN", with: server.deviceToken)
    }

    @Test("stores the query-string examples from Traccar's OsmAnd decoder tests with the right units", arguments: StoreKind.available)
    func traccarQueryExamples(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let examples: [(String, Double, Double, Double?, Double?)] = [
                // uri, latitude, expected epoch seconds, altitude, speed m/s
                ("/?id=TOKEN&lat=42.06288&lon=-88.23412&timestamp=2016-01-27T18%3A55%3A47Z&hdop=6.0&altitude=224.0&speed=0.0",
                 42.06288, 1_453_920_947, 224, 0),
                ("/?id=TOKEN&lat=42.06288&lon=-88.23412&timestamp=1442068686579&hdop=6.0&altitude=224.0&speed=0.0",
                 42.06288, 1_442_068_686.579, 224, 0),
                ("/?lat=49.60688&lon=6.15788&timestamp=2014-06-04+09%3A10%3A11&altitude=384.7&speed=0.0&id=TOKEN",
                 49.60688, 1_401_873_011, 384.7, 0),
                ("/?id=TOKEN&timestamp=1377177267&location=60.0,30.0", 60, 1_377_177_267, nil, nil),
                ("/?id=TOKEN&timestamp=1504763810&lat=40.7232948571&lon=-74.0061408571&bearing=7.19889788244&speed=40&ignition=true&rpm=933&fuel=24",
                 40.7232948571, 1_504_763_810, nil, 40 * 1852 / 3600.0),
            ]
            for (template, latitude, epoch, altitude, speed) in examples {
                let response = try await server.send(.get, Self.uri(template, server))
                #expect(response.status == .ok, "\(template): \(response.text)")
                let stored = try await server.store.positions(PositionQuery(deviceID: server.device.id, limit: 100))
                let p = try #require(stored.first { $0.fix.timestamp == Date(timeIntervalSince1970: epoch) }, "\(template)")
                #expect(p.fix.coordinate.latitude == latitude)
                #expect(p.fix.altitude == altitude)
                if let speed { #expect(abs(try #require(p.fix.speed) - speed) < 1e-9) } else { #expect(p.fix.speed == nil) }
            }
            let last = try #require(try await server.store.positions(PositionQuery(deviceID: server.device.id))
                .first { $0.fix.timestamp.timeIntervalSince1970 == 1_504_763_810 })
            #expect(last.fix.course == 7.19889788244)
            #expect(last.fix.coordinate.longitude == -74.0061408571)
        }
    }

    @Test("uses the receive time when the request has no timestamp, and reads batt and deviceid", arguments: StoreKind.available)
    func noTimestamp(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            try await server.send(.get, Self.uri("/?id=TOKEN&lat=41.666667&lon=-0.883333&altitude=350.059479&speed=0.000000&batt=87", server))
            var p = try #require(try await server.storedPositions().last)
            #expect(p.fix.timestamp == TestServer.now)
            #expect(p.batteryLevel == 0.87)
            #expect(p.fix.altitude == 350.059479)
            // `deviceid` works like `id`; `heading` like `bearing`; `hacc`/`vacc` are accuracies.
            try await server.send(.post, Self.uri("/?lat=60.0&lon=30.0&speed=0.0&heading=90.0&vacc=4&hacc=12&altitude=0&deviceid=TOKEN&timestamp=1377177267", server))
            p = try #require(try await server.storedPositions().first)
            #expect(p.fix.course == 90 && p.fix.horizontalAccuracy == 12 && p.fix.verticalAccuracy == 4)
        }
    }

    @Test("reads a form body, charge and the SQL date-time spelling", arguments: StoreKind.available)
    func formBody(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let body = "id=\(server.deviceToken)&lat=46.0569&lon=14.5058&timestamp=2024-03-01%2012%3A30%3A00&accuracy=8.5&batt=42&charge=true&speed=10"
            let response = try await server.send(.post, "/osmand", headers: [.contentType: "application/x-www-form-urlencoded"], body: body)
            #expect(response.status == .ok)
            let p = try #require(try await server.storedPositions().first)
            #expect(p.fix.timestamp == Date(timeIntervalSince1970: 1_709_296_200))
            #expect(p.fix.horizontalAccuracy == 8.5)
            #expect(p.batteryLevel == 0.42 && p.isCharging == true)
            #expect(abs(try #require(p.fix.speed) - 5.144444444) < 1e-6)
        }
    }

    @Test("refuses OsmAnd requests without a device; keeps one without a position as a device event", arguments: StoreKind.available)
    func rejections(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            // No id: Traccar ignores it; we answer 400 naming the missing field.
            let noID = try await server.send(.get, "/?timestamp=1377177267&lat=60.0&lon=30.0")
            #expect(noID.status == .badRequest)
            #expect(noID.text.contains("'id'"))
            // An unknown id is an unknown token.
            #expect(try await server.send(.get, "/?id=123456&timestamp=1377177267&lat=60.0&lon=30.0").status == .unauthorized)
            // Cell and Wi-Fi only, no coordinates: no point, but the record is kept (a client resends refused requests).
            let cells = try await server.send(.get, Self.uri("/?id=TOKEN&timestamp=1377177267&cell=257,02,16,2224&wifi=00-14-22-01-23-45,-80", server))
            #expect(cells.status == .ok)
            #expect(try cells.json()["device_events"] as? Int == 1)
            #expect(try await server.storedPositions().isEmpty)
            let event = try #require(try await server.store.deviceEvents(deviceID: server.device.id, afterID: 0, limit: 10).first)
            #expect(event.kind == "osmand.status" && event.detail.contains("00-14-22-01-23-45") && !event.detail.contains(server.deviceToken))
        }
    }

    @Test("stores the Traccar Client JSON examples with m/s speed, battery and unknown -1 values", arguments: StoreKind.available)
    func traccarJSON(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let bodies = [
                #"{"location":{"timestamp":"2025-06-15T13:45:12.862Z","coords":{"latitude":37.4219983,"longitude":-122.084,"accuracy":5,"speed":0,"heading":-1,"altitude":5},"is_moving":false,"odometer":0,"event":"motionchange","battery":{"level":1,"is_charging":false},"activity":{"type":"still"},"extras":{}},"device_id":"TOKEN"}"#,
                #"{"location":{"event":"motionchange","is_moving":false,"uuid":"0e9a2473-a9a7-4c00-997b-fb97d2154e75","timestamp":"2021-07-21T08:06:34.444Z","odometer":0,"coords":{"latitude":-6.1148096,"longitude":106.6837015,"accuracy":3.8,"speed":18.67,"speed_accuracy":0.26,"heading":63,"heading_accuracy":0.28,"altitude":35.7,"altitude_accuracy":3.8},"activity":{"type":"still","confidence":100},"battery":{"is_charging":false,"level":0.79},"extras":{}},"device_id":"TOKEN"}"#,
                #"{"location":{"extras":{},"mock":true,"coords":{"speed_accuracy":-1,"speed":-1,"longitude":-122.406417,"ellipsoidal_altitude":0,"floor":null,"heading_accuracy":-1,"latitude":37.785834000000001,"accuracy":5,"altitude_accuracy":-1,"altitude":0,"heading":-1},"is_moving":false,"age":188,"odometer":0,"uuid":"2FB04C65","event":"motionchange","battery":{"level":-1,"is_charging":false},"activity":{"type":"unknown","confidence":100},"timestamp":"2025-05-09T04:11:30.579Z"},"device_id":"TOKEN"}"#,
            ]
            for body in bodies {
                let response = try await server.send(.post, "/", headers: [.contentType: "application/json"],
                                                      body: body.replacingOccurrences(of: "TOKEN", with: server.deviceToken))
                #expect(response.status == .ok, "\(response.text)")
            }
            let stored = try await server.storedPositions()
            #expect(stored.count == 3)
            let jakarta = try #require(stored.first)
            #expect(jakarta.fix.timestamp == Date(timeIntervalSince1970: 1_626_854_794.444))
            #expect(jakarta.fix.speed == 18.67 && jakarta.fix.course == 63 && jakarta.fix.altitude == 35.7)
            #expect(jakarta.batteryLevel == 0.79 && jakarta.isCharging == false && jakarta.activity == "still")
            let simulator = stored[1]
            #expect(simulator.fix.speed == nil && simulator.fix.course == nil && simulator.batteryLevel == nil)
            let mountainView = stored[2]
            #expect(mountainView.fix.timestamp == Date(timeIntervalSince1970: 1_749_995_112.862))
            #expect(mountainView.batteryLevel == 1 && mountainView.fix.speed == 0 && mountainView.fix.course == nil)
        }
    }
}
