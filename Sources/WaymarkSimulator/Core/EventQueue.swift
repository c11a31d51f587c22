/// A priority queue of scheduled simulator actions ordered by virtual time, then by insertion.
///
/// Equal times keep insertion order, so runs are deterministic. A binary heap; O(log n) per operation.
struct EventQueue<Action: Sendable>: Sendable {
    struct Entry: Sendable {
        var time: Double
        var sequence: UInt64
        var action: Action
        func precedes(_ other: Entry) -> Bool {
            time < other.time || (time == other.time && sequence < other.sequence)
        }
    }

    private var heap: [Entry] = []
    private var nextSequence: UInt64 = 0

    var isEmpty: Bool { heap.isEmpty }
    var count: Int { heap.count }
    /// The time of the earliest entry.
    var nextTime: Double? { heap.first?.time }

    mutating func schedule(_ action: Action, at time: Double) {
        heap.append(Entry(time: time, sequence: nextSequence, action: action))
        nextSequence += 1
        var i = heap.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard heap[i].precedes(heap[parent]) else { break }
            heap.swapAt(i, parent)
            i = parent
        }
    }

    mutating func pop() -> Entry? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let top = heap.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var best = i
            if l < heap.count, heap[l].precedes(heap[best]) { best = l }
            if r < heap.count, heap[r].precedes(heap[best]) { best = r }
            if best == i { break }
            heap.swapAt(i, best)
            i = best
        }
        return top
    }
}
