import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkSimulator

@Suite("StayCollapse: a logger's wander at a stop is not ridden distance")
struct StayCollapseTests {
    static let t0 = Date(timeIntervalSince1970: 1_767_254_400)
    static let origin = Coordinate(uncheckedLatitude: 42.2, longitude: -71.1)

    static func point(east: Double, north: Double = 0, at seconds: Double) -> Waypoint {
        let e = Geodesy.destination(from: origin, bearing: 90, distance: east)
        let c = north >= 0 ? Geodesy.destination(from: e, bearing: 0, distance: north)
            : Geodesy.destination(from: e, bearing: 180, distance: -north)
        return Waypoint(coordinate: c, time: t0.addingTimeInterval(seconds))
    }

    static func length(_ points: [Waypoint]) -> Double {
        zip(points, points.dropFirst()).reduce(0) { $0 + Geodesy.haversineDistance($1.0.coordinate, $1.1.coordinate) }
    }

    @Test("a ten-minute stop with 15 m of wander per sample becomes standing still; the riding around it is kept")
    func collapsesAStop() throws {
        var points = (0...20).map { Self.point(east: Double($0) * 50, at: Double($0) * 10) }   // 1 km at 5 m/s
        for k in 1...60 {                                                                      // wander at 1 km
            points.append(Self.point(east: 1_000 + (k % 2 == 0 ? 8 : -7), north: k % 3 == 0 ? 6 : -5, at: 200 + Double(k) * 10))
        }
        points += (1...20).map { Self.point(east: 1_000 + Double($0) * 50, at: 800 + Double($0) * 10) }
        let collapsed = StayCollapse().apply(to: points)
        #expect(Self.length(points) > 2_700, "the raw track counts the wander")
        #expect(abs(Self.length(collapsed) - 2_000) < 30, "\(Self.length(collapsed)) m after collapsing")
        #expect(collapsed.count < points.count)
        #expect(collapsed.first?.time == points.first?.time && collapsed.last?.time == points.last?.time)
    }

    @Test("slow but steady riding (2 m/s) is never a stay")
    func keepsSlowRiding() {
        let points = (0...60).map { Self.point(east: Double($0) * 20, at: Double($0) * 10) }
        #expect(StayCollapse().apply(to: points) == points)
    }
}
