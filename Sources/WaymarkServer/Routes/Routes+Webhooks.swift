import Foundation
import Hummingbird

extension Routes {
    /// Adds the `/api/webhooks` routes; `policy` decides which literal addresses a new webhook may name.
    func addWebhookRoutes(to router: Router<TrackingServer.Context>, policy: WebhookPolicy = WebhookPolicy()) {
        router.post("/api/webhooks") { request, _ in try await createWebhook(request, policy: policy) }
        router.get("/api/webhooks") { request, _ in try await listWebhooks(request) }
        router.delete("/api/webhooks/:id") { request, context in
            try await auth.requireAdmin(request)
            let id = try context.parameters.require("id")
            guard try await store.deleteWebhook(id: id) else { throw ServerError(.notFound, "no webhook with id '\(id)'") }
            return Response(status: .noContent)
        }
        router.get("/api/webhooks/deliveries") { request, _ in try await listDeliveries(request) }
        router.post("/api/webhooks/deliveries/retry") { request, _ in try await retryDeliveries(request) }
    }

    /// `GET /api/webhooks?limit=N&after=ID` (admin; limit 1…32, default 32): webhooks ordered by id,
    /// `{"next_after":ID|null,"webhooks":[…]}`. There are at most ``maxWebhooks`` (the cap is atomic), so one page
    /// holds them all unless a smaller `limit` is asked for, and a page is at most 33 short rows: it is read
    /// before it is written (`next_after` sorts before `webhooks`).
    func listWebhooks(_ request: Request) async throws -> Response {
        try await auth.requireAdmin(request)
        let limit = try pageLimit(request, default: Self.maxWebhooks, maximum: Self.maxWebhooks)
        let after = request.uri.queryParameters["after"].map(String.init)
        // One row more than the page tells whether another page follows.
        var webhooks = try await store.webhooks(after: after, limit: limit + 1)
        let more = webhooks.count > limit
        if more { webhooks.removeLast(webhooks.count - limit) }
        let next: Any = more ? webhooks.last?.id ?? NSNull() : NSNull()
        return JSONReply.response(["next_after": next, "webhooks": webhooks.map(\.jsonObject)])
    }

    /// `GET /api/webhooks/deliveries?state=S&before=ID&limit=N` (admin; limit 1…10000, default 100): deliveries,
    /// newest first, `{"deliveries":[…],"next_before":ID|null}`; `next_before` is the `before` of the next (older)
    /// page. Written to the connection as the deliveries are read, 500 at a time; a page also ends after the
    /// delivery that passes ``listPageBytes``.
    func listDeliveries(_ request: Request) async throws -> Response {
        try await auth.requireAdmin(request)
        let query = request.uri.queryParameters
        var state: OutboxDelivery.State?
        if let raw = query["state"] {
            guard let parsed = OutboxDelivery.State(rawValue: String(raw)) else {
                throw ServerError(.badRequest, "'state' must be pending, delivered or dead")
            }
            state = parsed
        }
        guard let limit = Int(query["limit"].map(String.init) ?? "100"), (1...10_000).contains(limit) else {
            throw ServerError(.badRequest, "'limit' must be in 1…10000")
        }
        let before = try query["before"].map { text -> Int64 in
            guard let id = Int64(text), id > 0 else {
                throw ServerError(.badRequest, "before '\(text)' is not a delivery id (a whole number above 0)")
            }
            return id
        }
        let store = self.store, wanted = state
        return StreamedPage<OutboxDelivery, Int64>(
            head: #"{"deliveries":["#, batch: 500, limit: limit, start: before,
            fetch: { cursor, count in try await store.deliveries(state: wanted, beforeID: cursor, limit: count) },
            cursor: \.id,
            encode: { delivery, buffer in buffer.writeJSON(object: delivery.jsonObject) },
            tail: { next in #"],"next_before":"# + (next.map(String.init) ?? "null") + "}" }
        ).response()
    }

    /// `POST /api/webhooks/deliveries/retry` (admin) with `{"id":N}`, `{"webhook_id":"w_…"}` or `{}` (every dead
    /// delivery): dead deliveries go back in the queue with a fresh retry schedule; replies `{"requeued":n}`.
    func retryDeliveries(_ request: Request) async throws -> Response {
        try await auth.requireAdmin(request)
        let buffer = try await body(of: request)
        let object: [String: Any]
        if buffer.readableBytes == 0 {
            object = [:]
        } else {
            guard let parsed = try JSONBody.parse(buffer) as? [String: Any] else {
                throw ServerError(.malformedBody, #"expected {"id":N}, {"webhook_id":"…"} or {}"#)
            }
            object = parsed
        }
        var id: Int64?
        if let raw = object["id"] {
            guard let number = JSONBody.double(raw), number == number.rounded(), number >= 1, number < 9e15 else {
                throw ServerError(.badRequest, "'id' must be a delivery id (a positive integer)")
            }
            id = Int64(number)
        }
        var webhookID: String?
        if let raw = object["webhook_id"] {
            guard let text = raw as? String, !text.isEmpty else { throw ServerError(.badRequest, "'webhook_id' must be a webhook id") }
            webhookID = text
        }
        let count = try await store.requeueDeadDeliveries(id: id, webhookID: webhookID, at: configuration.clock())
        return JSONReply.response(["requeued": count])
    }

    /// Most webhook subscriptions at once.
    static let maxWebhooks = 32

    /// `POST /api/webhooks {"url":…, "secret":…}` (admin): replies 201 with the webhook and its secret
    /// (a random one when none was given), shown only now. The URL is checked by
    /// ``WebhookPolicy/checkedWebhookURL(_:)``: size, scheme, port, no credentials, no internal literal address.
    func createWebhook(_ request: Request, policy: WebhookPolicy) async throws -> Response {
        try await auth.requireAdmin(request)
        guard let object = try JSONBody.parse(try await body(of: request)) as? [String: Any],
              let text = object["url"] as? String else {
            throw ServerError(.malformedBody, #"expected {"url":"https://…","secret":"…"}"#)
        }
        let url = try policy.checkedWebhookURL(text)
        let secret = (object["secret"] as? String) ?? TokenHasher.makeToken(prefix: "whs")
        guard !secret.isEmpty, secret.utf8.count <= 500 else {
            throw ServerError(.badRequest, "a webhook secret must have 1 to 500 bytes")
        }
        let webhook = Webhook(id: TokenHasher.makeIdentifier(prefix: "w"), url: url, secret: secret,
                              createdAt: Date(millisecondsSince1970: configuration.clock().millisecondsSince1970))
        // Every fence event becomes one delivery per webhook, in the upload's transaction: the cap bounds the rows
        // one upload can create (with the per-request event limit) to 10,000 × 32. Counted and inserted atomically,
        // so concurrent creations cannot pass it.
        let existing = try await store.insertWebhook(webhook, ifFewerThan: Self.maxWebhooks)
        guard existing < Self.maxWebhooks else {
            throw ServerError(.badRequest, "there are \(existing) webhooks, the limit of \(Self.maxWebhooks); delete one first")
        }
        var reply = webhook.jsonObject
        reply["secret"] = secret
        return JSONReply.response(reply, status: .created)
    }
}
