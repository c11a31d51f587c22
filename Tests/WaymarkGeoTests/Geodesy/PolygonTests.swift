import Foundation
import Testing
import WaymarkGeo

@Suite("Polygon")
struct PolygonTests {
    static let square = try! Polygon(exterior: [coord(0, 0), coord(0, 10), coord(10, 10), coord(10, 0)],
                                     holes: [[coord(4, 4), coord(4, 6), coord(6, 6), coord(6, 4)]])

    @Test("even-odd: inside the exterior and outside the holes", arguments: [
        (2.0, 2.0, true), (5.0, 5.0, false), (8.0, 5.0, true), (-1.0, 5.0, false), (5.0, 11.0, false),
        (3.9, 5.0, true), (4.1, 5.0, false),
    ])
    func evenOdd(lat: Double, lon: Double, inside: Bool) {
        #expect(Self.square.contains(coord(lat, lon)) == inside)
    }

    @Test("points on edges and vertices of the exterior and of holes count as inside", arguments: [
        (0.0, 5.0), (10.0, 5.0), (5.0, 0.0), (5.0, 10.0), (0.0, 0.0), (10.0, 10.0), (4.0, 5.0), (6.0, 6.0), (5.0, 4.0),
    ])
    func boundary(lat: Double, lon: Double) {
        #expect(Self.square.contains(coord(lat, lon)))
    }

    @Test("a closed ring (last vertex repeated) is the same polygon")
    func closedRing() throws {
        let open = try Polygon(exterior: [coord(0, 0), coord(0, 1), coord(1, 0)])
        let closed = try Polygon(exterior: [coord(0, 0), coord(0, 1), coord(1, 0), coord(0, 0)])
        #expect(open == closed)
        #expect(closed.exterior.count == 3)
    }

    @Test("rejects rings with fewer than three distinct vertices and rings around a pole")
    func rejects() {
        #expect(throws: GeoError.self) { try Polygon(exterior: [coord(0, 0), coord(0, 1), coord(0, 0)]) }
        #expect(throws: GeoError.self) {
            try Polygon(exterior: [coord(0, 0), coord(1, 1), coord(2, 2)], holes: [[coord(1, 1), coord(1, 1)]])
        }
        do {
            _ = try Polygon(exterior: [coord(80, 0), coord(80, 120), coord(80, -120)])
            Issue.record("a ring around the north pole was accepted")
        } catch {
            #expect(error.code == .invalidValue)
            #expect(error.message.contains("pole"))
        }
    }

    @Test("a polygon across the antimeridian contains points on both sides and has a narrow box")
    func antimeridian() throws {
        let p = try Polygon(exterior: [coord(-1, 179), coord(-1, -179), coord(1, -179), coord(1, 179)])
        #expect(p.contains(coord(0, 179.5)))
        #expect(p.contains(coord(0, -179.5)))
        #expect(p.contains(coord(0, -180)))
        #expect(!p.contains(coord(0, 0)))
        #expect(!p.contains(coord(0, 178.9)))
        let box = p.boundingBox
        #expect(box.crossesAntimeridian && abs(box.longitudeSpan - 2) < 1e-12)
    }

    @Test("agrees with a brute-force winding count on a random star polygon")
    func randomStar() throws {
        var rng = SeededRandom(seed: 51)
        let center = coord(47, 8)
        var ring: [Coordinate] = []
        for k in 0..<24 {
            let angle = Double(k) / 24 * 2 * .pi
            let r = Double.random(in: 0.2...1, using: &rng)
            ring.append(coord(center.latitude + r * sin(angle), center.longitude + r * cos(angle)))
        }
        let p = try Polygon(exterior: ring)
        for _ in 0..<2000 {
            let q = coord(Double.random(in: 45.9...48.1, using: &rng), Double.random(in: 6.9...9.1, using: &rng))
            #expect(p.contains(q) == (Self.windingNumber(ring, q) != 0))
        }
    }

    /// Winding number by summing angles, as an independent check.
    static func windingNumber(_ ring: [Coordinate], _ q: Coordinate) -> Int {
        var total = 0.0
        for i in 0..<ring.count {
            let a = ring[i], b = ring[(i + 1) % ring.count]
            let a1 = atan2(a.latitude - q.latitude, a.longitude - q.longitude)
            let a2 = atan2(b.latitude - q.latitude, b.longitude - q.longitude)
            total += remainder(a2 - a1, 2 * .pi)
        }
        return Int((total / (2 * .pi)).rounded())
    }

    @Test("the bounding circle encloses every edge point of random polygons")
    func boundingCircle() throws {
        var rng = SeededRandom(seed: 61)
        for _ in 0..<30 {
            let c = rng.coordinate(maxLatitude: 70)
            let size = Double.random(in: 100...100_000, using: &rng)
            let count = Int.random(in: 3...12, using: &rng)
            let ring = (0..<count).map { k in
                Geodesic.wgs84.direct(from: c, azimuth: Double(k) * 360 / Double(count),
                                      distance: size * Double.random(in: 0.3...1, using: &rng)).destination
            }
            let p = try Polygon(exterior: ring)
            let circle = p.boundingCircle
            #expect(circle.radiusMeters < 2.5 * size)
            for i in 0..<count {
                let a = ring[i], b = ring[(i + 1) % count]
                for t in stride(from: 0.0, through: 1, by: 1.0 / 97) {
                    let q = coord(a.latitude + t * (b.latitude - a.latitude),
                                  a.longitude + t * remainder(b.longitude - a.longitude, 360))
                    #expect(circle.contains(q))
                }
            }
        }
    }
}
