import Foundation
import Hummingbird

extension Routes {
    func addDeviceRoutes(to router: Router<TrackingServer.Context>) {
        router.post("/api/devices") { request, _ in try await createDevice(request) }
        router.get("/api/devices") { request, _ in try await listDevices(request) }
        router.delete("/api/devices/:id") { request, context in
            try await auth.requireAdmin(request)
            let id = try context.parameters.require("id")
            try await DeviceRegistry.revoke(id: id, in: store, at: configuration.clock())
            auth.forget(deviceID: id)
            feed.close(owner: id)   // its open live streams end now
            return Response(status: .noContent)
        }
    }

    /// `POST /api/devices {"name":…}` (admin): replies with the device and its token, shown once.
    func createDevice(_ request: Request) async throws -> Response {
        try await auth.requireAdmin(request)
        guard let object = try JSONBody.parse(try await body(of: request)) as? [String: Any],
              let name = object["name"] as? String else {
            throw ServerError(.malformedBody, #"expected {"name":"…"}"#)
        }
        let (device, token) = try await DeviceRegistry.register(name: name, in: store, at: configuration.clock())
        return JSONReply.response(encoding: DeviceReply(device: device, addition: .token(token)), status: .created)
    }

    /// Most devices on one page of `GET /api/devices`.
    static let maxDeviceLimit = 1000

    /// `GET /api/devices?limit=N&after=ID` (limit 1…1000, default 1000): one page of devices ordered by id with
    /// their last positions, `{"devices":[…],"next_after":ID|null}`, for the admin; a device sees only itself.
    /// Written to the connection as the devices are read, 50 at a time.
    func listDevices(_ request: Request) async throws -> Response {
        let principal = try await auth.require(request)
        let limit = try pageLimit(request, default: Self.maxDeviceLimit, maximum: Self.maxDeviceLimit)
        let after = request.uri.queryParameters["after"].map(String.init)
        let store = self.store
        let fetch: @Sendable (String?, Int) async throws -> [DeviceReply]
        switch principal {
        case .admin:
            fetch = { cursor, count in
                var replies: [DeviceReply] = []
                for device in try await store.devices(after: cursor, limit: count) {
                    replies.append(DeviceReply(device: device, addition: .last(try await store.lastPosition(deviceID: device.id))))
                }
                return replies
            }
        case .device(let device):
            fetch = { cursor, _ in
                guard cursor.map({ device.id > $0 }) ?? true else { return [] }
                return [DeviceReply(device: device, addition: .last(try await store.lastPosition(deviceID: device.id)))]
            }
        }
        return StreamedPage<DeviceReply, String>(
            head: #"{"devices":["#, batch: 50, limit: limit, start: after, fetch: fetch, cursor: \.device.id,
            encode: { reply, buffer in buffer.writeJSON(reply) },
            tail: { next in #"],"next_after":"# + (next.map(JSONText.quoted) ?? "null") + "}" }
        ).response()
    }
}
