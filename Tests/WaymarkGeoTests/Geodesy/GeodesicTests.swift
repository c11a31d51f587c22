import Foundation
import Testing
import WaymarkGeo

/// Builds a coordinate in tests; the values are known to be valid.
func coord(_ latitude: Double, _ longitude: Double) -> Coordinate {
    Coordinate(uncheckedLatitude: latitude, longitude: Coordinate.normalizedLongitude(longitude))
}

/// The difference of two azimuths in degrees, wrapped into [0, 180].
func azimuthDifference(_ a: Double, _ b: Double) -> Double {
    abs(remainder(a - b, 360))
}

@Suite("Geodesic")
struct GeodesicTests {
    let g = Geodesic.wgs84

    /// Reference values from GeographicLib 2.1 (Python): lat1, lon1, lat2, lon2, s12, azi1, azi2.
    @Test("matches GeographicLib on classic lines", arguments: [
        (40.64, -73.78, 1.36, 103.99, 15_347_512.94051294, 3.3057734780176125, 177.48784020815515),   // JFK–SIN
        (-41.32, 174.81, 40.96, -5.50, 19_959_679.26735382, 161.06766998616015, 18.825195123247063),  // nearly antipodal
        (0, 0, 0.5, 179.5, 19_936_288.578965314, 25.67187286829188, 154.3270854699416),               // astroid region
        (0, 0, 0, 179.5, 19_980_861.908890963, 55.966495140158635, 124.03350485984137),               // equatorial, not along it
        (0, 0, 90, 0, 10_001_965.729312724, 0, 0),                                                     // meridian quadrant
        (0, 0, 0, 90, 10_018_754.171394622, 90, 90),                                                   // along the equator
        (0, 179.9, 0, -179.9, 22_263.898158653446, 90, 90),                                            // across the antimeridian
        (47.3769, 8.5417, 47.378, 8.54, 177.30823440295538, -46.39009363060254, -46.3913445426751),    // short
    ])
    func classicLines(lat1: Double, lon1: Double, lat2: Double, lon2: Double,
                      s12: Double, azi1: Double, azi2: Double) {
        let r = g.inverse(coord(lat1, lon1), coord(lat2, lon2))
        #expect(abs(r.distance - s12) < 1e-6)
        #expect(azimuthDifference(r.initialAzimuth, azi1) < 1e-9)
        #expect(azimuthDifference(r.finalAzimuth, azi2) < 1e-9)
    }

    @Test("pole to pole is twice the meridian quadrant")
    func poleToPole() {
        let r = g.inverse(coord(90, 0), coord(-90, 0))
        #expect(abs(r.distance - 20_003_931.458625447) < 1e-6)
        let antipodal = g.inverse(coord(10, 20), coord(-10, -160))
        #expect(abs(antipodal.distance - 20_003_931.458625447) < 1e-6)
    }

    @Test("coincident points are 0 m apart", arguments: [(0.0, 0.0), (45.5, -120.25), (90.0, 10.0), (-90.0, -179.0)])
    func coincident(lat: Double, lon: Double) {
        let r = g.inverse(coord(lat, lon), coord(lat, lon))
        #expect(r.distance == 0)
        #expect(r.initialAzimuth.isFinite && r.finalAzimuth.isFinite)
    }

    @Test("the distance is symmetric and the reverse azimuths are the forward ones turned by 180°")
    func symmetry() {
        var rng = SeededRandom(seed: 7)
        for _ in 0..<500 {
            let a = rng.coordinate(maxLatitude: 89), b = rng.coordinate(maxLatitude: 89)
            let ab = g.inverse(a, b), ba = g.inverse(b, a)
            #expect(abs(ab.distance - ba.distance) < 1e-8)
            if ab.distance < 19_900_000 {   // away from the antipodal region where the route can flip
                #expect(azimuthDifference(ba.initialAzimuth, ab.finalAzimuth + 180) < 1e-8)
                #expect(azimuthDifference(ba.finalAzimuth, ab.initialAzimuth + 180) < 1e-8)
            }
        }
    }

    @Test("direct after inverse returns to the second point and the same final azimuth")
    func directInverseRoundTrip() {
        var rng = SeededRandom(seed: 11)
        for _ in 0..<500 {
            let a = rng.coordinate(maxLatitude: 89.9), b = rng.coordinate(maxLatitude: 89.9)
            let line = g.inverse(a, b)
            let end = g.direct(from: a, azimuth: line.initialAzimuth, distance: line.distance)
            #expect(g.inverse(end.destination, b).distance < 1e-6)
            #expect(azimuthDifference(end.finalAzimuth, line.finalAzimuth) < 1e-7)
        }
    }

    @Test("inverse after direct gives back the distance and azimuth")
    func inverseDirectRoundTrip() {
        var rng = SeededRandom(seed: 13)
        for _ in 0..<500 {
            let a = rng.coordinate(maxLatitude: 89)
            let azimuth = Double.random(in: -180..<180, using: &rng)
            let distance = Double.random(in: 1...19_000_000, using: &rng)
            let end = g.direct(from: a, azimuth: azimuth, distance: distance)
            let back = g.inverse(a, end.destination)
            #expect(abs(back.distance - distance) < 1e-6)
            #expect(azimuthDifference(back.initialAzimuth, azimuth) < 1e-7)
        }
    }

    @Test("distances obey the triangle inequality")
    func triangleInequality() {
        var rng = SeededRandom(seed: 17)
        for _ in 0..<300 {
            let a = rng.coordinate(), b = rng.coordinate(), c = rng.coordinate()
            let ac = g.inverse(a, c).distance, ab = g.inverse(a, b).distance, bc = g.inverse(b, c).distance
            #expect(ac <= ab + bc + 1e-6)
        }
    }

    @Test("a geodesic split at its midpoint has halves adding up to the whole")
    func additivity() {
        var rng = SeededRandom(seed: 19)
        for _ in 0..<200 {
            let a = rng.coordinate(maxLatitude: 85), b = rng.coordinate(maxLatitude: 85)
            let line = g.inverse(a, b)
            let mid = g.direct(from: a, azimuth: line.initialAzimuth, distance: line.distance / 2).destination
            let sum = g.inverse(a, mid).distance + g.inverse(mid, b).distance
            #expect(abs(sum - line.distance) < 1e-6)
        }
    }

    @Test("direct along the equator and meridians gives the exact arcs")
    func directSpecialLines() {
        let east = g.direct(from: coord(0, 10), azimuth: 90, distance: 10_018_754.171394622)
        #expect(abs(east.destination.latitude) < 1e-12)
        #expect(abs(east.destination.longitude - 100) < 1e-9)
        #expect(abs(east.finalAzimuth - 90) < 1e-12)
        let north = g.direct(from: coord(0, 10), azimuth: 0, distance: 10_001_965.729312724)
        #expect(abs(north.destination.latitude - 90) < 1e-9)
        // Over the pole: 1000 km past it lands on the opposite meridian, heading south.
        let over = g.direct(from: coord(80, 10), azimuth: 0, distance: 2_000_000)
        #expect(abs(over.destination.longitude - -170) < 1e-9)
        #expect(abs(azimuthDifference(over.finalAzimuth, 180)) < 1e-9)
        #expect(abs(g.inverse(coord(80, 10), over.destination).distance - 2_000_000) < 1e-6)
    }

    @Test("haversine stays within 0.6% of the geodesic")
    func geodesicVersusHaversine() {
        var rng = SeededRandom(seed: 23)
        for _ in 0..<200 {
            let a = rng.coordinate(), b = rng.coordinate()
            let d = a.distance(to: b), h = a.haversineDistance(to: b)
            #expect(abs(d - h) <= 0.006 * d + 1e-9)
        }
    }
}
