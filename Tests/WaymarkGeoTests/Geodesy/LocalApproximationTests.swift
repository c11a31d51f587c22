import Foundation
import Testing
import WaymarkGeo

@Suite("LocalApproximation")
struct LocalApproximationTests {
    /// Random segments of length in `lengths` with both ends within `maxLatitude`.
    static func segments(seed: UInt64, count: Int, lengths: ClosedRange<Double>,
                         maxLatitude: Double) -> [(Coordinate, Coordinate, Double)] {
        var rng = SeededRandom(seed: seed)
        var result: [(Coordinate, Coordinate, Double)] = []
        while result.count < count {
            let a = rng.coordinate(maxLatitude: maxLatitude)
            let d = Double.random(in: lengths, using: &rng)
            let b = Geodesic.wgs84.direct(from: a, azimuth: .random(in: -180..<180, using: &rng), distance: d).destination
            if abs(b.latitude) <= maxLatitude { result.append((a, b, d)) }
        }
        return result
    }

    @Test("stays within the documented relative error bound inside the recommended limits")
    func documentedBound() {
        let limit = LocalApproximation.maximumRecommendedDistance
        var worst = 0.0
        for (a, b, d) in Self.segments(seed: 3, count: 5000, lengths: 1...limit,
                                       maxLatitude: LocalApproximation.maximumRecommendedLatitude) {
            worst = max(worst, abs(LocalApproximation.distance(a, b) - d) / d)
        }
        #expect(worst < LocalApproximation.relativeErrorBound)
        #expect(worst > LocalApproximation.relativeErrorBound / 10, "the bound should be tight, not decorative")
    }

    @Test("is within 4e-8 for segments under 1 km up to 80°")
    func shortSegments() {
        for (a, b, d) in Self.segments(seed: 5, count: 2000, lengths: 1...1000, maxLatitude: 80) {
            #expect(abs(LocalApproximation.distance(a, b) - d) / d < 4e-8)
        }
    }

    @Test("degrades beyond the limits, which is why they exist")
    func outsideLimits() {
        var worst = 0.0
        for (a, b, d) in Self.segments(seed: 9, count: 500, lengths: 40_000...50_000, maxLatitude: 89) {
            worst = max(worst, abs(LocalApproximation.distance(a, b) - d) / d)
        }
        #expect(worst > LocalApproximation.relativeErrorBound)
    }

    @Test("segmentDistance is ellipsoid-accurate for short, long and polar segments")
    func segmentDistance() {
        var rng = SeededRandom(seed: 21)
        for _ in 0..<1000 {
            let a = rng.coordinate(), b = rng.coordinate()
            let d = Geodesic.wgs84.inverse(a, b).distance
            #expect(abs(LocalApproximation.segmentDistance(a, b) - d) <= 1e-9 * d + 1e-9)
        }
        for (a, b, d) in Self.segments(seed: 22, count: 1000, lengths: 1...20_000, maxLatitude: 90) {
            #expect(abs(LocalApproximation.segmentDistance(a, b) - d) <= LocalApproximation.relativeErrorBound * d)
        }
    }

    @Test("measures across the antimeridian the short way")
    func antimeridian() {
        let d = LocalApproximation.distance(coord(0, 179.9), coord(0, -179.9))
        #expect(abs(d - 22_263.898158653446) / d < LocalApproximation.relativeErrorBound)
    }

    @Test("azimuth matches the geodesic's mean azimuth for short segments")
    func azimuth() {
        for (a, b, _) in Self.segments(seed: 31, count: 1000, lengths: 10...10_000, maxLatitude: 80) {
            let g = Geodesic.wgs84.inverse(a, b)
            let mean = g.initialAzimuth + remainder(g.finalAzimuth - g.initialAzimuth, 360) / 2
            #expect(azimuthDifference(LocalApproximation.azimuth(from: a, to: b), mean) < 1e-4)
        }
        #expect(LocalApproximation.azimuth(from: coord(10, 10), to: coord(10, 10)) == 0)
        #expect(abs(LocalApproximation.azimuth(from: coord(0, 179.99), to: coord(0, -179.99)) - 90) < 1e-12)
    }
}
