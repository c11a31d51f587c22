import Foundation
import WaymarkGeo

/// A polygon's edges bucketed by latitude, so a containment test or a segment crossing looks only at the
/// edges near the point's or segment's latitude instead of every edge.
///
/// The polygon's latitude range is cut into equal bands (about one per 8 edges, at most 4096); each edge
/// is listed in the bands its latitude range overlaps, or, when it spans more than 64 bands, in a short list
/// checked every time. The arithmetic per edge is exactly `Polygon.contains` and
/// `SegmentCrossing.crossing`'s, so the answers are the same, only cheaper. Immutable and `Sendable`.
struct PolygonEdgeIndex: Sendable {
    /// One edge: its ring, and the indices of its two vertices in that ring (`from` → `to`).
    struct Edge: Sendable {
        var ring: Int32, from: Int32, to: Int32
        var minLatitude: Double, maxLatitude: Double
    }

    private let rings: [[Coordinate]]
    /// Each ring's longitudes made continuous, the holes shifted next to the exterior (as `Polygon` does).
    private let unwrapped: [[Double]]
    private let referenceLongitude: Double
    private let edges: [Edge]
    private let minLatitude: Double, bandHeight: Double, bandCount: Int
    /// Band `k`'s edges are `bandEdges[bandStart[k]..<bandStart[k + 1]]`.
    private let bandStart: [Int32]
    private let bandEdges: [Int32]
    /// Edges spanning too many bands: checked for every query.
    private let tall: [Int32]

    init(_ polygon: Polygon) {
        rings = [polygon.exterior] + polygon.holes
        // The polygon's own continuous longitudes, so the index and `Polygon.contains` use the same numbers.
        unwrapped = polygon.unwrappedLongitudes
        referenceLongitude = polygon.referenceLongitude
        var edges: [Edge] = []
        for (r, ring) in rings.enumerated() {
            var j = ring.count - 1
            for i in 0..<ring.count {
                edges.append(Edge(ring: Int32(r), from: Int32(j), to: Int32(i),
                                  minLatitude: min(ring[i].latitude, ring[j].latitude),
                                  maxLatitude: max(ring[i].latitude, ring[j].latitude)))
                j = i
            }
        }
        self.edges = edges
        let lats = rings.flatMap { $0.map(\.latitude) }
        let low = lats.min()!, high = lats.max()!
        minLatitude = low
        bandCount = max(1, min(4096, edges.count / 8))
        bandHeight = max((high - low) / Double(bandCount), 1e-12)
        var lists = Array(repeating: [Int32](), count: bandCount)
        var tall: [Int32] = []
        for (k, edge) in edges.enumerated() {
            let first = Self.band(edge.minLatitude, low, bandHeight, bandCount)
            let last = Self.band(edge.maxLatitude, low, bandHeight, bandCount)
            if last - first > 64 { tall.append(Int32(k)); continue }
            for b in first...last { lists[b].append(Int32(k)) }
        }
        var start: [Int32] = [0]
        var flat: [Int32] = []
        for list in lists {
            flat += list
            start.append(Int32(flat.count))
        }
        bandStart = start
        bandEdges = flat
        self.tall = tall
    }

    /// The band of `latitude`, clamped to the index's bands.
    private static func band(_ latitude: Double, _ low: Double, _ height: Double, _ count: Int) -> Int {
        let b = ((latitude - low) / height).rounded(.down)
        return b.isFinite ? max(0, min(count - 1, Int(max(-1, min(Double(count), b))))) : 0
    }

    /// Calls `body` with every edge whose latitude range may overlap `low...high`, each once.
    private func forEachEdge(between low: Double, and high: Double, _ body: (Edge) -> Void) {
        let first = Self.band(low, minLatitude, bandHeight, bandCount)
        let last = Self.band(high, minLatitude, bandHeight, bandCount)
        for k in tall { body(edges[Int(k)]) }
        for b in first...last {
            for k in bandEdges[Int(bandStart[b])..<Int(bandStart[b + 1])] {
                let edge = edges[Int(k)]
                // An edge in several bands is taken in the first of them that the query covers.
                if b > first, Self.band(edge.minLatitude, minLatitude, bandHeight, bandCount) < b { continue }
                body(edge)
            }
        }
    }

    /// `Polygon.contains(point)`, edge for edge, on the edges at the point's latitude.
    func contains(_ point: Coordinate) -> Bool {
        let px = referenceLongitude + remainder(point.longitude - referenceLongitude, 360)
        let py = point.latitude
        var inside = false, onBoundary = false
        forEachEdge(between: py, and: py) { edge in
            guard !onBoundary, py >= edge.minLatitude, py <= edge.maxLatitude else { return }
            let xs = unwrapped[Int(edge.ring)], ring = rings[Int(edge.ring)]
            let i = Int(edge.to), j = Int(edge.from)
            let xi = xs[i], yi = ring[i].latitude
            let xj = xs[j], yj = ring[j].latitude
            let cross = (xj - xi) * (py - yi) - (yj - yi) * (px - xi)
            if cross == 0 && px >= min(xi, xj) && px <= max(xi, xj) && py >= min(yi, yj) && py <= max(yi, yj) {
                onBoundary = true
                return
            }
            if (yi > py) != (yj > py) && (cross > 0) == (yj > yi) { inside.toggle() }
        }
        return onBoundary || inside
    }

    /// `SegmentCrossing.crossing` for this polygon, edge for edge, on the edges at the segment's latitudes.
    func crossing(from a: Coordinate, to b: Coordinate) -> (enter: Double, exit: Double)? {
        let ax = a.longitude, ay = a.latitude
        let bx = ax + remainder(b.longitude - ax, 360), by = b.latitude
        var first = Double.infinity, last = -Double.infinity, hits = 0
        forEachEdge(between: min(ay, by), and: max(ay, by)) { edge in
            let ring = rings[Int(edge.ring)]
            let p = ring[Int(edge.from)], q = ring[Int(edge.to)]
            let px = ax + remainder(p.longitude - ax, 360), py = p.latitude
            let qx = px + remainder(q.longitude - p.longitude, 360), qy = q.latitude
            let rX = bx - ax, rY = by - ay, sX = qx - px, sY = qy - py
            let denominator = rX * sY - rY * sX
            guard denominator != 0 else { return }
            let t = ((px - ax) * sY - (py - ay) * sX) / denominator
            let u = ((px - ax) * rY - (py - ay) * rX) / denominator
            if (0...1).contains(t), (0...1).contains(u) {
                hits += 1
                first = min(first, t)
                last = max(last, t)
            }
        }
        return hits >= 2 ? (first, last) : nil
    }
}
