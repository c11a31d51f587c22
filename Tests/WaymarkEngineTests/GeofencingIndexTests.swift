import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkEngine

@Suite("FenceIndex: nearest by boundary distance and point queries")
struct GeofencingIndexTests {
    static let origin = Coordinate(uncheckedLatitude: 46.05, longitude: 14.50)

    /// Random circles within `spread` metres of the origin, radii 50–800 m, plus a few huge ones.
    static func circles(_ n: Int, spread: Double, seed: UInt64) -> [(center: Coordinate, radiusMeters: Double)] {
        var rng = SplitMix64(seed: seed)
        return (0..<n).map { i in
            let center = Geodesy.destination(from: origin, bearing: Double.random(in: 0..<360, using: &rng),
                                             distance: Double.random(in: 0...spread, using: &rng))
            return (center, i % 97 == 0 ? Double.random(in: 5_000...20_000, using: &rng) : Double.random(in: 50...800, using: &rng))
        }
    }

    @Test("the K nearest match a linear scan, before and after removals", arguments: [1, 2, 3] as [UInt64])
    func nearestMatchesLinearScan(seed: UInt64) {
        var index = FenceIndex(bulk: Self.circles(3000, spread: 20_000, seed: seed))
        var rng = SplitMix64(seed: seed &+ 100)
        for h in stride(from: 0, to: 3000, by: 7) { index.remove(FenceIndex.Handle(h)) }
        #expect(index.count == 3000 - 429)
        var fast: [FenceIndex.Neighbor] = [], slow: [FenceIndex.Neighbor] = []
        for _ in 0..<50 {
            let q = Geodesy.destination(from: Self.origin, bearing: Double.random(in: 0..<360, using: &rng),
                                        distance: Double.random(in: 0...30_000, using: &rng))
            let k = Int.random(in: 1...20, using: &rng)
            index.nearest(to: q, count: k, into: &fast)
            index.linearNearest(to: q, count: k, into: &slow)
            #expect(fast.map(\.boundaryDistance) == slow.map(\.boundaryDistance))
            #expect(!fast.contains { $0.handle % 7 == 0 })
        }
    }

    @Test("a point query finds exactly the circles within the slack of their boundary")
    func pointQueryMatchesBruteForce() {
        let circles = Self.circles(2000, spread: 5_000, seed: 9)
        let index = FenceIndex(bulk: circles)
        var rng = SplitMix64(seed: 10)
        for _ in 0..<30 {
            let q = Geodesy.destination(from: Self.origin, bearing: Double.random(in: 0..<360, using: &rng),
                                        distance: Double.random(in: 0...6_000, using: &rng))
            var found = Set<Int>()
            index.forEachCircle(near: q, slack: 25) { handle, _ in found.insert(Int(handle)) }
            let expected = Set(circles.indices.filter {
                Geodesy.haversineDistance(q, circles[$0].center) <= circles[$0].radiusMeters + 25 - 0.5
            })
            #expect(expected.isSubset(of: found))
            let extra = found.subtracting(expected).filter {
                Geodesy.haversineDistance(q, circles[$0].center) > circles[$0].radiusMeters + 25 + 0.5
            }
            #expect(extra.isEmpty)
        }
    }

    @Test("handles are reused after removal and inserts after a removal are found")
    func reuse() throws {
        var index = FenceIndex(cellDegrees: 0.01)
        let a = index.insert(center: Self.origin, radiusMeters: 100)
        index.remove(a)
        #expect(!index.contains(a))
        let b = index.insert(center: Geodesy.destination(from: Self.origin, bearing: 0, distance: 1000), radiusMeters: 100)
        #expect(b == a)
        var result: [FenceIndex.Neighbor] = []
        index.nearest(to: Self.origin, count: 3, into: &result)
        #expect(result.count == 1)
        #expect(abs(try #require(result.first).boundaryDistance - 900) < 2)
    }
}
