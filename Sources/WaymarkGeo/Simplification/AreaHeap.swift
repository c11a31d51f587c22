/// A binary min-heap of effective areas for ``VisvalingamWhyatt`` (internal).
///
/// Ties are broken by the lower index, so results do not depend on heap layout.
struct AreaHeap {
    struct Entry {
        var area: Double
        var index: Int
        var version: Int

        @inline(__always)
        func precedes(_ other: Entry) -> Bool {
            area < other.area || (area == other.area && index < other.index)
        }
    }

    private var items: [Entry] = []

    mutating func reserve(_ capacity: Int) {
        items.reserveCapacity(capacity)
    }

    mutating func push(_ entry: Entry) {
        items.append(entry)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child].precedes(items[parent]) else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> Entry? {
        guard !items.isEmpty else { return nil }
        let top = items[0]
        let last = items.removeLast()
        guard !items.isEmpty else { return top }
        items[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < items.count && items[left].precedes(items[smallest]) { smallest = left }
            if right < items.count && items[right].precedes(items[smallest]) { smallest = right }
            guard smallest != parent else { break }
            items.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }
}
