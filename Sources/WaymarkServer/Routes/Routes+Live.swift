import Foundation
import Hummingbird
import NIOCore
import ServiceLifecycle

extension Routes {
    func addLiveRoutes(to router: Router<TrackingServer.Context>) {
        router.get("/api/stream") { request, _ in try await stream(request) }
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
    /// reconnect and read what it missed from the query API.
    func stream(_ request: Request) async throws -> Response {
        let principal: Principal
        if let ticket = request.uri.queryParameters["ticket"] {
            guard let redeemed = tickets.redeem(String(ticket)) else {
                throw ServerError(.unauthorized, "the stream ticket is unknown, used or expired; get a new one from POST /api/stream/ticket")
            }
            principal = redeemed
        } else {
            principal = try await auth.require(request)
        }
        // Filtered when published: this subscriber never holds another device's positions.
        let subscription = feed.subscribe(filter: { principal.mayRead(deviceID: $0) })
        let metrics = metrics
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: ": connected\n\n"))
            // The stream ends when the server shuts down gracefully, so shutdown never waits on a listener.
            try await withGracefulShutdownHandler {
                for await message in subscription {
                    try await writer.write(ByteBuffer(string: Self.serverSentEvent(message)))
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

    /// One message as an SSE frame: `event: position|fence`, one `data:` line of JSON.
    static func serverSentEvent(_ message: LiveFeed.Message) -> String {
        let (name, data): (String, Data) = switch message {
        case .positions(let list):
            ("position", (try? JSONReply.data(["positions": list.map(PositionReply.init(position:))])) ?? Data())
        case .event(let record): ("fence", (try? JSONReply.data(record)) ?? Data())
        }
        return "event: \(name)\ndata: \(String(decoding: data, as: UTF8.self))\n\n"
    }
}
