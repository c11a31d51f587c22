import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkSync

@Suite("Native batch format (Overland-compatible GeoJSON)")
struct NativeBatchFormatTests {
    func decode(_ body: [UInt8]) throws -> [[String: Any]] {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
        return try #require(json["locations"] as? [[String: Any]])
    }

    @Test("a full fix becomes a Point feature with [lon, lat, alt] and every property")
    func fullFix() throws {
        let fix = Fix(coordinate: Coordinate(uncheckedLatitude: 46.05, longitude: 14.5), altitude: 295.5,
                      horizontalAccuracy: 6, verticalAccuracy: 3.5, speed: 5.25, course: 270,
                      timestamp: Date(timeIntervalSince1970: 1_714_557_600.25), source: .gnss)
        let body = NativeBatchFormat(deviceID: "phone \"1\"").body(for: [fix])
        let feature = try #require(try decode(body).first)
        #expect(feature["type"] as? String == "Feature")
        let geometry = try #require(feature["geometry"] as? [String: Any])
        #expect(geometry["type"] as? String == "Point")
        #expect(geometry["coordinates"] as? [Double] == [14.5, 46.05, 295.5])
        let p = try #require(feature["properties"] as? [String: Any])
        #expect(p["timestamp"] as? String == "2024-05-01T10:00:00.250Z")
        #expect(p["horizontal_accuracy"] as? Double == 6 && p["vertical_accuracy"] as? Double == 3.5)
        #expect(p["speed"] as? Double == 5.25 && p["course"] as? Double == 270 && p["altitude"] as? Double == 295.5)
        #expect(p["device_id"] as? String == "phone \"1\"")
    }

    @Test("unknown values (nil, negative accuracy or speed, NaN) are left out, not sent as numbers")
    func unknownsOmitted() throws {
        let fix = Fix(coordinate: Coordinate(uncheckedLatitude: -33.9, longitude: 151.2), horizontalAccuracy: -1,
                      speed: .nan, course: -1, timestamp: Date(timeIntervalSince1970: 0))
        let feature = try #require(try decode(NativeBatchFormat().body(for: [fix])).first)
        #expect((feature["geometry"] as? [String: Any])?["coordinates"] as? [Double] == [151.2, -33.9])
        let p = try #require(feature["properties"] as? [String: Any])
        #expect(Set(p.keys) == ["timestamp"])
        #expect(p["timestamp"] as? String == "1970-01-01T00:00:00.000Z")
    }

    @Test("timestamps are UTC with milliseconds, also before 1970 and across leap days",
          arguments: [(951_782_400.0, "2000-02-29T00:00:00.000Z"), (-86_400.5, "1969-12-30T23:59:59.500Z"),
                      (4_102_444_799.999, "2099-12-31T23:59:59.999Z")])
    func timestamps(seconds: Double, text: String) {
        #expect(NativeBatchFormat.timestamp(Date(timeIntervalSince1970: seconds)) == text)
    }

    @Test("the body is deterministic and its size matches the store's byte accounting")
    func sizes() {
        let fixes = TestFixes.ride(count: 25)
        let format = NativeBatchFormat(deviceID: "phone-1")
        let body = format.body(for: fixes)
        #expect(body == format.body(for: fixes))
        let plain = NativeBatchFormat()
        let accounted = NativeBatchFormat.envelopeBytes - 1 + fixes.reduce(0) { $0 + plain.featureBytes($1) + format.deviceIDBytes }
        #expect(accounted == body.count)
    }
}
