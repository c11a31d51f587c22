import Foundation
import Hummingbird
import NIOCore
import ServiceLifecycle

extension Routes {
    func addLiveRoutes(to router: Router<TrackingServer.Context>) {
        router.get("/api/stream") { request, context in try await stream(request, closeFuture: context.closeFuture) }
        router.post("/api/stream/ticket") { request, _ in
            let principal = try await auth.require(request)
            return JSONReply.response(["ticket": tickets.issue(for: principal), "expires_in": Int(tickets.lifetime)],
                                      status: .created)
        }
        router.get("/metrics") { _, _ in
            metrics.outboxDepth(try await store.outboxDepth())
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.exposition())))
        }
    }

    /// `GET /api/stream` (admin: everything; device: its own): server-sent events `position` and `fence`.
    ///
    /// EventSource cannot send headers, so the credential may come in the URL: `?ticket=` with a ticket
    /// from `POST /api/stream/ticket` (single use, short-lived; what the dashboard does), or a device's
    /// `?token=`. The admin token is never accepted in a URL. The stream opens with a `: connected`
    /// comment so a client knows it is subscribed. A subscriber that falls more than
    /// ``ServerConfiguration/liveStreamMaxPendingPositions`` positions behind is disconnected; it should
    /// reconnect and read what it missed from the query API. Streams are capped per device, for the admin and
    /// in all (429 past a cap), send a `: keep-alive` comment every ``ServerConfiguration/liveStreamKeepAliveSeconds``,
    /// end after ``ServerConfiguration/liveStreamMaxSeconds``, and are released as soon as their connection closes.
    func stream(_ request: Request, closeFuture: EventLoopFuture<Void>?) async throws -> Response {
        let principal: Principal
        if let ticket = request.uri.queryParameters["ticket"] {
            guard let redeemed = tickets.redeem(String(ticket)) else {
                throw ServerError(.unauthorized, "the stream ticket is unknown, used or expired; get a new one from POST /api/stream/ticket")
            }
            principal = redeemed
        } else {
            principal = try await auth.require(request)
        }
        let lease = try streams.acquire(principal)
        // Filtered when published: this subscriber never holds another device's positions.
        // A device's own stream is closed when the device is revoked (``LiveFeed/close(owner:)``).
        let owner: String? = if case .device(let device) = principal { device.id } else { nil }
        let subscription = feed.subscribe(owner: owner, filter: { principal.mayRead(deviceID: $0) })
        // A closed connection ends the subscription and frees its place at once, whether or not its device
        // ever publishes again.
        closeFuture?.whenComplete { _ in
            subscription.finish()
            lease.release()
        }
        let metrics = metrics
        let keepAlive = configuration.liveStreamKeepAliveSeconds, lifetime = configuration.liveStreamMaxSeconds
        let body = ResponseBody { writer in
            defer {
                subscription.finish()
                lease.release()
            }
            // Keep-alive ticks find a peer that is gone (the write fails); the lifetime bounds every stream.
            let ticker = Task {
                let end = ContinuousClock.now + .seconds(lifetime)
                while ContinuousClock.now < end {
                    try await Task.sleep(for: .seconds(min(keepAlive, max(0.001, (end - ContinuousClock.now) / .seconds(1)))))
                    subscription.keepAlive()
                }
                subscription.finish()
            }
            defer { ticker.cancel() }
            try await writer.write(ByteBuffer(string: ": connected\n\n"))
            // The stream ends when the server shuts down gracefully, so shutdown never waits on a listener.
            try await withGracefulShutdownHandler {
                for await frame in subscription.frames() {
                    switch frame {
                    case .message(let message): try await writer.write(ByteBuffer(string: Self.serverSentEvent(message)))
                    case .keepAlive: try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                    }
                }
            } onGracefulShutdown: {
                subscription.finish()
            }
            if subscription.wasDropped { metrics.refused("stream_lagging") }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [
            .contentType: "text/event-stream", .cacheControl: "no-cache",
        ], body: body)
    }

    /// One message as an SSE frame: `event: position|fence|device`, one `data:` line of JSON. A `device`
    /// frame is a record the device reported, in the shape of `device-events` (its geofence events have
    /// kind `waymark.fence_event`); a `fence` frame is an event the server decided.
    static func serverSentEvent(_ message: LiveFeed.Message) -> String {
        let (name, text): (String, String) = switch message {
        case .positions(let list):
            ("position", String(decoding: (try? JSONReply.data(["positions": list.map(PositionReply.init(position:))])) ?? Data(),
                                as: UTF8.self))
        case .event(let record): ("fence", String(decoding: (try? JSONReply.data(record)) ?? Data(), as: UTF8.self))
        case .deviceEvent(let record):
            ("device", {
                var buffer = ByteBuffer()
                _ = writeDeviceEvent(record, to: &buffer)
                return String(buffer: buffer)
            }())
        }
        return "event: \(name)\ndata: \(text)\n\n"
    }
}
