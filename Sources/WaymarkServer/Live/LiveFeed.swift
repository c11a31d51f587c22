import Foundation
import NIOConcurrencyHelpers

/// Fans committed positions and fence events out to live subscribers (the SSE stream, the dashboard).
///
/// In-process only: each server process streams what it committed itself. Slow subscribers
/// lose the oldest messages beyond ``bufferLimit`` rather than slowing ingest.
/// Thread-safe (a lock around the subscriber table); `Sendable`.
///
/// ```swift
/// let feed = LiveFeed()
/// for await message in feed.subscribe() { … }
/// ```
public final class LiveFeed: Sendable {
    /// One live update.
    public enum Message: Sendable, Hashable {
        /// Positions of one device, just committed.
        case positions([Position])
        /// A fence event, just committed.
        case event(FenceEventRecord)

        /// The device the message is about.
        public var deviceID: String? {
            switch self {
            case .positions(let list): list.first?.deviceID
            case .event(let record): record.event.deviceID
            }
        }
    }

    /// Messages kept per subscriber before the oldest are dropped.
    public let bufferLimit: Int
    private let subscribers = NIOLockedValueBox<[UInt64: AsyncStream<Message>.Continuation]>([:])
    private let nextID = NIOLockedValueBox<UInt64>(0)

    /// Makes a feed.
    public init(bufferLimit: Int = 10_000) {
        self.bufferLimit = bufferLimit
    }

    /// A stream of every message published from now on; it ends when the consumer stops iterating.
    public func subscribe() -> AsyncStream<Message> { subscription().stream }

    /// A stream of every message published from now on, and a function that ends it (e.g. at shutdown).
    public func subscription() -> (stream: AsyncStream<Message>, finish: @Sendable () -> Void) {
        let (stream, continuation) = AsyncStream<Message>.makeStream(bufferingPolicy: .bufferingNewest(bufferLimit))
        let id = nextID.withLockedValue { value -> UInt64 in
            value += 1
            return value
        }
        subscribers.withLockedValue { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLockedValue { $0.removeValue(forKey: id) }
        }
        return (stream, { continuation.finish() })
    }

    /// How many subscribers are listening.
    public var subscriberCount: Int { subscribers.withLockedValue { $0.count } }

    /// Sends `message` to every subscriber.
    public func publish(_ message: Message) {
        for continuation in subscribers.withLockedValue({ Array($0.values) }) { continuation.yield(message) }
    }
}
