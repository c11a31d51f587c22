import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing
@testable import WaymarkServer

/// The connection guard's timeouts and cap on NIO's embedded event loop, whose time moves only when the
/// test advances it: each timeout is checked to the nanosecond and no test waits for real time to pass.
/// `ConnectionGuardTests` checks that the real server's pipeline has the guard.
@Suite("Hardening: connection timeouts and cap, on virtual time")
struct ConnectionGuardTimingTests {
    static let header = TimeAmount.milliseconds(500), body = TimeAmount.seconds(2)

    /// A connected channel with a guard of `limiter`, and the reasons it refused with.
    static func channel(limiter: ConnectionLimiter = ConnectionLimiter(limit: 10),
                        refusals: NIOLockedValueBox<[String]> = NIOLockedValueBox([]),
                        from peer: String = "127.0.0.1") throws -> EmbeddedChannel {
        let handler = ConnectionGuard(limiter: limiter, headerTimeout: header, bodyTimeout: body,
                                      onRefuse: { reason in refusals.withLockedValue { $0.append(reason) } })
        let channel = EmbeddedChannel(handler: handler)
        try channel.connect(to: SocketAddress(ipAddress: peer, port: 9)).wait()
        return channel
    }

    /// The response head the guard wrote, if any (its body and end are read and dropped).
    static func response(_ channel: EmbeddedChannel) throws -> HTTPResponse? {
        guard case .head(let head) = try channel.readOutbound(as: HTTPResponsePart.self) else { return nil }
        while try channel.readOutbound(as: HTTPResponsePart.self) != nil {}
        return head
    }

    static let request = HTTPRequest(method: .post, scheme: "http", authority: "x", path: "/api/ingest")

    @Test("a connection that sends no request head gets 408 and is closed exactly at the header timeout")
    func idle() throws {
        let refusals = NIOLockedValueBox<[String]>([])
        let channel = try Self.channel(refusals: refusals)
        channel.embeddedEventLoop.advanceTime(by: Self.header - .nanoseconds(1))
        #expect(channel.isActive)
        #expect(try Self.response(channel) == nil)
        channel.embeddedEventLoop.advanceTime(by: .nanoseconds(1))
        let head = try #require(try Self.response(channel))
        #expect(head.status == .requestTimeout)
        #expect(head.headerFields[.connection] == "close")
        #expect(!channel.isActive)
        #expect(refusals.withLockedValue { $0 } == ["timeout"])
    }

    @Test("a request whose body does not finish is closed at the body timeout, without a response")
    func unfinishedBody() throws {
        let channel = try Self.channel()
        try channel.writeInbound(HTTPRequestPart.head(Self.request))
        #expect(try channel.readInbound(as: HTTPRequestPart.self) != nil)   // passed on to the handler
        channel.embeddedEventLoop.advanceTime(by: Self.header)               // the header timeout no longer applies
        #expect(channel.isActive)
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "{\"locations\":[")))
        channel.embeddedEventLoop.advanceTime(by: Self.body - Self.header - .nanoseconds(1))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .nanoseconds(1))
        #expect(!channel.isActive)
        #expect(try Self.response(channel) == nil)
    }

    @Test("a kept-alive connection is timed from the end of each response, and a complete request stops the body timer")
    func keepAlive() throws {
        let channel = try Self.channel()
        try channel.writeInbound(HTTPRequestPart.head(Self.request))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        channel.embeddedEventLoop.advanceTime(by: Self.body * 3)               // the handler may take its time
        #expect(channel.isActive)
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        while try channel.readOutbound(as: HTTPResponsePart.self) != nil {}
        channel.embeddedEventLoop.advanceTime(by: Self.header - .nanoseconds(1))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .nanoseconds(1))
        #expect(try Self.response(channel)?.status == .requestTimeout)
        #expect(!channel.isActive)
    }

    /// Writes a complete response (head and end), as a route answering 401 or 404 does.
    static func answer(_ channel: EmbeddedChannel, _ status: HTTPResponse.Status) throws {
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: status)))
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        while try channel.readOutbound(as: HTTPResponsePart.self) != nil {}
    }

    @Test("H3: a request answered before its body ended is still timed: the late end arms the header timer")
    func answeredBeforeTheBody() throws {
        // Before: the late request end cancelled the only timer, and the connection stayed open for good.
        let refusals = NIOLockedValueBox<[String]>([])
        let channel = try Self.channel(refusals: refusals)
        try channel.writeInbound(HTTPRequestPart.head(Self.request))
        try Self.answer(channel, .unauthorized)
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "x")))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        channel.embeddedEventLoop.advanceTime(by: Self.header - .nanoseconds(1))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .nanoseconds(1))
        #expect(try Self.response(channel)?.status == .requestTimeout)
        #expect(!channel.isActive)
        #expect(refusals.withLockedValue { $0 } == ["timeout"])
    }

    @Test("H3: an answered request whose body never ends is closed within the header timeout of the answer")
    func answeredBodyNeverEnds() throws {
        let channel = try Self.channel()
        try channel.writeInbound(HTTPRequestPart.head(Self.request))
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(100))
        try Self.answer(channel, .notFound)
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "x")))  // a trickle does not extend it
        channel.embeddedEventLoop.advanceTime(by: Self.header - .nanoseconds(1))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .nanoseconds(1))
        #expect(!channel.isActive)
        #expect(try Self.response(channel) == nil)
    }

    @Test("H3: an answer late in the body timeout leaves only what remains of it")
    func answeredLate() throws {
        let channel = try Self.channel()
        try channel.writeInbound(HTTPRequestPart.head(Self.request))
        channel.embeddedEventLoop.advanceTime(by: Self.body - .milliseconds(100))
        try Self.answer(channel, .contentTooLarge)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(100) - .nanoseconds(1))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .nanoseconds(1))
        #expect(!channel.isActive)
    }

    @Test("H6: a client that closes its side ends a live stream at once; a plain request in progress is still answered")
    func inputClosed() throws {
        // Before: a half-closed stream connection stayed open until a write to it failed (its device's next upload).
        let stream = try Self.channel()
        try stream.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .get, scheme: "http", authority: "x", path: "/api/stream")))
        try stream.writeInbound(HTTPRequestPart.end(nil))
        try stream.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok, headerFields: [.contentType: "text/event-stream"])))
        stream.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(!stream.isActive)

        let working = try Self.channel()
        try working.writeInbound(HTTPRequestPart.head(Self.request))
        try working.writeInbound(HTTPRequestPart.end(nil))
        working.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(working.isActive)

        let idle = try Self.channel()
        idle.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(!idle.isActive)
    }

    @Test("H3: one address gets at most its share of the connections; other addresses still get in")
    func perAddressShare() throws {
        // Before: one source (1,000 sockets, no token) could take every place, and everyone got 503.
        let limiter = ConnectionLimiter(limit: 10, perAddressLimit: 2)
        let first = try Self.channel(limiter: limiter), second = try Self.channel(limiter: limiter)
        let third = try Self.channel(limiter: limiter)
        let refused = try #require(try Self.response(third))
        #expect(refused.status == .serviceUnavailable)
        #expect(!third.isActive)
        let other = try Self.channel(limiter: limiter, from: "127.0.0.2")
        #expect(other.isActive)
        // IPv6 peers share by /64.
        let v6a = try Self.channel(limiter: limiter, from: "2001:db8:1:2::1"), v6b = try Self.channel(limiter: limiter, from: "2001:db8:1:2::ff")
        let v6c = try Self.channel(limiter: limiter, from: "2001:db8:1:2:ffff::1")
        #expect(v6a.isActive && v6b.isActive && !v6c.isActive)
        #expect(limiter.current == 5)
        _ = try first.finish()
        let again = try Self.channel(limiter: limiter)
        #expect(again.isActive)
        withExtendedLifetime((second, other, v6a, v6b, again)) {}
    }

    @Test("past the limit a connection gets 503 with Retry-After and is closed; a closed connection frees its place")
    func cap() throws {
        let limiter = ConnectionLimiter(limit: 2)
        let refusals = NIOLockedValueBox<[String]>([])
        let first = try Self.channel(limiter: limiter, refusals: refusals)
        let second = try Self.channel(limiter: limiter, refusals: refusals)
        #expect(limiter.current == 2)
        let third = try Self.channel(limiter: limiter, refusals: refusals)
        let refused = try #require(try Self.response(third))
        #expect(refused.status == .serviceUnavailable)
        #expect(refused.headerFields[.retryAfter] == "1")
        #expect(!third.isActive)
        #expect(limiter.current == 2)                                         // the refused one never counted
        #expect(refusals.withLockedValue { $0 } == ["connections"])
        _ = try first.finish()
        #expect(limiter.current == 1)
        let fourth = try Self.channel(limiter: limiter, refusals: refusals)
        #expect(fourth.isActive)
        #expect(try Self.response(fourth) == nil)
        #expect(limiter.current == 2)
        _ = try second.finish()
        _ = try fourth.finish()
        #expect(limiter.current == 0)
    }
}
