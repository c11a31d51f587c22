import Foundation
import WaymarkGeo

/// A uniform latitude/longitude grid over fences: which fences may touch a segment.
///
/// Each fence is listed in every cell its bounding box overlaps; fences bigger than
/// ``maxCellsPerFence`` cells go to a short list checked every time. Only non-empty cells are stored:
/// the occupied rows in ascending order, each with its occupied columns in ascending order, and the
/// cells' fence lists back to back in one array. A query walks the segment row by row: it finds the
/// occupied rows in the segment's latitude range by binary search, and in each of them the occupied
/// columns the segment passes (again by binary search). So a lookup costs a logarithm per occupied row
/// the segment spans plus the fences it finds, whatever the segment's length: a segment across a
/// continent with no fence near it costs two binary searches, not one probe per cell of its box.
/// The cell size follows the fences: about the median fence's size (0.002°–0.05°), so a cell holds a
/// few fences whether they are 100 m or 5 km across. Immutable and `Sendable`.
struct ServerFenceGrid: Sendable {
    /// Cell size in degrees (0.05° ≈ 5.5 km of latitude).
    let cellDegrees: Double
    static let maxCellsPerFence = 4096
    /// Cells in one turn of longitude.
    private let perTurn: Int64
    /// The rows holding at least one fence, ascending.
    private var rows: [Int64] = []
    /// Row `k`'s cells are `columns[rowStart[k]..<rowStart[k + 1]]`.
    private var rowStart: [Int32] = [0]
    /// Each occupied cell's column (wrapped to `0..<perTurn`), ascending within a row.
    private var columns: [Int64] = []
    /// Cell `j`'s fences are `members[cellStart[j]..<cellStart[j + 1]]`.
    private var cellStart: [Int32] = [0]
    /// Every cell's fence indices, ascending within a cell, cell after cell.
    private var members: [Int32] = []
    /// Fences listed in no cell (too big): candidates for every query.
    private var large: [Int32] = []

    init(fences: [ServerFence], cellDegrees: Double? = nil) {
        let cell = cellDegrees ?? Self.suggestedCellDegrees(fences)
        self.cellDegrees = cell
        self.perTurn = Int64((360 / cell).rounded())
        var placed: [(row: Int64, column: Int64, fence: Int32)] = []
        for (i, fence) in fences.enumerated() {
            let b = fence.bounds
            let rowRange = row(b.minLat)...row(b.maxLat)
            let columnRange = column(b.minLon)...column(b.maxLon)
            if rowRange.count * columnRange.count > Self.maxCellsPerFence {
                large.append(Int32(i))
                continue
            }
            for r in rowRange { for c in columnRange { placed.append((r, wrap(c), Int32(i))) } }
        }
        // Sorting by (row, column, fence) keeps each cell's list ascending and drops a fence listed twice
        // in one cell (a box wider than a turn of longitude).
        placed.sort { ($0.row, $0.column, $0.fence) < ($1.row, $1.column, $1.fence) }
        members.reserveCapacity(placed.count)
        for (k, p) in placed.enumerated() {
            let newRow = k == 0 || placed[k - 1].row != p.row
            let newCell = newRow || placed[k - 1].column != p.column
            if newCell, k > 0 { cellStart.append(Int32(members.count)) }
            if newRow {
                if k > 0 { rowStart.append(Int32(columns.count)) }
                rows.append(p.row)
            }
            if newCell { columns.append(p.column) }
            if newCell || members[members.count - 1] != p.fence { members.append(p.fence) }
        }
        if !placed.isEmpty {
            cellStart.append(Int32(members.count))
            rowStart.append(Int32(columns.count))
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

    /// Replaces `result` with the indices of the fences whose boxes may overlap the straight segment
    /// (in latitude/longitude, the short way round) from `a` to `b`, ascending, each once; allocates nothing
    /// when `result`'s capacity suffices. `a == b` asks for the fences whose boxes hold that point. Returns the
    /// work done: occupied rows plus occupied cells examined (the cost the segment's length does not drive).
    @discardableResult
    func candidates(_ a: Coordinate, _ b: Coordinate, into result: inout [Int32]) -> Int {
        result.removeAll(keepingCapacity: true)
        let bLon = a.longitude + SegmentCrossing.longitudeDifference(b.longitude, a.longitude)
        let minLat = min(a.latitude, b.latitude), maxLat = max(a.latitude, b.latitude)
        let latChange = b.latitude - a.latitude, lonChange = bLon - a.longitude
        // A margin far below a cell, far above rounding: a crossing point computed one ulp off a cell edge
        // still finds its cell.
        let margin = 1e-9
        var cellsVisited = 0, rowsVisited = 0
        var k = Self.lowerBound(rows, row(minLat), in: 0..<rows.count)
        let lastRow = row(maxLat)
        while k < rows.count, rows[k] <= lastRow {
            // The part of the segment within this row's latitude band, and the longitudes it spans there.
            let low = max(minLat, Double(rows[k]) * cellDegrees), high = min(maxLat, Double(rows[k] + 1) * cellDegrees)
            var west = min(a.longitude, bLon), east = max(a.longitude, bLon)
            if latChange != 0 {
                let l1 = a.longitude + lonChange * ((low - a.latitude) / latChange)
                let l2 = a.longitude + lonChange * ((high - a.latitude) / latChange)
                west = max(west, min(l1, l2))
                east = min(east, max(l1, l2))
            }
            let first = column(west - margin), last = column(east + margin)
            let cells = Int(rowStart[k])..<Int(rowStart[k + 1])
            if last - first + 1 >= perTurn {
                cellsVisited += appendColumns(0, perTurn - 1, in: cells, to: &result)
            } else if wrap(first) <= wrap(last) {
                cellsVisited += appendColumns(wrap(first), wrap(last), in: cells, to: &result)
            } else {
                cellsVisited += appendColumns(wrap(first), perTurn - 1, in: cells, to: &result)
                cellsVisited += appendColumns(0, wrap(last), in: cells, to: &result)
            }
            k += 1
            rowsVisited += 1
        }
        result.append(contentsOf: large)
        // One cell's list is already ascending and unique; several cells (or big fences) need merging.
        if cellsVisited > 1 || !large.isEmpty {
            result.sort()
            var kept = 0
            for i in result.indices where kept == 0 || result[i] != result[kept - 1] {
                result[kept] = result[i]
                kept += 1
            }
            result.removeLast(result.count - kept)
        }
        return rowsVisited + cellsVisited
    }

    /// Appends the fences of the occupied cells of one row (`cells`, indices into ``columns``) whose column
    /// lies in `from...to`; returns how many cells that was.
    private func appendColumns(_ from: Int64, _ to: Int64, in cells: Range<Int>, to result: inout [Int32]) -> Int {
        var j = Self.lowerBound(columns, from, in: cells)
        var count = 0
        while j < cells.upperBound, columns[j] <= to {
            result.append(contentsOf: members[Int(cellStart[j])..<Int(cellStart[j + 1])])
            j += 1
            count += 1
        }
        return count
    }

    /// The first index in `range` of the ascending `values` whose value is at least `value`.
    private static func lowerBound(_ values: [Int64], _ value: Int64, in range: Range<Int>) -> Int {
        var low = range.lowerBound, high = range.upperBound
        while low < high {
            let mid = (low + high) / 2
            if values[mid] < value { low = mid + 1 } else { high = mid }
        }
        return low
    }

    private func row(_ latitude: Double) -> Int64 { Int64((latitude / cellDegrees).rounded(.down)) }

    private func column(_ longitude: Double) -> Int64 { Int64((longitude / cellDegrees).rounded(.down)) }

    /// A column wrapped round the globe, so a fence across ±180° is found from both sides.
    private func wrap(_ column: Int64) -> Int64 { ((column % perTurn) + perTurn) % perTurn }
}
