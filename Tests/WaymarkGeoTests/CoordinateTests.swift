import Foundation
import Testing
@testable import WaymarkGeo

@Suite("Coordinate")
struct CoordinateTests {
    @Test("normalises longitude into [-180, 180)", arguments: [
        (190.0, -170.0), (-190.0, 170.0), (180.0, -180.0), (-180.0, -180.0), (540.0, -180.0),
        (359.5, -0.5), (0.0, 0.0), (179.999, 179.999), (-720.25, -0.25),
    ])
    func normalisesLongitude(input: Double, expected: Double) throws {
        let c = try Coordinate(latitude: 10, longitude: input)
        #expect(abs(c.longitude - expected) < 1e-9)
        #expect(c.longitude >= -180 && c.longitude < 180)
    }

    @Test("rejects NaN, infinities and latitudes out of range", arguments: [
        (Double.nan, 0.0), (0.0, Double.nan), (Double.infinity, 0.0), (0.0, -Double.infinity),
        (90.0001, 0.0), (-91.0, 0.0),
    ])
    func rejectsInvalid(lat: Double, lon: Double) {
        #expect(throws: GeoError.self) { try Coordinate(latitude: lat, longitude: lon) }
        do {
            _ = try Coordinate(latitude: lat, longitude: lon)
        } catch {
            #expect(error.code == .invalidCoordinate)
            #expect(!error.message.isEmpty)
        }
    }

    @Test("accepts the poles and the antimeridian")
    func acceptsEdges() throws {
        #expect(try Coordinate(latitude: 90, longitude: 0).latitude == 90)
        #expect(try Coordinate(latitude: -90, longitude: 0).latitude == -90)
        #expect(try Coordinate(latitude: 0, longitude: -180).longitude == -180)
    }

    @Test("decoding JSON validates the values")
    func decodingValidates() throws {
        let good = try JSONDecoder().decode(Coordinate.self, from: Data(#"{"latitude":1.5,"longitude":200}"#.utf8))
        #expect(good.longitude == -160)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Coordinate.self, from: Data(#"{"latitude":100,"longitude":0}"#.utf8))
        }
    }
}
