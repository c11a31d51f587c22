import Foundation
import WaymarkGeo

/// A uniform latitude/longitude grid over fences: which fences may touch a box.
///
/// Each fence is listed in every cell its bounding box overlaps; fences bigger than
/// ``maxCellsPerFence`` cells go to a short list checked every time. Lookups cost one
/// dictionary probe per cell of the query box. The cell size follows the fences: about the
/// median fence's size (0.002°–0.05°), so a cell holds a few fences whether they are 100 m
/// or 5 km across. Immutable and `Sendable`.
struct FenceIndex: Sendable {
    /// Cell size in degrees (0.05° ≈ 5.5 km of latitude).
    let cellDegrees: Double
    static let maxCellsPerFence = 4096
    private var cells: [Int64: [Int32]] = [:]
    private var large: [Int32] = []

    init(fences: [Fence], cellDegrees: Double? = nil) {
        self.cellDegrees = cellDegrees ?? Self.suggestedCellDegrees(fences)
        for (i, fence) in fences.enumerated() {
            let b = fence.bounds
            let rows = row(b.minLat)...row(b.maxLat)
            let columns = column(b.minLon)...column(b.maxLon)
            if rows.count * columns.count > Self.maxCellsPerFence {
                large.append(Int32(i))
                continue
            }
            for r in rows { for c in columns { cells[key(r, c), default: []].append(Int32(i)) } }
        }
    }

    /// The median fence's larger bounding-box side, clamped to 0.002°…0.05° (0.05° with no fences).
    static func suggestedCellDegrees(_ fences: [Fence]) -> Double {
        guard !fences.isEmpty else { return 0.05 }
        let step = max(1, fences.count / 2001)
        var sides = stride(from: 0, to: fences.count, by: step).map { i -> Double in
            let b = fences[i].bounds
            return max(b.maxLat - b.minLat, b.maxLon - b.minLon)
        }
        sides.sort()
        return min(0.05, max(0.002, sides[sides.count / 2]))
    }

    /// Indices of the fences whose boxes may overlap the box around `a` and `b`, ascending, each once.
    func candidates(_ a: Coordinate, _ b: Coordinate) -> [Int32] {
        let bLon = a.longitude + remainder(b.longitude - a.longitude, 360)
        let rows = row(min(a.latitude, b.latitude))...row(max(a.latitude, b.latitude))
        let columns = column(min(a.longitude, bLon))...column(max(a.longitude, bLon))
        if rows.count == 1, columns.count == 1 {
            // One cell (the common case): its list is already unique and ascending.
            let list = cells[key(rows.lowerBound, columns.lowerBound)] ?? []
            return large.isEmpty ? list : Array(Set(list).union(large)).sorted()
        }
        var result = Set(large)
        if rows.count * columns.count > 1_000_000 { return Array(Set(cells.values.joined()).union(large)).sorted() }
        for r in rows { for c in columns { if let list = cells[key(r, c)] { result.formUnion(list) } } }
        return result.sorted()
    }

    private func row(_ latitude: Double) -> Int64 { Int64((latitude / cellDegrees).rounded(.down)) }

    private func column(_ longitude: Double) -> Int64 { Int64((longitude / cellDegrees).rounded(.down)) }

    /// Cell key with the column wrapped round the globe, so a fence across ±180° is found from both sides.
    private func key(_ row: Int64, _ column: Int64) -> Int64 {
        let perTurn = Int64((360 / cellDegrees).rounded())
        let wrapped = ((column % perTurn) + perTurn) % perTurn
        return row &* perTurn &+ wrapped
    }
}
