import Foundation
import Hummingbird
import WaymarkGeo

extension Routes {
    func addFenceRoutes(to router: Router<TrackingServer.Context>) {
        router.post("/api/fences") { request, _ in try await createFences(request) }
        router.get("/api/fences") { request, _ in
            // The fence set's version, read before the page, so a tag never claims fences newer than those sent.
            _ = try await auth.require(request)
            let tag = "\"fences-\(try await store.fenceGeneration())\""
            if Self.matches(request.headers[.ifNoneMatch], tag: tag) {
                return Response(status: .notModified, headers: [.eTag: tag, .cacheControl: "no-cache"])
            }
            var response = try await listFences(request)
            response.headers[.eTag] = tag
            response.headers[.cacheControl] = "no-cache"
            return response
        }
        router.delete("/api/fences/:id") { request, context in
            try await auth.requireAdmin(request)
            let id = try context.parameters.require("id")
            guard try await store.deleteFence(id: id) else { throw ServerError(.notFound, "no fence with id '\(id)'") }
            return Response(status: .noContent)
        }
        router.get("/api/events") { request, _ in try await listEvents(request) }
    }

    /// `POST /api/fences` (admin): a GeoJSON Feature, FeatureCollection or circle shorthand; replies 201 with the stored fences.
    func createFences(_ request: Request) async throws -> Response {
        try await auth.requireAdmin(request)
        let fences = try FenceCodec.fences(from: try JSONBody.parse(try await body(of: request)))
        guard !fences.isEmpty else { throw ServerError(.malformedBody, "the request contains no fence") }
        try await store.upsertFences(fences, at: configuration.clock())
        return JSONReply.response(encoding: FencePage(fences: fences, next: nil), status: .created)
    }

    /// Whether an `If-None-Match` header names `tag` (or is `*`): RFC 9110 §13.1.2, weak comparison.
    static func matches(_ header: String?, tag: String) -> Bool {
        guard let header else { return false }
        let wanted = tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag
        return header.split(separator: ",").contains { part in
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            return trimmed == "*" || (trimmed.hasPrefix("W/") ? String(trimmed.dropFirst(2)) : trimmed) == wanted
        }
    }

    /// `GET /api/fences?limit=N&after=ID` (any token): one page of fences ordered by id, as a GeoJSON
    /// FeatureCollection with a `next` member holding the id to pass as `after` for the next page
    /// (absent on the last page). `limit` is 1…10000, 1000 when absent (see ``pageLimit(_:)``); a page also ends
    /// after the fence that passes ``listPageBytes``. Written to the connection as the fences are read,
    /// ``fenceBatch`` at a time. Every page carries the fence set's version as its `ETag` (`"fences-N"`); a
    /// request whose `If-None-Match` names the current one gets 304 without a body, so a phone re-checks its copy
    /// for a few bytes.
    func listFences(_ request: Request) async throws -> Response {
        _ = try await auth.require(request)
        let limit = try pageLimit(request)
        let after = request.uri.queryParameters["after"].map(String.init)
        let store = self.store
        return StreamedPage<ServerFence, String>(
            head: #"{"features":["#, batch: Self.fenceBatch, limit: limit, start: after,
            fetch: { cursor, count in try await store.fences(after: cursor, limit: count) },
            cursor: \.id,
            encode: { fence, buffer in buffer.writeJSON(FenceFeature(fence: fence)) },
            tail: { next in "]" + (next.map { #","next":"# + JSONText.quoted($0) } ?? "") + #","type":"FeatureCollection"}"# }
        ).response()
    }

    /// Fences read from the store at a time while a page is written (a polygon may have 10,000 vertices).
    static let fenceBatch = 16

    /// `GET /api/events?device=ID&after=SEQ&limit=N` (limit 1…10000, default 1000): fence events, oldest first; a
    /// device sees only its own. `{"events":[…],"next_after":SEQ|null}`: `next_after` is the `after` of the next
    /// page, null on the last. Written to the connection as the events are read.
    func listEvents(_ request: Request) async throws -> Response {
        let principal = try await auth.require(request)
        let query = request.uri.queryParameters
        var deviceID = query["device"].map(String.init)
        if case .device(let device) = principal {
            guard deviceID == nil || deviceID == device.id else {
                throw ServerError(.forbidden, "a device may read only its own events")
            }
            deviceID = device.id
        }
        guard let after = Int64(query["after"].map(String.init) ?? "0"), let limit = Int(query["limit"].map(String.init) ?? "1000"),
              limit > 0, limit <= 10_000 else {
            throw ServerError(.badRequest, "'after' must be an integer and 'limit' in 1…10000")
        }
        let store = self.store, device = deviceID
        return StreamedPage<FenceEventRecord, Int64>(
            head: #"{"events":["#, batch: 500, limit: limit, start: after,
            fetch: { cursor, count in try await store.fenceEvents(deviceID: device, afterID: cursor ?? 0, limit: count) },
            cursor: \.id,
            encode: { event, buffer in buffer.writeJSON(event) },
            tail: { next in #"],"next_after":"# + (next.map(String.init) ?? "null") + "}" }
        ).response()
    }
}

extension Routes {
    /// `{"type":"FeatureCollection","features":[…],"next":"…"}`: fences in the Feature form of
    /// ``FenceCodec/feature(_:)``, written with `JSONEncoder` (a 10,000-fence page in a fraction of the
    /// time `JSONSerialization` needs for the same dictionaries). `next` is left out when nil.
    struct FencePage: Encodable {
        var fences: [ServerFence]
        var next: String?

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode("FeatureCollection", forKey: .type)
            try c.encode(fences.map(FenceFeature.init), forKey: .features)
            try c.encodeIfPresent(next, forKey: .next)
        }

        enum Key: String, CodingKey { case type, features, next }
    }

    /// One fence as a GeoJSON Feature: `id`, `properties` (`name`, `dwellSeconds` or null, and
    /// `radiusMeters` for a circle) and the geometry (a circle as its centre `Point`, a polygon with
    /// closed rings, the outline first).
    struct FenceFeature: Encodable {
        var fence: ServerFence

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode("Feature", forKey: .type)
            try c.encode(fence.id, forKey: .id)
            var properties = c.nestedContainer(keyedBy: Key.self, forKey: .properties)
            try properties.encode(fence.name, forKey: .name)
            if let dwell = fence.dwellSeconds { try properties.encode(dwell, forKey: .dwellSeconds) } else {
                try properties.encodeNil(forKey: .dwellSeconds)
            }
            var geometry = c.nestedContainer(keyedBy: Key.self, forKey: .geometry)
            switch fence.shape {
            case .circle(let center, let radius):
                try properties.encode(radius, forKey: .radiusMeters)
                try geometry.encode("Point", forKey: .type)
                try geometry.encode([center.longitude, center.latitude], forKey: .coordinates)
            case .polygon(let polygon):
                try geometry.encode("Polygon", forKey: .type)
                let rings = ([polygon.exterior] + polygon.holes).map { ring in
                    (ring + [ring[0]]).map { [$0.longitude, $0.latitude] }
                }
                try geometry.encode(rings, forKey: .coordinates)
            }
        }

        enum Key: String, CodingKey { case type, id, properties, geometry, name, dwellSeconds, radiusMeters, coordinates }
    }
}
