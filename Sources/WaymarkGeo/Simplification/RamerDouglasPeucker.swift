/// Ramer–Douglas–Peucker line simplification with a tolerance in metres.
///
/// Keeps the two endpoints, then repeatedly keeps the point farthest from the
/// chord of each stretch while that distance exceeds the tolerance. Every removed
/// point therefore lies within `toleranceMeters` of the simplified line (the
/// segment between the kept points around it).
///
/// Distances are perpendicular distances to the chord *segment* (not the infinite
/// line), measured in a tangent plane with ellipsoidal radii centred on the
/// stretch's first point. The work list is an explicit stack, so there is no
/// recursion and no depth limit; memory is O(n). Typical cost is O(n log n); the
/// worst case (every split peels off one point) is O(n²).
///
/// ```swift
/// let kept = RamerDouglasPeucker.keptIndices(of: coordinates, toleranceMeters: 5)
/// let smaller = segment.simplified(toleranceMeters: 5)
/// ```
///
/// Pure functions; safe to call from any thread.
public enum RamerDouglasPeucker {
    /// The indices, ascending, of the points to keep; always includes the first and last index.
    ///
    /// - Parameters:
    ///   - coordinates: the line's points, in order.
    ///   - toleranceMeters: largest allowed distance, metres, of a removed point from the
    ///     simplified line; must be non-negative.
    public static func keptIndices(of coordinates: [Coordinate], toleranceMeters: Double) -> [Int] {
        precondition(toleranceMeters >= 0, "tolerance must be non-negative")
        let n = coordinates.count
        guard n > 2 else { return Array(0..<n) }
        var keep = [Bool](repeating: false, count: n)
        keep[0] = true
        keep[n - 1] = true
        var stack: [(start: Int, end: Int)] = [(0, n - 1)]
        while let (start, end) = stack.popLast() {
            guard end - start > 1 else { continue }
            let (farthest, distance) = farthestPoint(in: coordinates, from: start, to: end)
            if distance > toleranceMeters {
                keep[farthest] = true
                stack.append((start, farthest))
                stack.append((farthest, end))
            }
        }
        return keep.indices.filter { keep[$0] }
    }

    /// The points of `points` that RDP keeps, in order.
    public static func simplify(_ points: [Waypoint], toleranceMeters: Double) -> [Waypoint] {
        keptIndices(of: points.map(\.coordinate), toleranceMeters: toleranceMeters).map { points[$0] }
    }

    /// The interior point farthest from segment start–end, and its distance in metres.
    private static func farthestPoint(in c: [Coordinate], from start: Int, to end: Int) -> (Int, Double) {
        let plane = LocalProjection(origin: c[start])
        let b = plane.project(c[end])
        let length2 = b.east * b.east + b.north * b.north
        var best = start + 1, bestDistance2 = -1.0
        for k in (start + 1)..<end {
            let p = plane.project(c[k])
            var t = length2 > 0 ? (p.east * b.east + p.north * b.north) / length2 : 0
            t = min(1, max(0, t))
            let dx = p.east - t * b.east, dy = p.north - t * b.north
            let d2 = dx * dx + dy * dy
            if d2 > bestDistance2 {
                bestDistance2 = d2
                best = k
            }
        }
        return (best, bestDistance2.squareRoot())
    }
}
