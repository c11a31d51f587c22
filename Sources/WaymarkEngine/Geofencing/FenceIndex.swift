import Foundation
import WaymarkGeo

/// A spatial index of circles (fence centres and radii) for nearest-by-boundary and point queries.
///
/// Circles live in buckets of a latitude/longitude grid (a hash map from cell to a compact array),
/// so adding and removing one costs O(1) plus a scan of its bucket; a bulk load picks the cell size
/// from the data's density (``suggestedCellDegrees(for:targetPerCell:)``). Circles much larger than
/// a cell go to a short side list that every query scans. Each circle takes two 24-byte records
/// (its bucket entry and its handle slot) plus the buckets' share of overhead.
///
/// Distances are measured on the mean sphere with an equirectangular map centred on the query
/// point (good to well under a metre over a few kilometres), and the boundary distance of a circle
/// is `|d − r|`: how far the point is from crossing it, inside or out.
///
/// ```swift
/// var index = FenceIndex(cellDegrees: 0.01)
/// let a = index.insert(center: try Coordinate(latitude: 46.05, longitude: 14.50), radiusMeters: 200)
/// var nearest: [FenceIndex.Neighbor] = []
/// index.nearest(to: try Coordinate(latitude: 46.06, longitude: 14.50), count: 5, into: &nearest)
/// index.remove(a)
/// ```
///
/// A `Sendable` value type; not for concurrent mutation.
public struct FenceIndex: Sendable {
    /// A circle's handle, assigned by ``insert(center:radiusMeters:)`` and reused after ``remove(_:)``.
    public typealias Handle = Int32

    /// A query answer: a circle and its boundary distance in metres from the query point.
    public struct Neighbor: Hashable, Sendable {
        /// The circle.
        public var handle: Handle
        /// `|d − r|` in metres.
        public var boundaryDistance: Double
    }

    /// A circle as stored: 24 bytes.
    struct Entry: Sendable {
        var latitude: Double
        var longitude: Double
        var radius: Float
        var handle: Handle
    }

    /// Metres per degree of latitude on the mean sphere.
    static let metersPerDegree = Geodesy.meanEarthRadius * .pi / 180

    /// The grid's cell side, degrees.
    public let cellDegrees: Double
    /// Circles with a larger radius, metres, are kept in the side list (default: four cells).
    public let largeRadiusMeters: Double
    /// How many circles the index holds.
    public private(set) var count = 0

    var cells: [Int64: ContiguousArray<Entry>] = [:]
    var large: ContiguousArray<Entry> = []
    var slots: ContiguousArray<Entry> = []
    var freeHandles: [Handle] = []
    var maxSmallRadius = 0.0
    var bounds: (minX: Int32, maxX: Int32, minY: Int32, maxY: Int32) = (.max, .min, .max, .min)
    let columns: Int32

    /// Makes an empty index with cells `cellDegrees` on a side (clamped to 0.0005°…5°).
    public init(cellDegrees: Double) {
        self.cellDegrees = min(5, max(0.0005, cellDegrees))
        self.largeRadiusMeters = 4 * self.cellDegrees * Self.metersPerDegree
        self.columns = Int32((360 / self.cellDegrees).rounded(.up))
    }

    /// Builds an index over `circles` (centre, radius in metres) with a cell size suited to their
    /// density; handles are the positions in `circles`.
    public init(bulk circles: [(center: Coordinate, radiusMeters: Double)], targetPerCell: Double = 8) {
        self.init(cellDegrees: Self.suggestedCellDegrees(for: circles.map(\.center), targetPerCell: targetPerCell))
        slots.reserveCapacity(circles.count)
        for circle in circles { insert(center: circle.center, radiusMeters: circle.radiusMeters) }
    }

    /// A cell side, degrees, that puts about `targetPerCell` of `centers` in each cell if they were
    /// spread evenly over their bounding box.
    public static func suggestedCellDegrees(for centers: [Coordinate], targetPerCell: Double = 8) -> Double {
        guard centers.count > 1 else { return 0.02 }
        var minLat = 90.0, maxLat = -90.0, minLon = 180.0, maxLon = -180.0
        for c in centers {
            minLat = min(minLat, c.latitude); maxLat = max(maxLat, c.latitude)
            minLon = min(minLon, c.longitude); maxLon = max(maxLon, c.longitude)
        }
        let area = max(1e-6, (maxLat - minLat) * (maxLon - minLon))
        return (area / Double(centers.count) * targetPerCell).squareRoot()
    }

    /// Adds a circle and returns its handle.
    @discardableResult
    public mutating func insert(center: Coordinate, radiusMeters: Double) -> Handle {
        let handle: Handle
        if let reused = freeHandles.popLast() { handle = reused } else { handle = Handle(slots.count) }
        let entry = Entry(latitude: center.latitude, longitude: center.longitude, radius: Float(radiusMeters), handle: handle)
        if Int(handle) == slots.count { slots.append(entry) } else { slots[Int(handle)] = entry }
        count += 1
        if radiusMeters > largeRadiusMeters {
            large.append(entry)
            return handle
        }
        maxSmallRadius = max(maxSmallRadius, radiusMeters)
        let (x, y) = cell(latitude: center.latitude, longitude: center.longitude)
        bounds = (min(bounds.minX, x), max(bounds.maxX, x), min(bounds.minY, y), max(bounds.maxY, y))
        cells[key(x, y), default: []].append(entry)
        return handle
    }

    /// Removes a circle; a handle that is not in the index is ignored.
    public mutating func remove(_ handle: Handle) {
        guard handle >= 0, Int(handle) < slots.count, slots[Int(handle)].radius >= 0 else { return }
        let entry = slots[Int(handle)]
        slots[Int(handle)].radius = -1
        freeHandles.append(handle)
        count -= 1
        if Double(entry.radius) > largeRadiusMeters {
            if let i = large.firstIndex(where: { $0.handle == handle }) { large.remove(at: i) }
            return
        }
        let (x, y) = cell(latitude: entry.latitude, longitude: entry.longitude)
        let k = key(x, y)
        guard var bucket = cells.removeValue(forKey: k) else { return }
        if let i = bucket.firstIndex(where: { $0.handle == handle }) { bucket.swapAt(i, bucket.count - 1); bucket.removeLast() }
        if !bucket.isEmpty { cells[k] = bucket }
    }

    /// Whether `handle` is in the index.
    public func contains(_ handle: Handle) -> Bool {
        handle >= 0 && Int(handle) < slots.count && slots[Int(handle)].radius >= 0
    }

    /// The grid cell of a position (column wraps around the antimeridian).
    @inline(__always)
    func cell(latitude: Double, longitude: Double) -> (Int32, Int32) {
        (Int32(((longitude + 180) / cellDegrees).rounded(.down)), Int32(((latitude + 90) / cellDegrees).rounded(.down)))
    }

    @inline(__always)
    func key(_ x: Int32, _ y: Int32) -> Int64 {
        var column = x % columns
        if column < 0 { column += columns }
        return Int64(y) << 32 | Int64(column)
    }
}

extension FenceIndex {
    /// An estimate of the heap the index holds, in bytes: the capacity of every array (24-byte
    /// records), a 32-byte header per bucket array and the hash map's 16-byte slots.
    public var memoryFootprintBytes: Int {
        let entry = MemoryLayout<Entry>.stride
        var total = slots.capacity * entry + large.capacity * entry + freeHandles.capacity * MemoryLayout<Handle>.stride
        total += cells.capacity * (MemoryLayout<Int64>.stride + MemoryLayout<ContiguousArray<Entry>>.stride)
        for bucket in cells.values { total += 32 + bucket.capacity * entry }
        return total
    }
}
