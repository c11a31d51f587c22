import Foundation
import Testing
@testable import WaymarkGeo

/// Distance in metres from `p` to segment a–b, in a tangent plane centred on `p`
/// (a different plane from the one the algorithm uses, as an independent check).
private func distanceToSegment(_ p: Coordinate, _ a: Coordinate, _ b: Coordinate) -> Double {
    let plane = LocalProjection(origin: p)
    let pa = plane.project(a), pb = plane.project(b)
    let dx = pb.east - pa.east, dy = pb.north - pa.north
    let length2 = dx * dx + dy * dy
    let t = length2 > 0 ? min(1, max(0, (-pa.east * dx - pa.north * dy) / length2)) : 0
    let cx = pa.east + t * dx, cy = pa.north + t * dy
    return (cx * cx + cy * cy).squareRoot()
}

/// A seeded random walk of `count` points with steps of about 5 m and a slowly turning heading.
private func randomWalk(count: Int, seed: UInt64) -> [Coordinate] {
    var rng = SeededGenerator(seed: seed)
    let plane = LocalProjection(origin: SyntheticTrack.origin)
    var x = 0.0, y = 0.0, heading = 0.0
    var result: [Coordinate] = []
    result.reserveCapacity(count)
    for _ in 0..<count {
        result.append(plane.coordinate(east: x, north: y))
        heading += rng.gaussian(sigma: 0.2)
        x += 5 * cos(heading) + rng.gaussian(sigma: 1)
        y += 5 * sin(heading) + rng.gaussian(sigma: 1)
    }
    return result
}

/// Checks that every removed point lies within `tolerance` of the kept segment around it.
private func worstRemovedDistance(_ c: [Coordinate], kept: [Int], stride step: Int = 1) -> Double {
    var worst = 0.0
    for (i, j) in zip(kept, kept.dropFirst()) where j - i > 1 {
        for k in Swift.stride(from: i + 1, to: j, by: step) {
            worst = max(worst, distanceToSegment(c[k], c[i], c[j]))
        }
    }
    return worst
}

@Suite("Ramer–Douglas–Peucker")
struct RamerDouglasPeuckerTests {
    @Test("a straight line collapses to its two endpoints")
    func straightLine() {
        let line = SyntheticTrack.line(speed: 3, seconds: 999).points.map(\.coordinate)
        #expect(RamerDouglasPeucker.keptIndices(of: line, toleranceMeters: 0.5) == [0, 999])
    }

    @Test("an L-shaped path keeps its corner")
    func corner() {
        var track = SyntheticTrack()
        for i in 0...50 { track.add(x: 0, y: Double(i) * 10, t: nil) }
        for i in 1...50 { track.add(x: Double(i) * 10, y: 500, t: nil) }
        let coordinates = track.points.map(\.coordinate)
        #expect(RamerDouglasPeucker.keptIndices(of: coordinates, toleranceMeters: 1) == [0, 50, 100])
    }

    @Test("every removed point is within the tolerance of the simplified line", arguments: [1.0, 5.0, 25.0])
    func toleranceInvariant(tolerance: Double) {
        let walk = randomWalk(count: 20_000, seed: 11)
        let kept = RamerDouglasPeucker.keptIndices(of: walk, toleranceMeters: tolerance)
        #expect(kept.first == 0 && kept.last == walk.count - 1)
        #expect(kept.count < walk.count / 2)
        #expect(worstRemovedDistance(walk, kept: kept) <= tolerance * 1.001 + 0.001)
    }

    @Test("a million-point track simplifies without recursion limits")
    func millionPoints() {
        let walk = randomWalk(count: 1_000_000, seed: 5)
        let kept = RamerDouglasPeucker.keptIndices(of: walk, toleranceMeters: 10)
        #expect(kept.first == 0 && kept.last == 999_999)
        #expect(kept.count > 100 && kept.count < 200_000)
        #expect(worstRemovedDistance(walk, kept: kept, stride: 97) <= 10.01)
    }

    @Test("a zigzag whose every split peels off one point keeps all points")
    func deepSplitChain() {
        var track = SyntheticTrack()
        for i in 0..<10_000 { track.add(x: Double(i), y: i % 2 == 0 ? 0 : 3, t: nil) }
        let kept = RamerDouglasPeucker.keptIndices(of: track.points.map(\.coordinate), toleranceMeters: 1)
        #expect(kept.count == 10_000)
    }

    @Test("a track simplifies segment by segment and keeps its name")
    func trackSimplified() {
        var track = SyntheticTrack.line(speed: 2, seconds: 100).track
        track.info.name = "Commute"
        track.segments.append(SyntheticTrack.line(speed: 1, seconds: 10).segment)
        let simple = track.simplified(toleranceMeters: 1)
        #expect(simple.info.name == "Commute")
        #expect(simple.segments.map(\.points.count) == [2, 2])
        #expect(simple.segments[0].points.last == track.segments[0].points.last)
    }
}

@Suite("Visvalingam–Whyatt")
struct VisvalingamWhyattTests {
    @Test("reduces to exactly the target count and keeps the endpoints", arguments: [2, 3, 100, 4_999])
    func targetCount(target: Int) {
        let walk = randomWalk(count: 5_000, seed: 21)
        let kept = VisvalingamWhyatt.keptIndices(of: walk, targetCount: target)
        #expect(kept.count == target)
        #expect(kept.first == 0 && kept.last == 4_999)
        #expect(kept == kept.sorted())
    }

    @Test("keeps the summit of a hill and drops the points of its straight flanks")
    func keepsSignificantPoint() {
        var track = SyntheticTrack()
        for i in 0...100 { track.add(x: Double(i) * 10, y: Double(50 - abs(50 - i)) * 4, t: nil) }
        let kept = VisvalingamWhyatt.keptIndices(of: track.points.map(\.coordinate), targetCount: 3)
        #expect(kept == [0, 50, 100])
    }

    @Test("returns every point when there are no more than the target")
    func fewPoints() {
        let line = SyntheticTrack.line(speed: 1, seconds: 9).points
        #expect(VisvalingamWhyatt.simplify(line, targetCount: 50) == line)
        #expect(SyntheticTrack.line(speed: 1, seconds: 9).segment.simplified(targetCount: 4).points.count == 4)
    }

    @Test("handles two hundred thousand points")
    func largeInput() {
        let walk = randomWalk(count: 200_000, seed: 8)
        #expect(VisvalingamWhyatt.keptIndices(of: walk, targetCount: 1_000).count == 1_000)
    }
}
