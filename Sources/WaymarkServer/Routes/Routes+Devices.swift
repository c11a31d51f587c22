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

    /// `GET /api/devices`: every device for the admin, only itself for a device.
    func listDevices(_ request: Request) async throws -> Response {
        let devices: [DeviceRecord]
        switch try await auth.require(request) {
        case .admin: devices = try await store.listDevices()
        case .device(let device): devices = [device]
        }
        // One query for every device's last position, not one per device.
        let lasts = try await store.lastPositions()
        return JSONReply.response(encoding: ["devices": devices.map { DeviceReply(device: $0, addition: .last(lasts[$0.id])) }])
    }
}
