import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOConcurrencyHelpers
import Testing
@testable import WaymarkServer

/// #33 item 3, fair sharing: a token bucket per device credential and per client address; past either a
/// request gets 429 with `Retry-After` in whole seconds and a JSON error naming the limit, stores nothing,
/// and no other client is affected. The bucket tables stay bounded however many clients there are.
@Suite("Fair sharing: rate limits per device and per address", .timeLimit(.minutes(5)))
struct RateLimitTests {
    /// A monotonic clock the test moves by hand (seconds).
    final class ManualClock: Sendable {
        private let time = NIOLockedValueBox<Double>(1_000)
        func advance(_ seconds: Double) { time.withLockedValue { $0 += seconds } }
        var reading: @Sendable () -> Double { { [self] in time.withLockedValue { $0 } } }
    }

    /// An OwnTracks point `second` seconds after 2025-06-15T00:00:00Z (a day before the test clock).
    static func ownTracks(_ second: Int) -> String {
        #"{"_type":"location","lat":46.05,"lon":14.5,"tst":\#(1_749_945_600 + second),"acc":5}"#
    }

    @Test("the bucket: a burst, then one request per 1/rate seconds; Retry-After is the whole seconds to the next token")
    func bucket() {
        let clock = ManualClock()
        let buckets = TokenBuckets<String>(limit: RateLimit(perSecond: 0.4, burst: 3), now: clock.reading)
        #expect((0..<3).map { _ in buckets.take("a") } == [nil, nil, nil])
        #expect(buckets.take("a") == 3)            // 1 token at 0.4/s: 2.5 s, rounded up
        clock.advance(2)
        #expect(buckets.take("a") == 1)            // 0.8 of a token: 0.5 s more, rounded up to 1
        clock.advance(0.5)
        #expect(buckets.take("a") == nil)
        #expect(buckets.take("b") == nil)          // another key has its own bucket
        clock.advance(3600)                        // refills to the burst, never past it
        #expect((0..<4).map { _ in buckets.take("a") } == [nil, nil, nil, 3])
    }

    @Test("RateLimit reads RATE and RATE/BURST, and refuses the rest")
    func parsing() {
        #expect(RateLimit(parsing: "100/3000") == RateLimit(perSecond: 100, burst: 3_000))
        #expect(RateLimit(parsing: "0.5/2") == RateLimit(perSecond: 0.5, burst: 2))
        #expect(RateLimit(parsing: "20") == RateLimit(perSecond: 20, burst: 200))
        #expect(RateLimit(parsing: "0.05") == RateLimit(perSecond: 0.05, burst: 1))
        for bad in ["", "0", "-1", "1/0", "1/x", "x", "1/2/3", "inf", "nan", "1/"] {
            #expect(RateLimit(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test("200,000 addresses (20 times the table) keep it bounded; refilled buckets are dropped; a flooder stays limited")
    func boundedTable() {
        let clock = ManualClock()
        let maxEntries = 10_000   // the default is 100,000; a smaller table keeps the test quick
        let buckets = TokenBuckets<AddressKey>(limit: RateLimit(perSecond: 1, burst: 5), maxEntries: maxEntries, now: clock.reading)
        let flooder = AddressKey([10, 0, 0, 1])!
        while buckets.take(flooder) == nil {}
        var largest = 0
        for n in 0..<200_000 {
            let bytes = withUnsafeBytes(of: UInt32(n).bigEndian) { Array($0) } + [0x20, 0x01, 0x0d, 0xb8]
            _ = buckets.take(AddressKey(bytes)!)
            largest = max(largest, buckets.count)
            if n % 1_000 == 0 {
                clock.advance(0.005)
                // The flooder keeps sending faster than it refills: it is never forgotten, so never let through.
                #expect(buckets.take(flooder) != nil, "the flooder was let through after \(n) other addresses")
            }
        }
        #expect(largest <= maxEntries, "the table grew to \(largest)")
        // Once everyone has refilled (5 s), the next sweep drops every old bucket: only the addresses seen since stay.
        clock.advance(10)
        var fresh = 0, swept = false
        while fresh < maxEntries, !swept {
            let before = buckets.count
            _ = buckets.take(AddressKey(withUnsafeBytes(of: UInt64(fresh) | 1 << 63) { Array($0) })!)
            fresh += 1
            swept = buckets.count < before
        }
        #expect(swept && buckets.count == fresh, "after the sweep \(buckets.count) buckets for \(fresh) new addresses")
    }

    @Test("past the device limit: 429, Retry-After, the limit named, nothing stored; other devices and the admin unaffected",
          arguments: StoreKind.available)
    func perDevice(kind: StoreKind) async throws {
        let clock = ManualClock()
        try await TestServer.run(kind, configure: {
            $0.rateLimitPerDevice = RateLimit(perSecond: 0.5, burst: 3)
            $0.monotonicClock = clock.reading
        }) { server in
            for second in 0..<3 {
                #expect(try await server.send(.post, "/pub", token: server.deviceToken, body: Self.ownTracks(second)).status == .ok)
            }
            let refused = try await server.send(.post, "/pub", token: server.deviceToken, body: Self.ownTracks(3))
            #expect(refused.status == .tooManyRequests)
            #expect(refused.headers[.retryAfter] == "2")
            let error = try #require(try refused.json()["error"] as? [String: Any])
            #expect(error["code"] as? String == "tooManyRequests")
            let message = try #require(error["message"] as? String)
            #expect(message.contains("limit per device") && message.contains("--rate-limit-per-device")
                    && message.contains("0.5 requests a second") && message.contains("bursts of up to 3"), "\(message)")
            // The refused point was not stored; the three before it were.
            #expect(try await server.storedPositions().map(\.timestampMillis)
                    == (0..<3).map { Int64(1_749_945_600 + $0) * 1000 })
            // Every route a device token authenticates counts: its own reads too.
            #expect(try await server.send(.get, "/api/devices/\(server.device.id)/last", token: server.deviceToken).status
                    == .tooManyRequests)
            // Another device, and the admin (dashboard), are not affected.
            let (other, otherToken) = try await DeviceRegistry.register(name: "other", in: server.store, at: TestServer.now)
            #expect(try await server.send(.post, "/pub", token: otherToken, body: Self.ownTracks(10)).status == .ok)
            for _ in 0..<20 {
                #expect(try await server.send(.get, "/api/devices", token: TestServer.adminToken).status == .ok)
            }
            #expect(try await server.store.positions(PositionQuery(deviceID: other.id)).count == 1)
            // A refused request takes no token: after Retry-After the device is admitted again.
            clock.advance(1.9)
            #expect(try await server.send(.post, "/pub", token: server.deviceToken, body: Self.ownTracks(4)).headers[.retryAfter] == "1")
            clock.advance(0.2)
            #expect(try await server.send(.post, "/pub", token: server.deviceToken, body: Self.ownTracks(5)).status == .ok)
            #expect(try await server.storedPositions().count == 4)
        }
    }

    /// Sends one request on a new connection from `source` and returns the response head and body.
    static func request(_ port: Int, from source: String, _ head: String, body: String = "") async throws -> String {
        let connection = try RawConnection(port: port, from: source)
        let bytes = body.utf8.count
        connection.send(head + "Host: x\r\nConnection: close\r\nContent-Length: \(bytes)\r\n\r\n" + body)
        return await connection.readUntilClosed(seconds: 30).text
    }

    @Test("past the address limit: 429 before credentials or body are read; another address is unaffected",
          arguments: StoreKind.available)
    func perAddress(kind: StoreKind) async throws {
        let clock = ManualClock()
        try await HardenedServer.run(kind, configure: {
            $0.rateLimitPerAddress = RateLimit(perSecond: 0.25, burst: 2)
            $0.rateLimitPerDevice = nil
            $0.monotonicClock = clock.reading
        }) { server, port, metrics in
            let post = "POST /pub HTTP/1.1\r\nAuthorization: Bearer \(server.deviceToken)\r\n"
            for second in 0..<2 {
                let reply = try await Self.request(port, from: "127.0.0.1", post, body: Self.ownTracks(second))
                #expect(reply.hasPrefix("HTTP/1.1 200"), "\(reply.prefix(200))")
            }
            let refused = try await Self.request(port, from: "127.0.0.1", post, body: Self.ownTracks(2))
            #expect(refused.hasPrefix("HTTP/1.1 429"), "\(refused.prefix(200))")
            #expect(refused.lowercased().contains("\r\nretry-after: 4\r\n"), "\(refused.prefix(300))")
            #expect(refused.contains(#""code":"tooManyRequests""#) && refused.contains("limit per address")
                    && refused.contains("--rate-limit-per-address"), "\(refused)")
            // Without credentials too: the address is refused before anything else is looked at.
            let anonymous = try await Self.request(port, from: "127.0.0.1", "GET /api/devices HTTP/1.1\r\n")
            #expect(anonymous.hasPrefix("HTTP/1.1 429"), "\(anonymous.prefix(200))")
            // The same device from another address is admitted: the limit is the address's, not the device's.
            let elsewhere = try await Self.request(port, from: "127.0.0.2", post, body: Self.ownTracks(3))
            #expect(elsewhere.hasPrefix("HTTP/1.1 200"), "\(elsewhere.prefix(200))")
            #expect(try await server.storedPositions().map(\.timestampMillis)
                    == [0, 1, 3].map { Int64(1_749_945_600 + $0) * 1000 })
            #expect(metrics.exposition().contains(#"reason="rate_address""#))
            clock.advance(4.5)
            let later = try await Self.request(port, from: "127.0.0.1", post, body: Self.ownTracks(4))
            #expect(later.hasPrefix("HTTP/1.1 200"), "\(later.prefix(200))")
        }
    }

    @Test("a client sending again at once after a 429 on its connection is read only after Retry-After; others at once",
          arguments: StoreKind.available)
    func pausedAfter429(kind: StoreKind) async throws {
        // The buckets' clock stands still (the device never gets a token back); the pause runs on real time.
        let clock = ManualClock()
        try await HardenedServer.run(kind, configure: {
            $0.rateLimitPerDevice = RateLimit(perSecond: 0.25, burst: 1)
            $0.monotonicClock = clock.reading
        }) { server, port, _ in
            let (_, otherToken) = try await DeviceRegistry.register(name: "other", in: server.store, at: TestServer.now)
            let connection = try RawConnection(port: port)
            func send(_ second: Int, _ token: String = server.deviceToken, on connection: RawConnection) {
                let body = Self.ownTracks(second)
                connection.send("POST /pub HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
                                + "Content-Length: \(body.utf8.count)\r\n\r\n" + body)
            }
            send(0, on: connection)
            let first = await connection.readUntilClosed(seconds: 30, orUntil: "]")      // the reply's body, `[]`
            #expect(first.text.hasPrefix("HTTP/1.1 200"), "\(first.text)")
            // The pause runs from the moment the server wrote the 429, which is after this send: timed from
            // here it is at least the Retry-After however late this loaded machine reads the 429.
            let refusedSent = Date()
            send(1, on: connection)
            let refused = await connection.readUntilClosed(seconds: 30, orUntil: "}}")
            #expect(refused.text.hasPrefix("HTTP/1.1 429") && refused.text.lowercased().contains("retry-after: 4"), "\(refused.text)")
            // At once, the next request on the same connection: it is read only after the Retry-After (4 s).
            let sent = Date()
            send(2, on: connection)
            let other = try RawConnection(port: port)
            send(3, otherToken, on: other)
            let quick = await other.readUntilClosed(seconds: 30, orUntil: "\r\n\r\n")
            let quickAfter = Date().timeIntervalSince(sent)
            #expect(quick.text.hasPrefix("HTTP/1.1 200"), "\(quick.text.prefix(80))")
            let paused = await connection.readUntilClosed(seconds: 30, orUntil: "\r\n\r\n")
            let pausedAfter = Date().timeIntervalSince(sent), pausedSinceRefusal = Date().timeIntervalSince(refusedSent)
            #expect(paused.text.hasPrefix("HTTP/1.1 429"), "\(paused.text.prefix(80))")
            #expect(pausedSinceRefusal > 3.9, "answered \(pausedSinceRefusal) s after the request that was refused")
            // The other client was not held behind the pause.
            #expect(quickAfter < pausedAfter, "the other client waited \(quickAfter) s, the paused one \(pausedAfter) s")
            #expect(try await server.storedPositions().map(\.timestampMillis) == [Int64(1_749_945_600) * 1000])
        }
    }

    @Test("the defaults: a device sending a point a second for a minute, then a backlog of 2,000 points back to back, is never refused")
    func defaultsAdmitRealClients() {
        let configuration = ServerConfiguration(adminTokenDigest: "x")
        let clock = ManualClock()
        let limiter = RateLimiter(perAddress: configuration.rateLimitPerAddress, perDevice: configuration.rateLimitPerDevice,
                                  now: clock.reading)
        var refused = 0
        for _ in 0..<60 {
            do { try limiter.admit(address: [127, 0, 0, 1]); try limiter.admit(device: "d_1") } catch { refused += 1 }
            clock.advance(1)
        }
        // A phone back online after half an hour at a point a second sends its backlog, one request after another,
        // each answered in 5 ms (a LAN).
        for _ in 0..<2_000 {
            do { try limiter.admit(address: [127, 0, 0, 1]); try limiter.admit(device: "d_1") } catch { refused += 1 }
            clock.advance(0.005)
        }
        #expect(refused == 0)
    }
}
