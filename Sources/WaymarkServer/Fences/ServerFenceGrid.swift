import Foundation
import WaymarkGeo

/// A uniform latitude/longitude grid over fences: which fences may touch a box.
///
/// Each fence is listed in every cell its bounding box overlaps; fences bigger than
/// ``maxCellsPerFence`` cells go to a short list checked every time. The cell lists are stored
/// back to back in one array (a dictionary maps a cell to its slice), so a lookup is one
/// dictionary probe per cell and copies no array. The cell size follows the fences: about the
/// median fence's size (0.002°–0.05°), so a cell holds a few fences whether they are 100 m or
/// 5 km across. Immutable and `Sendable`.
struct ServerFenceGrid: Sendable {
    /// Cell size in degrees (0.05° ≈ 5.5 km of latitude).
    let cellDegrees: Double
    static let maxCellsPerFence = 4096
    /// Cells in one turn of longitude.
    private let perTurn: Int64
    /// Cell key → (start, count) in ``members``.
    private var cells: [Int64: (start: Int32, count: Int32)] = [:]
    /// Every cell's fence indices, ascending within a cell, cell after cell.
    private var members: [Int32] = []
    /// Fences listed in no cell (too big): candidates for every query.
    private var large: [Int32] = []

    init(fences: [ServerFence], cellDegrees: Double? = nil) {
        let cell = cellDegrees ?? Self.suggestedCellDegrees(fences)
        self.cellDegrees = cell
        self.perTurn = Int64((360 / cell).rounded())
        // Two passes: count each cell's fences, then place them, so the lists share one array.
        var placed: [(key: Int64, fence: Int32)] = []
        for (i, fence) in fences.enumerated() {
            let b = fence.bounds
            let rows = row(b.minLat)...row(b.maxLat)
            let columns = column(b.minLon)...column(b.maxLon)
            if rows.count * columns.count > Self.maxCellsPerFence {
                large.append(Int32(i))
                continue
            }
            for r in rows { for c in columns { placed.append((key(r, c), Int32(i))) } }
        }
        // Sorting by (cell, fence) keeps each cell's list ascending and drops a fence listed twice
        // in one cell (a box wider than a turn of longitude).
        placed.sort { $0.key != $1.key ? $0.key < $1.key : $0.fence < $1.fence }
        members.reserveCapacity(placed.count)
        var start = 0
        while start < placed.count {
            let key = placed[start].key
            var end = start
            let first = members.count
            while end < placed.count, placed[end].key == key {
                if members.count == first || members[members.count - 1] != placed[end].fence { members.append(placed[end].fence) }
                end += 1
            }
            cells[key] = (Int32(first), Int32(members.count - first))
            start = end
        }
    }

    /// The median fence's larger bounding-box side, clamped to 0.002°…0.05° (0.05° with no fences).
    static func suggestedCellDegrees(_ fences: [ServerFence]) -> Double {
        guard !fences.isEmpty else { return 0.05 }
        let step = max(1, fences.count / 2001)
        var sides = stride(from: 0, to: fences.count, by: step).map { i -> Double in
            let b = fences[i].bounds
            return max(b.maxLat - b.minLat, b.maxLon - b.minLon)
        }
        sides.sort()
        return min(0.05, max(0.002, sides[sides.count / 2]))
    }

    /// Replaces `result` with the indices of the fences whose boxes may overlap the box around `a` and
    /// `b`, ascending, each once; allocates nothing when `result`'s capacity suffices.
    func candidates(_ a: Coordinate, _ b: Coordinate, into result: inout [Int32]) {
        result.removeAll(keepingCapacity: true)
        let bLon = a.longitude + SegmentCrossing.longitudeDifference(b.longitude, a.longitude)
        let rows = row(min(a.latitude, b.latitude))...row(max(a.latitude, b.latitude))
        let columns = column(min(a.longitude, bLon))...column(max(a.longitude, bLon))
        let cellCount = rows.count * columns.count
        if cellCount > 1_000_000 {
            result.append(contentsOf: members)
        } else {
            for r in rows { for c in columns { append(cell: key(r, c), to: &result) } }
        }
        result.append(contentsOf: large)
        // One cell's list is already ascending and unique; several cells (or big fences) need merging.
        if cellCount > 1 || !large.isEmpty {
            result.sort()
            var kept = 0
            for i in result.indices where kept == 0 || result[i] != result[kept - 1] {
                result[kept] = result[i]
                kept += 1
            }
            result.removeLast(result.count - kept)
        }
    }

    private func append(cell: Int64, to result: inout [Int32]) {
        guard let (start, count) = cells[cell] else { return }
        result.append(contentsOf: members[Int(start)..<Int(start + count)])
    }

    private func row(_ latitude: Double) -> Int64 { Int64((latitude / cellDegrees).rounded(.down)) }

    private func column(_ longitude: Double) -> Int64 { Int64((longitude / cellDegrees).rounded(.down)) }

    /// Cell key with the column wrapped round the globe, so a fence across ±180° is found from both sides.
    private func key(_ row: Int64, _ column: Int64) -> Int64 {
        let wrapped = ((column % perTurn) + perTurn) % perTurn
        return row &* perTurn &+ wrapped
    }
}
