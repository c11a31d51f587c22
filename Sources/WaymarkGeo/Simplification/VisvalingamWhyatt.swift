/// Visvalingam–Whyatt line simplification down to a target number of points.
///
/// Each interior point's *effective area* is the area of the triangle it forms
/// with its two neighbours, in square metres in a tangent plane centred on it.
/// The point with the smallest area is removed and its neighbours' areas are
/// recomputed, until `targetCount` points remain. As in the published algorithm, a
/// recomputed area is never less than the area of the point just removed, so the
/// removal order is monotonic. Endpoints are always kept.
///
/// A binary min-heap with lazy deletion makes it O(n log n) in time and O(n) in memory.
///
/// ```swift
/// let kept = VisvalingamWhyatt.keptIndices(of: coordinates, targetCount: 500)
/// ```
///
/// Pure functions; safe to call from any thread.
public enum VisvalingamWhyatt {
    /// The indices, ascending, of the `targetCount` points to keep (all of them when
    /// there are no more than that); always includes the first and last index.
    ///
    /// - Parameters:
    ///   - coordinates: the line's points, in order.
    ///   - targetCount: points to keep; must be at least 2.
    public static func keptIndices(of coordinates: [Coordinate], targetCount: Int) -> [Int] {
        precondition(targetCount >= 2, "the target count must be at least 2 (the endpoints)")
        let n = coordinates.count
        guard n > targetCount else { return Array(0..<n) }
        var previous = (0..<n).map { $0 - 1 }
        var next = (0..<n).map { $0 + 1 }
        var version = [Int](repeating: 0, count: n)
        var removed = [Bool](repeating: false, count: n)
        var heap = AreaHeap()
        heap.reserve(n)
        for i in 1..<(n - 1) {
            heap.push(AreaHeap.Entry(area: area(coordinates, i - 1, i, i + 1), index: i, version: 0))
        }
        var remaining = n
        func requeue(_ j: Int, floor: Double) {
            version[j] += 1
            let a = max(floor, area(coordinates, previous[j], j, next[j]))
            heap.push(AreaHeap.Entry(area: a, index: j, version: version[j]))
        }
        while remaining > targetCount, let entry = heap.pop() {
            let i = entry.index
            guard !removed[i], entry.version == version[i] else { continue }
            removed[i] = true
            remaining -= 1
            let p = previous[i], q = next[i]
            next[p] = q
            previous[q] = p
            if p > 0 { requeue(p, floor: entry.area) }
            if q < n - 1 { requeue(q, floor: entry.area) }
        }
        return (0..<n).filter { !removed[$0] }
    }

    /// The points of `points` that Visvalingam–Whyatt keeps, in order.
    public static func simplify(_ points: [Waypoint], targetCount: Int) -> [Waypoint] {
        keptIndices(of: points.map(\.coordinate), targetCount: targetCount).map { points[$0] }
    }

    /// Area, square metres, of the triangle a–b–c in a tangent plane at b.
    private static func area(_ c: [Coordinate], _ a: Int, _ b: Int, _ d: Int) -> Double {
        let plane = LocalProjection(origin: c[b])
        let p = plane.project(c[a]), q = plane.project(c[d])
        return abs(p.east * q.north - p.north * q.east) / 2
    }
}
