import Testing
@testable import WaymarkEngine

@Suite("ReplayBroadcaster", .timeLimit(.minutes(5)))   // a cancellable wait (settle, waitUntil…) that never ends fails instead of hanging
struct ReplayBroadcasterTests {
    @Test("a late subscriber gets the current value at once")
    func late() async {
        let broadcaster = ReplayBroadcaster<Int>()
        await broadcaster.publish(1)
        await broadcaster.publish(2)
        var iterator = broadcaster.values.makeAsyncIterator()
        #expect(await iterator.next() == 2)
    }

    @Test("an early subscriber gets every value once, in order, and ends on finish")
    func early() async {
        let broadcaster = ReplayBroadcaster<Int>(initial: 0)
        let stream = await broadcaster.subscribe()
        for value in 1...3 { await broadcaster.publish(value) }
        await broadcaster.finish()
        var seen: [Int] = []
        for await value in stream { seen.append(value) }
        #expect(seen == [0, 1, 2, 3])
    }

    @Test("a subscriber after finish gets the last value and ends")
    func afterFinish() async {
        let broadcaster = ReplayBroadcaster<String>()
        await broadcaster.publish("located")
        await broadcaster.finish()
        var seen: [String] = []
        for await value in broadcaster.values { seen.append(value) }
        #expect(seen == ["located"])
    }

    @Test("subscribe() subscribes at once: an event stream gets what is published before its first next()")
    func subscribeAtOnce() async {
        let broadcaster = ReplayBroadcaster<Int>(replaysCurrent: false)
        let eager = await broadcaster.values.subscribe()
        let lazy = broadcaster.values
        #expect(await broadcaster.subscriberCount == 1)
        await broadcaster.publish(1)
        await broadcaster.publish(2)
        await broadcaster.finish()
        var seen: [Int] = [], missed: [Int] = []
        for await value in eager { seen.append(value) }
        for await value in lazy { missed.append(value) }
        #expect(seen == [1, 2])
        #expect(missed.isEmpty, "a sequence iterated later subscribes then, after the values were published")
    }

    @Test("a cancelled subscription is removed")
    func cancelled() async {
        let broadcaster = ReplayBroadcaster<Int>(initial: 0)
        let stream = await broadcaster.values.subscribe()
        let task = Task {
            var count = 0
            for await _ in stream { count += 1 }
            return count
        }
        task.cancel()
        _ = await task.value
        #expect(await broadcaster.waitUntil(subscribers: 0), "the cancelled subscription was never removed")   // from a task of its own
    }
}
