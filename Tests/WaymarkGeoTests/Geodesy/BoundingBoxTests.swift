import Foundation
import Testing
import WaymarkGeo

@Suite("BoundingBox")
struct BoundingBoxTests {
    @Test("an empty sequence has no box; one point gives a zero-size box")
    func emptyAndSingle() throws {
        #expect(BoundingBox([Coordinate]()) == nil)
        let box = try #require(BoundingBox([coord(10, 20)]))
        #expect(box == BoundingBox(minLatitude: 10, minLongitude: 20, maxLatitude: 10, maxLongitude: 20))
        #expect(box.isDegenerate)
        #expect(box.contains(coord(10, 20)))
    }

    @Test("points on both sides of the antimeridian give a narrow box across it")
    func antimeridian() throws {
        let box = try #require(BoundingBox([coord(10, 179), coord(12, -179), coord(11, 179.5)]))
        #expect(box.crossesAntimeridian)
        #expect(box.minLongitude == 179 && box.maxLongitude == -179)
        #expect(abs(box.longitudeSpan - 2) < 1e-12)
        #expect(box.contains(coord(11, -180)))
        #expect(box.contains(coord(11, 179.9)))
        #expect(!box.contains(coord(11, 0)))
        #expect(abs(box.center.longitude - -180) < 1e-12 && box.center.latitude == 11)
    }

    @Test("points spread round the globe take the complement of the widest gap")
    func widestGap() throws {
        // Widest gap across the antimeridian (160°): an ordinary box.
        let plain = try #require(BoundingBox([coord(0, 100), coord(0, -100), coord(0, 0)]))
        #expect(plain.minLongitude == -100 && plain.maxLongitude == 100 && !plain.crossesAntimeridian)
        // Widest gap between -60° and 60° (120°): the box runs from 60° east across 180° to -60°.
        let box = try #require(BoundingBox([coord(0, -170), coord(0, -60), coord(0, 60), coord(0, 170)]))
        #expect(box.minLongitude == 60 && box.maxLongitude == -60)
        #expect(box.longitudeSpan == 240)
        #expect(!box.contains(coord(0, 0)) && box.contains(coord(0, 180)))
    }

    @Test("union joins boxes the short way and covers everything when needed")
    func union() {
        let a = BoundingBox(minLatitude: 0, minLongitude: 170, maxLatitude: 1, maxLongitude: 175)
        let b = BoundingBox(minLatitude: -1, minLongitude: -175, maxLatitude: 0.5, maxLongitude: -170)
        let u = a.union(b)
        #expect(u == BoundingBox(minLatitude: -1, minLongitude: 170, maxLatitude: 1, maxLongitude: -170))
        #expect(u.contains(a) && u.contains(b))
        let inner = BoundingBox(minLatitude: 0.2, minLongitude: 171, maxLatitude: 0.3, maxLongitude: 172)
        #expect(a.union(inner) == a)
        let wide1 = BoundingBox(minLatitude: 0, minLongitude: -170, maxLatitude: 1, maxLongitude: 20)
        let wide2 = BoundingBox(minLatitude: 0, minLongitude: 10, maxLatitude: 1, maxLongitude: -160)
        #expect(wide1.union(wide2).coversAllLongitudes)
    }

    @Test("formUnion grows a streaming box along a track across the antimeridian")
    func streaming() {
        var box = BoundingBox(coord(5, 178))
        for lon in stride(from: 178.0, through: 186, by: 0.5) { box.formUnion(coord(5 + lon / 100, lon)) }
        #expect(box.crossesAntimeridian)
        #expect(abs(box.longitudeSpan - 8) < 1e-9)
    }

    @Test("intersects detects overlap, touching and disjoint boxes, across the antimeridian too")
    func intersects() {
        let a = BoundingBox(minLatitude: 0, minLongitude: 170, maxLatitude: 10, maxLongitude: -170)
        #expect(a.intersects(BoundingBox(minLatitude: 5, minLongitude: -175, maxLatitude: 20, maxLongitude: -160)))
        #expect(a.intersects(BoundingBox(minLatitude: 10, minLongitude: -170, maxLatitude: 20, maxLongitude: -160)))
        #expect(!a.intersects(BoundingBox(minLatitude: 5, minLongitude: -169, maxLatitude: 20, maxLongitude: -160)))
        #expect(!a.intersects(BoundingBox(minLatitude: 11, minLongitude: 175, maxLatitude: 20, maxLongitude: 176)))
    }

    @Test("expanded(byMeters:) holds every point within that distance, and not much more")
    func expanded() {
        var rng = SeededRandom(seed: 41)
        for _ in 0..<200 {
            let c = rng.coordinate(maxLatitude: 75)
            let box = BoundingBox(c)
            let margin = Double.random(in: 10...50_000, using: &rng)
            let grown = box.expanded(byMeters: margin)
            for az in stride(from: -180.0, to: 180, by: 15) {
                let p = Geodesic.wgs84.direct(from: c, azimuth: az, distance: margin * 0.999).destination
                #expect(grown.contains(p), "\(p) at \(margin) m from \(c) is outside \(grown)")
            }
            // Not wildly larger: the height is within 1% of two margins.
            let height = Geodesic.wgs84.inverse(coord(grown.minLatitude, c.longitude), coord(grown.maxLatitude, c.longitude)).distance
            #expect(height <= 2 * margin * 1.01)
        }
    }

    @Test("expanding near a pole covers every longitude")
    func expandedNearPole() {
        let grown = BoundingBox(coord(89.99, 10)).expanded(byMeters: 5_000)
        #expect(grown.maxLatitude == 90)
        #expect(grown.coversAllLongitudes)
        #expect(grown.contains(coord(89.98, -170)))
    }
}
