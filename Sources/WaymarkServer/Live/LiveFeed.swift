import Foundation
import NIOConcurrencyHelpers
import WaymarkGeo

/// Fans committed positions and fence events out to live subscribers (the SSE stream, the dashboard).
///
/// In-process only: each server process streams what it committed itself. Each subscriber has a
/// filter, applied when a message is published, so it never holds what it may not see; and a bound,
/// counted in positions (a fence event counts one): a subscriber further behind than
/// ``maxPendingPositions`` is disconnected, never buffered without end, and never slows ingest. Large
/// batches are published in messages of at most ``chunkSize`` positions. Thread-safe; `Sendable`.
///
/// ```swift
/// let feed = LiveFeed()
/// for await message in feed.subscribe(filter: { $0 == deviceID }) { … }
/// ```
public final class LiveFeed: Sendable {
    /// One live update.
    public enum Message: Sendable, Hashable {
        /// Positions of one device, just committed.
        case positions([Position])
        /// A fence event the server decided, just committed.
        case event(FenceEventRecord)
        /// A record a device reported (its own geofence event, an app event…), just committed.
        case deviceEvent(DeviceEventRecord)

        /// The device the message is about.
        public var deviceID: String? {
            switch self {
            case .positions(let list): list.first?.deviceID
            case .event(let record): record.event.deviceID
            case .deviceEvent(let record): record.deviceID
            }
        }

        /// What the message counts against a subscriber's bound: its positions, or 1.
        var weight: Int {
            switch self {
            case .positions(let list): max(1, list.count)
            case .event, .deviceEvent: 1
            }
        }
    }

    /// Positions a subscriber may have waiting before it is disconnected.
    public let maxPendingPositions: Int
    /// Most positions in one message.
    public static let chunkSize = 500
    private let subscribers = NIOLockedValueBox<[UInt64: Subscriber]>([:])
    private let nextID = NIOLockedValueBox<UInt64>(0)

    /// Makes a feed whose subscribers may fall `maxPendingPositions` positions behind, but never fewer
    /// than one message's worth (``chunkSize``): a smaller bound would drop a subscriber at its first
    /// large batch.
    ///
    /// - precondition: `maxPendingPositions` is at least 1; the program stops, naming the value, otherwise.
    public init(maxPendingPositions: Int = 20_000) {
        var check = ContractCheck()
        check.require(maxPendingPositions >= 1, "maxPendingPositions must be at least 1, not \(maxPendingPositions)")
        ContractCheck.require(check.violations, in: "LiveFeed")
        self.maxPendingPositions = max(Self.chunkSize, maxPendingPositions)
    }

    /// Messages about the devices `filter` admits, published from now on. The sequence ends when the
    /// subscriber falls too far behind (then ``Subscription/wasDropped`` is true), is finished, or, for a
    /// subscriber that is a device's (`owner`), when that device is revoked (``close(owner:)``).
    public func subscribe(owner: String? = nil,
                          filter: @escaping @Sendable (_ deviceID: String) -> Bool = { _ in true }) -> Subscription {
        let (stream, continuation) = AsyncStream<Frame>.makeStream(bufferingPolicy: .unbounded)
        let id = nextID.withLockedValue { value -> UInt64 in
            value += 1
            return value
        }
        let subscriber = Subscriber(continuation: continuation, owner: owner, filter: filter)
        subscribers.withLockedValue { $0[id] = subscriber }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLockedValue { $0.removeValue(forKey: id) }
        }
        return Subscription(stream: stream, subscriber: subscriber)
    }

    /// Ends every subscription the device `deviceID` holds (it was revoked): their streams close now,
    /// not when they expire. Subscriptions of others that may read the device (the admin's) stay.
    public func close(owner deviceID: String) {
        for subscriber in subscribers.withLockedValue({ Array($0.values) }) where subscriber.owner == deviceID {
            subscriber.continuation.finish()
        }
    }

    /// How many subscribers are listening.
    public var subscriberCount: Int { subscribers.withLockedValue { $0.count } }

    /// Sends `positions` (one device's, in time order) in messages of at most ``chunkSize``.
    public func publish(positions: [Position]) {
        guard !positions.isEmpty else { return }
        if positions.count <= Self.chunkSize {
            publish(.positions(positions))
            return
        }
        for start in stride(from: 0, to: positions.count, by: Self.chunkSize) {
            publish(.positions(Array(positions[start..<min(start + Self.chunkSize, positions.count)])))
        }
    }

    /// Sends `message` to every subscriber whose filter admits its device; disconnects those too far behind.
    public func publish(_ message: Message) {
        guard let deviceID = message.deviceID else { return }
        let weight = message.weight
        for subscriber in subscribers.withLockedValue({ Array($0.values) }) where subscriber.filter(deviceID) {
            if subscriber.admit(weight, limit: maxPendingPositions) {
                subscriber.continuation.yield(.message(message))
            } else {
                subscriber.drop()
            }
        }
    }

    /// What a subscriber's stream carries: a message, or a keep-alive tick (``Subscription/keepAlive()``),
    /// which the public iteration skips.
    enum Frame: Sendable {
        case message(Message)
        case keepAlive
    }

    /// One subscriber's state: its filter, and the positions published to it and not yet taken.
    final class Subscriber: Sendable {
        let continuation: AsyncStream<Frame>.Continuation
        let filter: @Sendable (String) -> Bool
        /// The device whose credentials opened it; nil for the admin's.
        let owner: String?
        private let pending = NIOLockedValueBox(0)
        private let dropped = NIOLockedValueBox(false)

        init(continuation: AsyncStream<Frame>.Continuation, owner: String?, filter: @escaping @Sendable (String) -> Bool) {
            self.continuation = continuation
            self.owner = owner
            self.filter = filter
        }

        func admit(_ weight: Int, limit: Int) -> Bool {
            pending.withLockedValue { count in
                guard count + weight <= limit else { return false }
                count += weight
                return true
            }
        }

        func taken(_ weight: Int) { pending.withLockedValue { $0 -= weight } }

        func drop() {
            dropped.withLockedValue { $0 = true }
            continuation.finish()
        }

        var wasDropped: Bool { dropped.withLockedValue { $0 } }
        var pendingWeight: Int { pending.withLockedValue { $0 } }
    }

    /// The messages of one subscriber. Iterate it once.
    public struct Subscription: AsyncSequence, Sendable {
        public typealias Element = Message
        let stream: AsyncStream<Frame>
        let subscriber: Subscriber

        /// Ends the subscription (e.g. at shutdown, or when its connection closes); iteration then finishes
        /// and the feed forgets the subscriber at once.
        public func finish() { subscriber.continuation.finish() }

        /// Wakes the consumer of ``frames()`` with a keep-alive tick (no message is counted).
        func keepAlive() { subscriber.continuation.yield(.keepAlive) }

        /// Messages and keep-alive ticks, for a consumer that writes something at each tick.
        func frames() -> AsyncMapSequence<AsyncStream<Frame>, Frame> {
            let subscriber = subscriber
            return stream.map { frame in
                if case .message(let message) = frame { subscriber.taken(message.weight) }
                return frame
            }
        }

        /// Whether the feed disconnected this subscriber for falling too far behind.
        public var wasDropped: Bool { subscriber.wasDropped }

        /// Positions published to this subscriber and not yet taken from the sequence.
        public var pendingPositions: Int { subscriber.pendingWeight }

        public func makeAsyncIterator() -> Iterator {
            Iterator(base: stream.makeAsyncIterator(), subscriber: subscriber)
        }

        public struct Iterator: AsyncIteratorProtocol {
            var base: AsyncStream<Frame>.Iterator
            let subscriber: Subscriber

            public mutating func next() async -> Message? {
                while let frame = await base.next() {
                    guard case .message(let message) = frame else { continue }
                    subscriber.taken(message.weight)
                    return message
                }
                return nil
            }
        }
    }
}
