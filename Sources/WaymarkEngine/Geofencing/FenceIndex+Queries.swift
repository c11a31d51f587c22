import Foundation
import WaymarkGeo

extension FenceIndex {
    /// A flat map centred on a query point: metres per degree east and north, and the wrap.
    struct Probe {
        let latitude: Double, longitude: Double
        let kx: Double, ky: Double

        init(_ point: Coordinate) {
            latitude = point.latitude
            longitude = point.longitude
            ky = FenceIndex.metersPerDegree
            kx = ky * cos(point.latitude * .pi / 180)
        }

        /// Distance in metres from the query point to a stored centre.
        @inline(__always)
        func distance(_ e: Entry) -> Double {
            var dLon = e.longitude - longitude
            if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
            let dx = dLon * kx, dy = (e.latitude - latitude) * ky
            return (dx * dx + dy * dy).squareRoot()
        }
    }

    /// The smallest side in metres of any cell within `rings` cells of latitude `latitude`.
    func smallestCellSide(latitude: Double, rings: Int32) -> Double {
        let edge = min(89.9, abs(latitude) + Double(rings + 1) * cellDegrees)
        let side = cellDegrees * Self.metersPerDegree
        return max(1e-3, min(side, side * cos(edge * .pi / 180)))
    }

    /// The `count` circles whose boundaries are nearest to `point` (by `|d − r|`), nearest first,
    /// written into `result` (its storage is reused, so a caller can query without allocating).
    ///
    /// Scans rings of cells outwards until no unscanned circle can beat the `count`-th found.
    public func nearest(to point: Coordinate, count k: Int, into result: inout [Neighbor]) {
        result.removeAll(keepingCapacity: true)
        guard k > 0, count > 0 else { return }
        let probe = Probe(point)
        for e in large { Self.offer(e.handle, abs(probe.distance(e) - Double(e.radius)), k, &result) }
        guard !cells.isEmpty else { return }
        let (qx, qy) = cell(latitude: point.latitude, longitude: point.longitude)
        let cover = max(qx - bounds.minX, bounds.maxX - qx, qy - bounds.minY, bounds.maxY - qy)
        var ring: Int32 = 0
        while true {
            forEachCell(ring: ring, x: qx, y: qy) { bucket in
                bucket.withUnsafeBufferPointer { buffer in
                    guard let base = buffer.baseAddress else { return }
                    for j in 0..<buffer.count {
                        let e = base[j]
                        let distance = abs(probe.distance(e) - Double(e.radius))
                        if result.count < k || distance < result[k - 1].boundaryDistance {
                            Self.offer(e.handle, distance, k, &result)
                        }
                    }
                }
            }
            if ring >= cover { return }
            if result.count == k {
                let reach = Double(ring) * smallestCellSide(latitude: point.latitude, rings: ring) - maxSmallRadius
                if result[k - 1].boundaryDistance <= reach { return }
            }
            ring += 1
        }
    }

    /// Calls `body(handle, centreDistance)` for every circle whose boundary is within `slack` metres
    /// outside of `point` or that contains it: every circle with `d ≤ r + slack`.
    public func forEachCircle(near point: Coordinate, slack: Double, _ body: (Handle, Double) -> Void) {
        guard count > 0 else { return }
        let probe = Probe(point)
        for e in large {
            let d = probe.distance(e)
            if d <= Double(e.radius) + slack { body(e.handle, d) }
        }
        guard !cells.isEmpty else { return }
        let reach = maxSmallRadius + slack
        let (qx, qy) = cell(latitude: point.latitude, longitude: point.longitude)
        let rings = Int32((reach / smallestCellSide(latitude: point.latitude, rings: 2)).rounded(.up))
        for y in (qy - rings)...(qy + rings) {
            for x in (qx - rings)...(qx + rings) {
                guard let bucket = cells[key(x, y)] else { continue }
                bucket.withUnsafeBufferPointer { buffer in
                    guard let base = buffer.baseAddress else { return }
                    for j in 0..<buffer.count {
                        let d = probe.distance(base[j])
                        if d <= Double(base[j].radius) + slack { body(base[j].handle, d) }
                    }
                }
            }
        }
    }

    /// The centre and radius (metres) stored for `handle`, nil when absent.
    public func circle(_ handle: Handle) -> (center: Coordinate, radiusMeters: Double)? {
        guard contains(handle) else { return nil }
        let e = slots[Int(handle)]
        return (Coordinate(uncheckedLatitude: e.latitude, longitude: e.longitude), Double(e.radius))
    }

    /// Every circle's boundary distance from `point` by brute force, nearest `count` first: the
    /// reference the index is checked and benchmarked against.
    public func linearNearest(to point: Coordinate, count k: Int, into result: inout [Neighbor]) {
        result.removeAll(keepingCapacity: true)
        let probe = Probe(point)
        for e in slots where e.radius >= 0 { Self.offer(e.handle, abs(probe.distance(e) - Double(e.radius)), k, &result) }
    }

    /// Visits the buckets on the square ring `ring` cells around (x, y).
    @inline(__always)
    func forEachCell(ring: Int32, x: Int32, y: Int32, _ body: (ContiguousArray<Entry>) -> Void) {
        if ring == 0 {
            if let bucket = cells[key(x, y)] { body(bucket) }
            return
        }
        for dx in -ring...ring {
            if let bucket = cells[key(x + dx, y - ring)] { body(bucket) }
            if let bucket = cells[key(x + dx, y + ring)] { body(bucket) }
        }
        for dy in (-ring + 1)..<ring {
            if let bucket = cells[key(x - ring, y + dy)] { body(bucket) }
            if let bucket = cells[key(x + ring, y + dy)] { body(bucket) }
        }
    }

    /// Inserts a candidate into the sorted list of the best `k`.
    @inline(__always)
    static func offer(_ handle: Handle, _ distance: Double, _ k: Int, _ result: inout [Neighbor]) {
        if result.count == k {
            guard distance < result[k - 1].boundaryDistance else { return }
            result.removeLast()
        }
        var i = result.count
        result.append(Neighbor(handle: handle, boundaryDistance: distance))
        while i > 0, result[i - 1].boundaryDistance > distance {
            result[i] = result[i - 1]
            i -= 1
        }
        result[i] = Neighbor(handle: handle, boundaryDistance: distance)
    }
}
