import NIOConcurrencyHelpers

/// Turns per device within one process: a task holds the turns of a set of devices while it reads their fence
/// states, evaluates and writes, and other tasks that want any of those devices wait for it.
///
/// Turns are taken in id order, so two tasks that want overlapping sets cannot wait for each other in a circle.
/// A turn is handed to the next waiter in arrival order when it is given back. Waiting is not cancellable: a
/// turn is held only for one statement's round trip. Thread-safe; `Sendable`.
final class DeviceTurns: Sendable {
    /// For each device whose turn is taken, the tasks waiting for it.
    private let waiting = NIOLockedValueBox<[String: [CheckedContinuation<Void, Never>]]>([:])

    /// Waits for the turn of every device in `ids` and returns them sorted, to pass to ``giveBack(_:)``.
    func take(_ ids: some Sequence<String>) async -> [String] {
        let sorted = Array(Set(ids)).sorted()
        for id in sorted {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let free = waiting.withLockedValue { table -> Bool in
                    guard table[id] != nil else { table[id] = []; return true }
                    table[id]!.append(continuation)
                    return false
                }
                if free { continuation.resume() }
            }
        }
        return sorted
    }

    /// Gives back the turns `take` returned, each to its next waiter.
    func giveBack(_ ids: [String]) {
        for id in ids {
            let next = waiting.withLockedValue { table -> CheckedContinuation<Void, Never>? in
                guard var queue = table[id], !queue.isEmpty else { table[id] = nil; return nil }
                let first = queue.removeFirst()
                table[id] = queue
                return first
            }
            next?.resume()
        }
    }
}
