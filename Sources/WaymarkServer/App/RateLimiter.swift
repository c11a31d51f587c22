import Hummingbird
import NIOConcurrencyHelpers
import NIOCore

/// A sustained rate and a burst: a token bucket holding at most `burst` tokens, refilled at `perSecond`
/// tokens a second; each request takes one.
public struct RateLimit: Sendable, Hashable, CustomStringConvertible {
    /// Tokens added a second: the sustained request rate.
    public var perSecond: Double
    /// Tokens the bucket holds at most: the requests a client that was quiet may send at once.
    public var burst: Int

    /// A rate of `perSecond` requests a second with bursts of `burst`.
    public init(perSecond: Double, burst: Int) {
        self.perSecond = perSecond
        self.burst = burst
    }

    /// Reads `RATE` or `RATE/BURST` (requests a second, then the burst), as `waymark serve`'s rate options take
    /// them; without a burst it is ten seconds of the rate (at least 1). Nil for anything else.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let rate = Double(parts[0]), rate.isFinite, rate > 0 else { return nil }
        if parts.count == 2 {
            guard let burst = Int(parts[1]), burst >= 1 else { return nil }
            self.init(perSecond: rate, burst: burst)
        } else {
            self.init(perSecond: rate, burst: max(1, Int((rate * 10).rounded(.up))))
        }
    }

    /// `RATE/BURST`, as ``init(parsing:)`` reads it.
    public var description: String {
        let rate = perSecond == perSecond.rounded() ? String(Int(perSecond)) : String(perSecond)
        return "\(rate)/\(burst)"
    }
}

/// Token buckets, one per key, in a table whose size is bounded.
///
/// A bucket that has refilled to its burst is the same as no bucket, so it is dropped: the table holds only
/// the keys that sent more than the rate refills, recently. The table is swept of full buckets whenever it
/// has doubled since the last sweep; if it is still at `maxEntries` after a sweep (a flood from more keys
/// than that, within the refill time), the least recently seen half is dropped as well. A dropped key starts
/// again with a full bucket, which gives it no more than a new key gets. `Sendable`; one lock.
final class TokenBuckets<Key: Hashable & Sendable>: Sendable {
    let limit: RateLimit
    let maxEntries: Int
    private let now: @Sendable () -> Double
    private struct Bucket {
        var tokens: Double
        var stamp: Double
    }
    private struct Table {
        var buckets: [Key: Bucket] = [:]
        var sweepAt: Int
    }
    private let table: NIOLockedValueBox<Table>
    private static var minimumSweep: Int { 1_024 }

    /// Buckets of `limit`, at most `maxEntries` of them; `now` reads a monotonic clock in seconds.
    init(limit: RateLimit, maxEntries: Int = 100_000, now: @escaping @Sendable () -> Double = monotonicSeconds) {
        let capacity = max(2, maxEntries)
        self.limit = limit
        self.maxEntries = capacity
        self.now = now
        table = NIOLockedValueBox(Table(sweepAt: min(Self.minimumSweep, capacity)))
    }

    /// Buckets held now (for tests and metrics).
    var count: Int { table.withLockedValue { $0.buckets.count } }

    /// Takes a token for `key`: nil when there was one, else the whole seconds until there is (at least 1).
    func take(_ key: Key) -> Int? {
        let time = now()
        let rate = limit.perSecond, burst = Double(limit.burst)
        return table.withLockedValue { table in
            var bucket: Bucket
            if let existing = table.buckets[key] {
                bucket = existing
                bucket.tokens = min(burst, bucket.tokens + max(0, time - bucket.stamp) * rate)
            } else {
                if table.buckets.count >= table.sweepAt { Self.sweep(&table, at: time, limit: limit, maxEntries: maxEntries) }
                bucket = Bucket(tokens: burst, stamp: time)
            }
            bucket.stamp = time
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                table.buckets[key] = bucket
                return nil
            }
            table.buckets[key] = bucket
            return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
        }
    }

    private static func sweep(_ table: inout Table, at time: Double, limit: RateLimit, maxEntries: Int) {
        let burst = Double(limit.burst)
        table.buckets = table.buckets.filter { $0.value.tokens + max(0, time - $0.value.stamp) * limit.perSecond < burst }
        if table.buckets.count >= maxEntries {
            let stamps = table.buckets.values.map(\.stamp).sorted()
            let cut = stamps[stamps.count - maxEntries / 2]
            table.buckets = table.buckets.filter { $0.value.stamp >= cut }
            if table.buckets.count >= maxEntries {   // equal stamps: drop arbitrary ones down to half
                table.buckets = Dictionary(uniqueKeysWithValues: table.buckets.prefix(maxEntries / 2).map { ($0.key, $0.value) })
            }
        }
        table.sweepAt = min(maxEntries, max(minimumSweep, 2 * table.buckets.count))
    }
}

/// Seconds from an arbitrary start, never going back.
@Sendable func monotonicSeconds() -> Double { Double(NIODeadline.now().uptimeNanoseconds) / 1e9 }

/// The share of one client address: an IPv4 address, or an IPv6 /64 (the key of
/// ``ConnectionLimiter``'s per-address share), in two words with no allocation.
struct AddressKey: Hashable, Sendable {
    let bits: UInt64
    let isV4: Bool

    /// The key of ``ConnectionLimiter/addressKey(_:)``'s bytes (4 for IPv4, 8 for an IPv6 /64); nil for none.
    init?(_ bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 8 else { return nil }
        bits = bytes.reduce(0) { $0 << 8 | UInt64($1) }
        isV4 = bytes.count == 4
    }
}

/// The server's fair-sharing limits: a token bucket per client address (every request) and per device
/// credential (every request a device token authenticates). Either may be off (nil).
public final class RateLimiter: Sendable {
    /// Requests from one IPv4 address or IPv6 /64.
    public var perAddress: RateLimit? { addresses?.limit }
    /// Requests one device token authenticates.
    public var perDevice: RateLimit? { devices?.limit }
    private let addresses: TokenBuckets<AddressKey>?
    private let devices: TokenBuckets<String>?

    /// Limits of `perAddress` and `perDevice` (nil: none), each table holding at most `maxEntries` buckets;
    /// `now` reads a monotonic clock in seconds (tests pass their own).
    init(perAddress: RateLimit?, perDevice: RateLimit?, maxEntries: Int = 100_000,
         now: @escaping @Sendable () -> Double = monotonicSeconds) {
        addresses = perAddress.map { TokenBuckets(limit: $0, maxEntries: maxEntries, now: now) }
        devices = perDevice.map { TokenBuckets(limit: $0, maxEntries: maxEntries, now: now) }
    }

    /// Buckets held now, per address and per device.
    var tableSizes: (addresses: Int, devices: Int) { (addresses?.count ?? 0, devices?.count ?? 0) }

    /// Counts a request from `address` (``ConnectionLimiter/addressKey(_:)``'s bytes; a request with no address,
    /// from a Unix socket or a test client, is not counted); throws 429 past the limit.
    func admit(address: [UInt8]) throws {
        guard let addresses, let key = AddressKey(address), let wait = addresses.take(key) else { return }
        throw ServerError.rateLimited(
            "your address has sent more than \(Self.describe(addresses.limit)), the limit per address (waymark serve "
            + "--rate-limit-per-address); retry after \(wait) s", retryAfter: wait)
    }

    /// Counts a request authenticated by device `id`'s token; throws 429 past the limit.
    func admit(device id: String) throws {
        guard let devices, let wait = devices.take(id) else { return }
        throw ServerError.rateLimited(
            "this device has sent more than \(Self.describe(devices.limit)), the limit per device (waymark serve "
            + "--rate-limit-per-device); retry after \(wait) s", retryAfter: wait)
    }

    private static func describe(_ limit: RateLimit) -> String {
        let rate = limit.perSecond == limit.perSecond.rounded() ? String(Int(limit.perSecond)) : String(limit.perSecond)
        return "\(rate) requests a second (in bursts of up to \(limit.burst))"
    }
}

extension ServerError {
    /// 429 `tooManyRequests` with `Retry-After: seconds`.
    static func rateLimited(_ message: String, retryAfter seconds: Int) -> ServerError {
        var error = ServerError(.tooManyRequests, message)
        error.retryAfterSeconds = seconds
        return error
    }
}

/// Counts every request against its address's token bucket (``RateLimiter/admit(address:)``) before any other
/// work, so a flood from one address is answered 429 without reading its body or its credentials.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext
    let limiter: RateLimiter
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            try limiter.admit(address: context.remoteAddressKey)
        } catch {
            metrics.refused("rate_address")
            throw error
        }
        return try await next(request, context)
    }
}
