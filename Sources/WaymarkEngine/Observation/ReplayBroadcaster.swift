import WaymarkGeo

/// Holds the current value of a public state and hands it to every subscriber: first the current
/// value at once (if there is one), then each new value as it is published.
///
/// A subscriber that arrives after a value was published gets it immediately; one that arrives
/// before gets it when it is published; both get it exactly once. Nobody has to guess whether a
/// callback already fired.
///
/// ```swift
/// let states = ReplayBroadcaster<LaunchLocationState>(initial: .idle)
/// await states.publish(.locating)
/// for await state in states.values { print(state) }   // .locating, then whatever comes next
/// ```
///
/// An actor: safe to publish and subscribe from any task. Each subscription buffers without
/// limit, so a slow subscriber sees every value in order.
public actor ReplayBroadcaster<Value: Sendable> {
    /// The latest published value, nil before the first.
    public private(set) var current: Value?
    /// Whether ``finish()`` was called; subscribers then end after the current value.
    public private(set) var isFinished = false
    /// Whether a new subscriber gets the current value first (states); false for event streams.
    public nonisolated let replaysCurrent: Bool
    private var continuations: [Int: AsyncStream<Value>.Continuation] = [:]
    private var nextID = 0
    /// Tasks in ``waitUntil(subscribers:)``.
    private var watchers = CountWaiters()

    /// Makes a broadcaster, optionally with an initial current value.
    ///
    /// - parameter initial: the current value before the first ``publish(_:)``; nil for none.
    /// - parameter replaysCurrent: false for a stream of events, where a subscriber sees only
    ///   what is published after it subscribed.
    public init(initial: Value? = nil, replaysCurrent: Bool = true) {
        current = initial
        self.replaysCurrent = replaysCurrent
    }

    /// The number of live subscriptions.
    public var subscriberCount: Int { continuations.count }

    /// Makes `value` current and sends it to every subscriber. Ignored after ``finish()``.
    public func publish(_ value: Value) {
        guard !isFinished else { return }
        current = value
        for continuation in continuations.values { continuation.yield(value) }
    }

    /// Ends every subscription (after the values already sent); later subscribers get the current value and end.
    public func finish() {
        isFinished = true
        for continuation in continuations.values { continuation.finish() }
        continuations = [:]
        notifyWatchers()
        // No subscription comes after the end: the rest wait for a count that never comes.
        for watcher in watchers.takeAll() { watcher.resume(returning: false) }
    }

    /// A new subscription: the current value first (when replaying), then every published value.
    public func subscribe() -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self)
        if replaysCurrent, let current { continuation.yield(current) }
        if isFinished {
            continuation.finish()
            return stream
        }
        let id = nextID
        nextID += 1
        continuations[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.remove(id) }
        }
        notifyWatchers()
        return stream
    }

    /// The values as an `AsyncSequence`; each iteration is its own subscription, made on the first `next()`.
    public nonisolated var values: ReplaySequence<Value> { ReplaySequence(broadcaster: self) }

    /// Returns once the live subscriptions (``subscriberCount``) have come to `count`, from above or
    /// below: true; false when the waiting task is cancelled first. A subscription that ended is
    /// removed shortly after its end, from a task; this waits for that.
    @discardableResult
    func waitUntil(subscribers count: Int) async -> Bool {
        guard subscriberCount != count else { return true }
        let id = watchers.newID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                if Task.isCancelled {
                    continuation.resume(returning: false)
                } else {
                    watchers.add(id, target: count, current: subscriberCount, continuation)
                }
            }
        } onCancel: {
            Task { await self.cancelWatcher(id) }
        }
    }

    private func cancelWatcher(_ id: Int) {
        watchers.take(id)?.resume(returning: false)
    }

    private func remove(_ id: Int) {
        continuations[id] = nil
        notifyWatchers()
    }

    private func notifyWatchers() {
        for continuation in watchers.takeReached(subscriberCount) { continuation.resume(returning: true) }
    }
}

/// An `AsyncSequence` over a ``ReplayBroadcaster``: the current value first, then each new one.
///
/// Each iterator subscribes on its first `next()`. `Sendable`; iterators are not shared between tasks.
public struct ReplaySequence<Value: Sendable>: AsyncSequence, Sendable {
    /// The element type.
    public typealias Element = Value
    let broadcaster: ReplayBroadcaster<Value>

    /// Makes an iterator; it subscribes when first asked for a value.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(broadcaster: broadcaster) }

    /// Subscribes now, not on the first `next()`: every value published after this returns is in the
    /// stream (after the current value, when the sequence replays). Use it for a stream without replay
    /// whose values must not be missed, such as fence events: a `for await` loop started in a new task
    /// subscribes only when that task first runs, and misses what is published before.
    ///
    /// ```swift
    /// let events = await engine.geofences.events.subscribe()
    /// Task { for await event in events { handle(event) } }
    /// Task { await engine.run() }
    /// ```
    public func subscribe() async -> AsyncStream<Value> { await broadcaster.subscribe() }

    /// Iterates one subscription.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let broadcaster: ReplayBroadcaster<Value>
        var inner: AsyncStream<Value>.Iterator?

        /// The next value, or nil when the broadcaster finished.
        public mutating func next() async -> Value? {
            if inner == nil { inner = await broadcaster.subscribe().makeAsyncIterator() }
            return await inner?.next()
        }
    }
}
