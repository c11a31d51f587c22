import Foundation
import Hummingbird

extension Routes {
    func addFenceRoutes(to router: Router<TrackingServer.Context>) {
        router.post("/api/fences") { request, _ in try await createFences(request) }
        router.get("/api/fences") { request, _ in
            _ = try await auth.require(request)
            let fences = try await store.listFences()
            return JSONReply.response(["type": "FeatureCollection", "features": fences.map(FenceCodec.feature)])
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
        return JSONReply.response(["type": "FeatureCollection", "features": fences.map(FenceCodec.feature)], status: .created)
    }

    /// `GET /api/events?device=ID&after=SEQ&limit=N`: fence events, oldest first; a device sees only its own.
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
        let events = try await store.fenceEvents(deviceID: deviceID, afterID: after, limit: limit)
        return JSONReply.response(encoding: ["events": events])
    }
}
