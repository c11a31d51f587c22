import Foundation
import Hummingbird
import NIOCore
import ServiceLifecycle

extension Routes {
    func addLiveRoutes(to router: Router<TrackingServer.Context>) {
        router.get("/api/stream") { request, _ in try await stream(request) }
        router.get("/metrics") { _, _ in
            metrics.outboxDepth(try await store.outboxDepth())
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.exposition())))
        }
    }

    /// `GET /api/stream` (admin: everything; device: its own): server-sent events `position` and `fence`.
    ///
    /// EventSource cannot send headers, so the token may come as `?token=`. The stream opens with
    /// a `: connected` comment so a client knows it is subscribed.
    func stream(_ request: Request) async throws -> Response {
        let principal = try await auth.require(request)
        let (messages, finish) = feed.subscription()
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: ": connected\n\n"))
            // The stream ends when the server shuts down gracefully, so shutdown never waits on a listener.
            try await withGracefulShutdownHandler {
                for await message in messages {
                    guard let id = message.deviceID, principal.mayRead(deviceID: id) else { continue }
                    try await writer.write(ByteBuffer(string: Self.serverSentEvent(message)))
                }
            } onGracefulShutdown: {
                finish()
            }
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
            ("position", (try? JSONSerialization.data(withJSONObject: ["positions": list.map { PositionJSON.object($0) }],
                                                      options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data())
        case .event(let record): ("fence", (try? JSONReply.data(record)) ?? Data())
        }
        return "event: \(name)\ndata: \(String(decoding: data, as: UTF8.self))\n\n"
    }
}
