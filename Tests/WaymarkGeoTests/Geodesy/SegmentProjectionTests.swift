import Foundation
import Testing
import WaymarkGeo

@Suite("Distance to segments and polylines")
struct SegmentProjectionTests {
    @Test("a point beside the middle of a segment projects to its middle")
    func perpendicular() {
        let a = coord(47, 8), b = coord(47, 8.01)
        let mid = Geodesic.wgs84.inverse(a, b)
        let foot = Geodesic.wgs84.direct(from: a, azimuth: mid.initialAzimuth, distance: mid.distance / 2)
        let p = Geodesic.wgs84.direct(from: foot.destination, azimuth: foot.finalAzimuth - 90, distance: 250).destination
        let hit = p.projection(ontoSegmentFrom: a, to: b)
        #expect(abs(hit.distance - 250) < 0.05)
        #expect(abs(hit.fraction - 0.5) < 1e-3)
        #expect(Geodesic.wgs84.inverse(hit.nearest, foot.destination).distance < 0.5)
    }

    @Test("points beyond the ends project onto the end points")
    func clamped() {
        let a = coord(0, 0), b = coord(0, 0.01)
        let before = coord(0.001, -0.005).projection(ontoSegmentFrom: a, to: b)
        #expect(before.fraction == 0 && before.nearest == a)
        #expect(abs(before.distance - coord(0.001, -0.005).distance(to: a)) < 1e-6)
        let after = coord(-0.002, 0.02).projection(ontoSegmentFrom: a, to: b)
        #expect(after.fraction == 1 && after.nearest == b)
    }

    @Test("a zero-length segment is its point")
    func degenerate() {
        let a = coord(10, 10)
        let hit = coord(10.001, 10).projection(ontoSegmentFrom: a, to: a)
        #expect(hit.fraction == 0)
        #expect(abs(hit.distance - coord(10.001, 10).distance(to: a)) < 1e-6)
    }

    @Test("the distance is never more than to either end and matches a dense search", arguments: [3, 4, 5])
    func denseSearch(seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        for _ in 0..<100 {
            let a = rng.coordinate(maxLatitude: 75)
            let b = Geodesic.wgs84.direct(from: a, azimuth: .random(in: -180..<180, using: &rng),
                                          distance: .random(in: 10...5_000, using: &rng)).destination
            let p = Geodesic.wgs84.direct(from: a, azimuth: .random(in: -180..<180, using: &rng),
                                          distance: .random(in: 0...5_000, using: &rng)).destination
            let hit = p.projection(ontoSegmentFrom: a, to: b)
            var best = Double.infinity
            for k in 0...2000 {
                let t = Double(k) / 2000
                let q = coord(a.latitude + t * (b.latitude - a.latitude), a.longitude + t * remainder(b.longitude - a.longitude, 360))
                best = min(best, p.distance(to: q))
            }
            #expect(hit.distance <= min(p.distance(to: a), p.distance(to: b)) * (1 + LocalApproximation.relativeErrorBound))
            #expect(abs(hit.distance - best) < 0.01 + 1e-4 * best)
        }
    }

    @Test("works across the antimeridian")
    func antimeridian() {
        let hit = coord(0.001, 180).projection(ontoSegmentFrom: coord(0, 179.99), to: coord(0, -179.99))
        #expect(abs(hit.fraction - 0.5) < 1e-9)
        #expect(abs(hit.distance - 110.574) < 0.01)
    }

    @Test("a polyline reports the nearest segment, fraction and distance")
    func polyline() throws {
        let line = [coord(0, 0), coord(0, 0.01), coord(0.01, 0.01), coord(0.01, 0.02)]
        let hit = try #require(coord(0.005, 0.011).projection(ontoPolyline: line))
        #expect(hit.segmentIndex == 1)
        #expect(abs(hit.fraction - 0.5) < 1e-3)
        #expect(abs(hit.distance - coord(0.005, 0.011).distance(to: coord(0.005, 0.01))) < 0.01)
        #expect(coord(0, 0).projection(ontoPolyline: [Coordinate]()) == nil)
        let single = try #require(coord(0, 0.001).projection(ontoPolyline: [coord(0, 0)]))
        #expect(single.segmentIndex == 0 && single.fraction == 0)
    }

    @Test("LocalProjection maps to metres east and north and back")
    func localProjection() {
        let map = LocalProjection(origin: coord(52.52, 13.405))
        let p = map.project(coord(52.53, 13.405))
        #expect(abs(p.east) < 1e-9)
        #expect(abs(p.north - coord(52.52, 13.405).distance(to: coord(52.53, 13.405))) < 0.01)
        let back = map.coordinate(east: 300, north: -200)
        let q = map.project(back)
        #expect(abs(q.east - 300) < 1e-6 && abs(q.north - -200) < 1e-6)
        let d = (300.0 * 300 + 200 * 200).squareRoot()
        #expect(abs(map.origin.distance(to: back) - d) / d < 1e-4 * tan(52.52 * .pi / 180))
    }
}
