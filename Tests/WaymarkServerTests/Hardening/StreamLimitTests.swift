import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WaymarkGeo
@testable import WaymarkServer

/// H6, M1 and L4 of the second probe, on real sockets: a live stream is released when its connection
/// closes, streams are capped per device and expire, and one principal's tickets cannot push out another's.
@Suite("Hardening 2: live stream release, caps and lifetime", .timeLimit(.minutes(5)))
struct StreamLimitTests {
    /// Opens `/api/stream?token=` on a raw connection and waits for its first bytes.
    static func openStream(_ port: Int, token: String) async throws -> (RawConnection, String) {
        let connection = try RawConnection(port: port)
        connection.send("GET /api/stream?token=\(token) HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = await connection.readUntilClosed(seconds: 30, orUntil: "\r\n\r\n")
        return (connection, head.text)
    }

    /// Waits (up to 30 s of real time, in 10 ms steps) until `condition` holds; false if it never does.
    static func eventually(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<3_000 {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test("H6: a stream whose client closes the connection is unsubscribed at once, though its device never publishes")
    func releasedOnClose() async throws {
        // Before: the subscriber stayed until its device published again: about 24 KB per closed stream, without bound.
        let feed = LiveFeed()
        try await HardenedServer.run(feed: feed) { server, port, _ in
            for _ in 0..<20 {
                let (connection, head) = try await Self.openStream(port, token: server.deviceToken)
                #expect(head.hasPrefix("HTTP/1.1 200"), "\(head.prefix(40))")
                #expect(feed.subscriberCount == 1)
                connection.shutdown()
                // Gone once the server has seen the close (no publish needed); so is its place in the device's quota.
                #expect(try await Self.eventually { feed.subscriberCount == 0 }, "\(feed.subscriberCount) subscribers left")
            }
        }
    }

    @Test("M1: a device may hold 4 streams; the 5th gets 429 naming the limit, and a closed one frees its place")
    func perDeviceCap() async throws {
        // Before: any number of streams per token: 40 held every connection of a server with --max-connections 40.
        let feed = LiveFeed()
        try await HardenedServer.run(feed: feed) { server, port, _ in
            var open: [RawConnection] = []
            for _ in 0..<4 {
                let (connection, head) = try await Self.openStream(port, token: server.deviceToken)
                #expect(head.hasPrefix("HTTP/1.1 200"))
                open.append(connection)
            }
            let (refused, head) = try await Self.openStream(port, token: server.deviceToken)
            let rest = head.contains("}}") ? (text: "", closed: false, elapsed: 0.0) : await refused.readUntilClosed(seconds: 5, orUntil: "}}")
            #expect(head.hasPrefix("HTTP/1.1 429"), "\(head.prefix(40))")
            #expect((head + rest.text).contains("4 live streams open, the limit of 4"))
            open.removeFirst().shutdown()
            #expect(try await Self.eventually { feed.subscriberCount == 3 })
            let (again, headAgain) = try await Self.openStream(port, token: server.deviceToken)
            #expect(headAgain.hasPrefix("HTTP/1.1 200"), "\(headAgain.prefix(40))")
            withExtendedLifetime((open, again)) {}
        }
    }

    @Test("M1: a stream sends keep-alive comments and ends after its lifetime")
    func lifetime() async throws {
        // Before: a stream never ended and never wrote anything while its device was silent.
        try await HardenedServer.run(configure: {
            $0.liveStreamKeepAliveSeconds = 0.2
            $0.liveStreamMaxSeconds = 1
        }) { server, port, _ in
            let (connection, head) = try await Self.openStream(port, token: server.deviceToken)
            #expect(head.hasPrefix("HTTP/1.1 200"))
            let rest = await connection.readUntilClosed(seconds: 20, orUntil: "\r\n0\r\n\r\n")   // the chunked body's end
            #expect((head + rest.text).contains(": keep-alive"))
            #expect(rest.text.contains("\r\n0\r\n\r\n"), "the stream did not end: \(rest.text.suffix(80))")
            #expect(rest.elapsed < 10)
        }
    }

    @Test("#33: revoking a device closes its open live streams at once; its token then opens none",
          arguments: StoreKind.available)
    func revokedDeviceStreamsClose(kind: StoreKind) async throws {
        // Before: a revoked device's stream stayed open, and kept receiving, until its lifetime (an hour by default).
        let feed = LiveFeed()
        try await HardenedServer.run(kind, feed: feed) { server, port, _ in
            let (first, head1) = try await Self.openStream(port, token: server.deviceToken)
            let (second, head2) = try await Self.openStream(port, token: server.deviceToken)
            #expect(head1.hasPrefix("HTTP/1.1 200") && head2.hasPrefix("HTTP/1.1 200"))
            #expect(feed.subscriberCount == 2)
            let revoked = try await server.send(.delete, "/api/devices/\(server.device.id)", token: TestServer.adminToken)
            #expect(revoked.status == .noContent)
            for (connection, head) in [(first, head1), (second, head2)] {
                let rest = await connection.readUntilClosed(seconds: 10, orUntil: "0\r\n\r\n")   // the chunked body's end
                #expect((head + rest.text).contains("\r\n0\r\n\r\n"), "the stream stayed open: \(rest.text.suffix(80))")
                #expect(rest.elapsed < 5)
            }
            #expect(try await Self.eventually { feed.subscriberCount == 0 }, "\(feed.subscriberCount) subscribers left")
            let (_, again) = try await Self.openStream(port, token: server.deviceToken)
            #expect(again.hasPrefix("HTTP/1.1 401"), "\(again.prefix(40))")
        }
    }

    @Test("L4: a principal's ninth outstanding ticket forgets its own oldest, never another principal's")
    func ticketsPerPrincipal() throws {
        // Before: one table of 10,000 shared by everyone: 12,000 device tickets evicted the admin's.
        let tickets = StreamTickets(lifetime: 60, capacity: 10_000, clock: { TestServer.now })
        let device = Principal.device(DeviceRecord(id: "d_1", name: "p", createdAt: TestServer.now))
        let admin = tickets.issue(for: .admin)
        let first = tickets.issue(for: device)
        let later = (0..<12_000).map { _ in tickets.issue(for: device) }
        #expect(tickets.redeem(admin) == .admin)
        #expect(tickets.redeem(first) == nil)             // its own oldest went first
        #expect(tickets.redeem(later.last!) == device)
        #expect(tickets.redeem(later[later.count - 9]) == nil)   // only the last 8 are kept
    }
}
