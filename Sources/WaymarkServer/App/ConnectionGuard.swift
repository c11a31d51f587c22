import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTPTypes
import WaymarkGeo

/// Counts the server's open connections against a cap shared by every `ConnectionGuard`, and against a
/// share per client address, so that one source cannot take every place.
public final class ConnectionLimiter: Sendable {
    /// Connections accepted at once.
    public let limit: Int
    /// Connections accepted at once from one IPv4 address or one IPv6 /64 (a host's usual allocation).
    public let perAddressLimit: Int
    private let open = NIOLockedValueBox<(total: Int, byAddress: [[UInt8]: Int])>((0, [:]))

    /// A limiter admitting `limit` connections at once, at most `perAddressLimit` (all of them by default)
    /// from one address.
    ///
    /// - precondition: `limit` and `perAddressLimit` are at least 1 (a server that accepts no connection
    ///   cannot be used); the program stops, naming the value, otherwise.
    public init(limit: Int, perAddressLimit: Int? = nil) {
        var check = ContractCheck()
        check.require(limit >= 1, "limit must be at least 1, not \(limit)")
        check.require((perAddressLimit ?? 1) >= 1, "perAddressLimit must be at least 1, not \(perAddressLimit ?? 0)")
        ContractCheck.require(check.violations, in: "ConnectionLimiter")
        self.limit = limit
        self.perAddressLimit = min(limit, perAddressLimit ?? limit)
    }

    /// Connections open now.
    public var current: Int { open.withLockedValue { $0.total } }

    /// Why a new connection from `peer` is refused, or nil when it took a place.
    enum Refusal { case full, address }

    /// Takes a place for a connection from `key` (see ``addressKey(_:)``); the refusal when none is free.
    func enter(_ key: [UInt8]) -> Refusal? {
        open.withLockedValue { state in
            guard state.total < limit else { return .full }
            let mine = state.byAddress[key, default: 0]
            guard mine < perAddressLimit else { return .address }
            state.total += 1
            state.byAddress[key] = mine + 1
            return nil
        }
    }

    func leave(_ key: [UInt8]) {
        open.withLockedValue { state in
            state.total -= 1
            let left = state.byAddress[key, default: 1] - 1
            state.byAddress[key] = left > 0 ? left : nil
        }
    }

    /// The share a peer counts against: its IPv4 address (also when written IPv4-mapped), or the first 64 bits
    /// of its IPv6 address; empty for anything else (a Unix socket, an embedded channel).
    static func addressKey(_ address: SocketAddress?) -> [UInt8] {
        guard let text = address?.ipAddress, let ip = IPAddress(text) else { return [] }
        return ip.isV4 ? ip.bytes : Array(ip.bytes[0..<8])
    }
}

/// Protects the server from connections that hold resources without sending requests.
///
/// One per connection, placed after HTTP decoding (it sees request heads, bodies and ends):
/// - **Connection cap.** Past ``ConnectionLimiter/limit`` open connections, or past
///   ``ConnectionLimiter/perAddressLimit`` from the new one's address, a new one is answered
///   `503 Service Unavailable` with `Retry-After` and closed at once.
/// - **Header timeout.** A connection must deliver a complete request head within `headerTimeout` of opening
///   or of the end of the previous response (so an idle keep-alive connection is closed after that long
///   too); otherwise it gets `408 Request Timeout` and is closed. Trickling header lines (slowloris) or
///   never sending anything no longer holds a connection forever.
/// - **Body timeout.** Once a head has arrived, its whole body must arrive within `bodyTimeout`; otherwise
///   the connection is closed (the route's body read then fails and nothing is stored).
/// - **Answered early.** A request answered before its body ended (401 before the body is read, 404, 413)
///   keeps a timer: the rest of its body must arrive within the body timeout and within `headerTimeout` of
///   the answer, and the connection then idles under the header timeout like any other. No order of
///   request and response parts leaves a connection without a timer, except a response still being
///   written to a complete request (a live stream; those are bounded by ``LiveFeed``'s caps and lifetime).
/// - **Rate-limited pause.** After a 429 answer (a rate limit, ``RateLimiter``), nothing more is read from the
///   connection until its `Retry-After` has passed (at most ``maximumPause``): a client that ignores `Retry-After`
///   and sends its next request at once on the same connection waits as if it had obeyed. Without it a flood
///   answered 429 would be cheaper per request than one admitted, and the flooder would only send faster.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let limiter: ConnectionLimiter
    private let headerTimeout: TimeAmount
    private let bodyTimeout: TimeAmount
    private let onRefuse: @Sendable (String) -> Void
    private var counted: [UInt8]?
    private var started = false
    /// A request head arrived and its end has not.
    private var requestOpen = false
    /// The current request has been answered completely (its response's end was written).
    private var answered = false
    /// When the current request's body must be complete (set at its head).
    private var bodyDeadline: NIODeadline?
    private var timer: Scheduled<Void>?
    /// A request could not be framed; it was answered 400 and the connection is closing.
    private var refusedFraming = false
    /// A request head has arrived and its response has not ended.
    private var inFlight = false
    /// The response being written is a live stream (`text/event-stream`), which never ends on its own.
    private var streaming = false
    /// The response being written is a 429: when it ends, reading pauses for this long.
    private var pauseAfterResponse: TimeAmount?
    /// Nothing is read from the connection before this (set by a 429's end).
    private var pausedUntil: NIODeadline?
    /// A read was asked for during the pause; it is passed on when the pause ends.
    private var readDeferred = false
    /// Request parts that arrived during the pause (a read already under way when it began); passed on, in order,
    /// when it ends. At most one socket read's worth, since no further read is made meanwhile.
    private var held: [NIOAny] = []
    private var resume: Scheduled<Void>?

    /// The longest pause after a 429, whatever its `Retry-After` says.
    static let maximumPause = TimeAmount.seconds(10)

    /// `onRefuse` hears `"connections"` or `"timeout"` each time a connection is refused or closed (for metrics).
    init(limiter: ConnectionLimiter, headerTimeout: TimeAmount, bodyTimeout: TimeAmount,
         onRefuse: @escaping @Sendable (String) -> Void = { _ in }) {
        self.limiter = limiter
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.onRefuse = onRefuse
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refusedFraming else { return }     // the connection is closing; nothing more is read
        if !held.isEmpty || isPaused(context) {
            held.append(data)
            armResume(context)
            return
        }
        switch unwrapInboundIn(data) {
        case .head(let head):
            // RFC 9112 §6.3: a request whose transfer coding is not chunked cannot be framed; answering it
            // and reading on would let a lenient proxy and this server disagree where the next request starts.
            if let coding = head.headerFields[.transferEncoding],
               coding.lowercased() != "chunked" {
                refusedFraming = true
                respond(context, status: .badRequest,
                        message: "Transfer-Encoding must be chunked (or absent, with Content-Length), not \(ClientText.quoted(coding))")
                return
            }
            requestOpen = true
            answered = false
            inFlight = true
            bodyDeadline = context.eventLoop.now + bodyTimeout
            schedule(context, after: bodyTimeout, status: nil)
        case .body: break
        case .end:
            requestOpen = false
            bodyDeadline = nil
            if answered {
                // Answered before the body ended (401, 404, 413 …): the connection now idles like any
                // kept-alive one, and the header timer closes it if nothing useful follows.
                schedule(context, after: headerTimeout, status: .requestTimeout)
            } else {
                // The handler is working on a complete request; the response's end arms the next timer.
                timer?.cancel()
                timer = nil
            }
        }
        context.fireChannelRead(data)
    }

    /// The client closed its sending side. Nothing more can arrive, so an idle connection, or one carrying a
    /// live stream (whose reader has gone), is closed now rather than at its next timeout or failed write; a
    /// request still being answered is answered first.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed, !inFlight || streaming {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// Holds the reads asked for while a 429's pause lasts (see the type's documentation).
    func read(context: ChannelHandlerContext) {
        if isPaused(context) {
            readDeferred = true
            armResume(context)
            return
        }
        context.read()
    }

    private func isPaused(_ context: ChannelHandlerContext) -> Bool {
        guard let until = pausedUntil else { return false }
        return until > context.eventLoop.now
    }

    /// Ends the pause at its deadline: the parts held are passed on, then the read asked for meanwhile.
    private func armResume(_ context: ChannelHandlerContext) {
        guard resume == nil else { return }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        resume = context.eventLoop.scheduleTask(deadline: pausedUntil ?? context.eventLoop.now) {
            let (handler, context) = loopBound.value
            handler.resume = nil
            handler.pausedUntil = nil
            let parts = handler.held
            handler.held = []
            for part in parts { handler.channelRead(context: context, data: part) }
            if !parts.isEmpty { context.fireChannelReadComplete() }
            if handler.readDeferred {
                handler.readDeferred = false
                context.read()
            }
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .head(let response) = unwrapOutboundIn(data) {
            streaming = response.headerFields[.contentType]?.hasPrefix("text/event-stream") ?? false
            if response.status == .tooManyRequests {
                let seconds = response.headerFields[.retryAfter].flatMap { Int64($0) } ?? 1
                pauseAfterResponse = min(.seconds(max(1, seconds)), Self.maximumPause)
            } else {
                pauseAfterResponse = nil
            }
        }
        if case .end = unwrapOutboundIn(data) {
            if let pause = pauseAfterResponse {
                pausedUntil = context.eventLoop.now + pause
                pauseAfterResponse = nil
            }
            answered = true
            inFlight = false
            streaming = false
            if requestOpen {
                // Answered before the request ended: the rest of the body must still come in time, and an
                // answered client gets no longer than the header timeout to send it (the server needs none of it).
                let now = context.eventLoop.now
                let remaining = (bodyDeadline ?? now) - now
                schedule(context, after: min(remaining, headerTimeout), status: nil)
            } else {
                // The response is complete: the connection now waits (keep-alive) for the next head.
                schedule(context, after: headerTimeout, status: .requestTimeout)
            }
        }
        context.write(data, promise: promise)
    }

    private func start(_ context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        let key = ConnectionLimiter.addressKey(context.channel.remoteAddress)
        switch limiter.enter(key) {
        case .full?:
            onRefuse("connections")
            respond(context, status: .serviceUnavailable,
                    message: "the server has \(limiter.limit) open connections, its limit; retry shortly")
            return
        case .address?:
            onRefuse("connections")
            respond(context, status: .serviceUnavailable,
                    message: "your address has \(limiter.perAddressLimit) open connections, the limit per address; retry shortly")
            return
        case nil:
            counted = key
        }
        schedule(context, after: headerTimeout, status: .requestTimeout)
    }

    private func stop() {
        timer?.cancel()
        timer = nil
        resume?.cancel()
        resume = nil
        held = []
        if let key = counted {
            counted = nil
            limiter.leave(key)
        }
    }

    /// Arms the one timer: when it fires, `status` (if any, and no request is being answered) is sent and
    /// the connection closed.
    private func schedule(_ context: ChannelHandlerContext, after delay: TimeAmount, status: HTTPResponse.Status?) {
        timer?.cancel()
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: delay) {
            let (handler, context) = loopBound.value
            handler.timer = nil
            handler.onRefuse("timeout")
            if let status, !handler.requestOpen {
                handler.respond(context, status: status, message: "the request was not received in time")
            } else {
                context.close(promise: nil)
            }
        }
    }

    /// Writes a small JSON error response with `Connection: close`, then closes.
    private func respond(_ context: ChannelHandlerContext, status: HTTPResponse.Status, message: String) {
        let code = switch status {
        case .serviceUnavailable: "busy"
        case .badRequest: "badRequest"
        default: "requestTimeout"
        }
        let body = ByteBuffer(string: #"{"error":{"code":"\#(code)","message":"# + JSONText.quoted(message) + "}}")
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8", .connection: "close",
                                   .contentLength: String(body.readableBytes)]
        if status == .serviceUnavailable { headers[.retryAfter] = "1" }
        context.write(wrapOutboundOut(.head(HTTPResponse(status: status, headerFields: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}
