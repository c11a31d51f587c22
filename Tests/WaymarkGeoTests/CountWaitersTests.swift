import Testing
import WaymarkGeo

/// The waiter list behind the package's test waits (`waitUntilHandled`, `waitUntilAdmitted`, …): a
/// waiter wakes once the count reaches its target from the side it started on, even when the count
/// jumps past it.
@Suite("CountWaiters", .timeLimit(.minutes(5)))
struct CountWaitersTests {
    /// The list, in an actor of the test's own, as an owner would keep it.
    actor Owner {
        var waiters = CountWaiters()
        func add(target: Int, current: Int, _ continuation: CheckedContinuation<Bool, Never>) -> Int {
            let id = waiters.newID()
            waiters.add(id, target: target, current: current, continuation)
            return id
        }
        func count(becomes count: Int) -> Int {
            let woken = waiters.takeReached(count)
            for continuation in woken { continuation.resume(returning: true) }
            return woken.count
        }
        func cancel(_ id: Int) -> Bool {
            guard let continuation = waiters.take(id) else { return false }
            continuation.resume(returning: false)
            return true
        }
        func giveUp() -> Int {
            let all = waiters.takeAll()
            for continuation in all { continuation.resume(returning: false) }
            return all.count
        }
    }

    /// Starts a task waiting for `target` while the count is `current`; returns it once registered, with its id.
    static func waiter(_ owner: Owner, target: Int, current: Int) async -> (task: Task<Bool, Never>, id: Int) {
        let (registered, registering) = AsyncStream.makeStream(of: Int.self)
        let task = Task {
            await withCheckedContinuation { continuation in
                Task { registering.yield(await owner.add(target: target, current: current, continuation)) }
            }
        }
        var ids = registered.makeAsyncIterator()
        return (task, await ids.next() ?? -1)
    }

    @Test("a count that jumps past the target wakes the waiter, from below and from above; short of it, nothing wakes")
    func jumps() async {
        let owner = Owner()
        let rising = await Self.waiter(owner, target: 2, current: 0)
        let risingWoken = [await owner.count(becomes: 1), await owner.count(becomes: 5)]   // 0 → 1 → 5
        #expect(risingWoken == [0, 1])
        _ = await owner.giveUp()                    // a waiter the count failed to wake is woken with false, not left hanging
        #expect(await rising.task.value)

        let falling = await Self.waiter(owner, target: 1, current: 3)
        let fallingWoken = [await owner.count(becomes: 2), await owner.count(becomes: 0)]  // 3 → 2 → 0
        #expect(fallingWoken == [0, 1])
        _ = await owner.giveUp()
        #expect(await falling.task.value)
    }

    @Test("a cancelled waiter is taken once and woken with false; giving up wakes the rest with false")
    func cancelAndGiveUp() async {
        let owner = Owner()
        let cancelled = await Self.waiter(owner, target: 10, current: 0)
        let other = await Self.waiter(owner, target: 10, current: 0)
        let taken = [await owner.cancel(cancelled.id), await owner.cancel(cancelled.id)]
        #expect(taken == [true, false])
        #expect(await owner.giveUp() == 1)          // only the other one was left
        #expect(await owner.count(becomes: 10) == 0)
        #expect(await cancelled.task.value == false)
        #expect(await other.task.value == false)
    }
}
