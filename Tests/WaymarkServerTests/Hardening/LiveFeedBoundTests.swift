import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import Testing
import WaymarkGeo
@testable import WaymarkServer
import HTTPTypes
import HummingbirdTesting

/// M5 of the security probe: a live-stream subscriber holds only what it may see, at most a bounded number
/// of positions, and is disconnected rather than buffered when it falls behind. Plus the stream tickets
/// (L5) and the decode gate (H3: bounded concurrency, cancellation when the client leaves).
@Suite("Hardening: live feed bounds, tickets, decode gate", .timeLimit(.minutes(5)))   // a cancellable wait (settle, waitUntil…) that never ends fails instead of hanging
struct LiveFeedBoundTests {
    static func positions(_ count: Int, device: String) -> [Position] {
        (0..<count).map { i in
            Position(deviceID: device, fix: Fix(coordinate: Coordinate(uncheckedLatitude: 46, longitude: 14),
                                                timestamp: TestServer.now.addingTimeInterval(Double(i))))
        }
    }

    @Test("M5: a stalled subscriber is filtered at publish time and dropped past its bound")
    func stalledSubscriber() async throws {
        // Before: 10,000 messages of whole batches buffered per subscriber, other devices' included (1.55 GB).
        let feed = LiveFeed(maxPendingPositions: 2_000)
        let mine = feed.subscribe(filter: { $0 == "A" })
        for _ in 0..<100 { feed.publish(positions: Self.positions(1_000, device: "B")) }   // not A's: never held
        #expect(mine.pendingPositions == 0)
        feed.publish(positions: Self.positions(1_200, device: "A"))                           // three messages
        #expect(mine.pendingPositions == 1_200)
        feed.publish(positions: Self.positions(1_000, device: "A"))                           // past 2,000: dropped
        #expect(mine.wasDropped)
        #expect(feed.subscriberCount == 0)
        var received = 0
        for await message in mine { if case .positions(let list) = message { received += list.count } }
        #expect(received == 1_700)   // 1,200 + the first 500 of the next batch were admitted; then the stream ended
    }

    @Test("M5: a subscriber that keeps up is never dropped; chunks hold at most 500 positions")
    func keepingUp() async throws {
        let feed = LiveFeed(maxPendingPositions: 1_000)
        let subscription = feed.subscribe()
        // The reader says when it has taken each message, so the next is published only then.
        let (taken, tookOne) = AsyncStream.makeStream(of: Int.self)
        let reader = Task {
            defer { tookOne.finish() }   // a reader that stops early ends the wait below instead of hanging it
            var sizes: [Int] = []
            for await message in subscription {
                if case .positions(let list) = message { sizes.append(list.count) }
                tookOne.yield(subscription.pendingPositions)
                if sizes.reduce(0, +) >= 5_000 { break }
            }
            return sizes
        }
        var afterEach: [Int] = []
        var takenMessages = taken.makeAsyncIterator()
        for _ in 0..<10 {
            feed.publish(positions: Self.positions(500, device: "A"))
            afterEach.append(await takenMessages.next() ?? -1)
        }
        #expect(afterEach == Array(repeating: 0, count: 10), "each batch of 500 was one message, taken whole")
        let sizes = await reader.value
        #expect(sizes.allSatisfy { $0 <= LiveFeed.chunkSize })
        #expect(sizes.reduce(0, +) == 5_000)
        #expect(!subscription.wasDropped)
    }

    @Test("L5: a stream ticket works once and expires")
    func tickets() {
        let clock = ManualTime(TestServer.now)
        let tickets = StreamTickets(lifetime: 60, clock: { clock.now })
        let ticket = tickets.issue(for: .admin)
        #expect(ticket.hasPrefix("wst_"))
        #expect(tickets.redeem(ticket) == .admin)
        #expect(tickets.redeem(ticket) == nil)                    // single use
        let late = tickets.issue(for: .admin)
        clock.now = clock.now.addingTimeInterval(61)
        #expect(tickets.redeem(late) == nil)                      // expired
        let small = StreamTickets(lifetime: 60, capacity: 3, clock: { clock.now })
        let issued = (0..<10).map { _ in small.issue(for: .admin) }
        #expect(issued.suffix(3).allSatisfy { small.redeem($0) == .admin })
    }

    @Test("L5: the admin token is refused in a URL; a device token and a ticket are not")
    func adminTokenNotInURL() async throws {
        try await TestServer.run(.sqlite) { server in
            let viaQuery = try await server.send(.get, "/api/devices?token=\(TestServer.adminToken)")
            #expect(viaQuery.status == .unauthorized)
            #expect(viaQuery.text.contains("not accepted in a URL"))
            #expect(try await server.send(.get, "/api/devices", token: TestServer.adminToken).status == .ok)
            #expect(try await server.send(.get, "/api/devices?token=\(server.deviceToken)").status == .ok)
            let ticket = try await server.send(.post, "/api/stream/ticket", token: TestServer.adminToken)
            #expect(ticket.status == .created)
            #expect((try ticket.json()["ticket"] as? String)?.hasPrefix("wst_") == true)
        }
    }

    @Test("H3: the decode gate refuses past its queue and cancels work when the connection closes")
    func decodeGate() async throws {
        let gate = DecodeGate(slots: 1, queueLimit: 0)
        let loop = EmbeddedEventLoop()
        let connectionClosed = loop.makePromise(of: Void.self)
        let closeFuture = connectionClosed.futureResult
        let (started, starting) = AsyncStream.makeStream(of: Void.self)
        let running = Task {
            defer { starting.finish() }   // the gate refused or the work ended: the wait below ends too
            return try await gate.run(closeFuture: closeFuture) { () throws -> Int in
                starting.yield()
                var spins = 0
                while !Task.isCancelled { spins += 1 }      // stands for a long decode that checks for cancellation
                throw CancellationError()
            }
        }
        for await _ in started { break }                     // the work holds the slot
        await #expect(throws: ServerError.self) {            // the one slot is taken and no one may wait
            _ = try await gate.run(closeFuture: nil) { 1 }
        }
        connectionClosed.succeed(())                         // the client goes away
        let outcome = await running.result
        #expect(throws: ServerError.self) { try outcome.get() }
        if case .failure(let error as ServerError) = outcome { #expect(error.code == .cancelled) }
        #expect(try await gate.run(closeFuture: nil) { 2 } == 2)   // the slot was released
    }
}

/// A settable clock shared with `@Sendable` closures in tests.
final class ManualTime: Sendable {
    private let time: NIOLockedValueBox<Date>
    init(_ now: Date) { time = NIOLockedValueBox(now) }
    var now: Date {
        get { time.withLockedValue { $0 } }
        set { time.withLockedValue { $0 = newValue } }
    }
}
