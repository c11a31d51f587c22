import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import WaymarkServer
import Hummingbird
import NIOHTTP1
import WaymarkGeo

/// The tracking server the demo runs in-process: a SQLite store in a fresh temporary folder, a
/// generated admin token, one registered device, listening on 127.0.0.1.
///
/// The preferred port is tried first; when it is busy a free port is used instead.
/// `Sendable`; stop it with ``stop()``.
final class DemoServer: Sendable {
    let store: SQLiteStore
    let folder: URL
    let port: Int
    let adminToken: String
    let deviceID: String
    let deviceToken: String
    private let task: Task<Void, Never>

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    private init(store: SQLiteStore, folder: URL, port: Int, adminToken: String, deviceID: String, deviceToken: String,
                 task: Task<Void, Never>) {
        self.store = store
        self.folder = folder
        self.port = port
        self.adminToken = adminToken
        self.deviceID = deviceID
        self.deviceToken = deviceToken
        self.task = task
    }

    /// Creates the folder and store, registers the device, and starts listening.
    ///
    /// - parameter port: the preferred port (0 for any free port).
    static func start(port preferred: Int, deviceName: String = "Demo rider's phone") async throws -> DemoServer {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-demo-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = try SQLiteStore(path: folder.appendingPathComponent("server.sqlite").path)
        try await store.migrate()
        let admin = try await AdminToken.establish(in: store, environmentToken: nil)
        let (device, token) = try await DeviceRegistry.register(name: deviceName, in: store)
        var configuration = ServerConfiguration(adminTokenDigest: admin.digest)
        configuration.host = "127.0.0.1"
        for candidate in preferred == 0 ? [0] : [preferred, 0] {
            configuration.port = candidate
            if let (port, task) = await listen(configuration: configuration, store: store) {
                return DemoServer(store: store, folder: folder, port: port, adminToken: admin.newToken ?? "",
                                  deviceID: device.id, deviceToken: token, task: task)
            }
        }
        throw InputError("could not start the demo server on 127.0.0.1")
    }

    /// Starts the application; returns the bound port, or nil when binding failed.
    private static func listen(configuration: ServerConfiguration, store: SQLiteStore) async -> (Int, Task<Void, Never>)? {
        var logger = Logger(label: "waymark.demo.server")
        logger.logLevel = .critical
        let (stream, continuation) = AsyncStream<Int?>.makeStream()
        let app = TrackingServer.makeApplication(configuration: configuration, store: store, logger: logger) { port in
            continuation.yield(port)
        }
        let task = Task {
            do { try await app.runService(gracefulShutdownSignals: []) } catch {}
            continuation.yield(nil)
            continuation.finish()
        }
        var iterator = stream.makeAsyncIterator()
        guard let port = await iterator.next() ?? nil else {
            task.cancel()
            return nil
        }
        return (port, task)
    }

    /// Points the server stored for the demo device.
    func storedPointCount() async throws -> Int {
        var count = 0
        var cursor: Int64?
        while true {
            let page = try await store.positions(PositionQuery(deviceID: deviceID, afterMillis: cursor, limit: 5000))
            count += page.count
            guard page.count == 5000, let last = page.last else { return count }
            cursor = last.timestampMillis
        }
    }

    /// Gap markers the server stored for the demo device.
    func storedGapCount() async throws -> Int {
        var count = 0
        var cursor: GapQuery.Cursor?
        while true {
            let page = try await store.gaps(GapQuery(deviceID: deviceID, after: cursor, limit: 1000))
            count += page.count
            guard page.count == 1000, let last = page.last else { return count }
            cursor = GapQuery.Cursor(after: last)
        }
    }

    /// Loads fences the way an operator would: one `POST /api/fences` with the admin token and a
    /// GeoJSON FeatureCollection of circles (`Point` features with `radiusMeters`).
    ///
    /// - throws: ``InputError`` when the server does not answer 201.
    func loadFences(_ fences: [DemoRide.DemoFence]) async throws {
        let features: [[String: Any]] = fences.map { fence in
            ["type": "Feature", "id": fence.id,
             "geometry": ["type": "Point", "coordinates": [fence.center.longitude, fence.center.latitude]],
             "properties": ["name": fence.name, "radiusMeters": fence.radiusMeters]]
        }
        var request = HTTPClientRequest(url: baseURL.absoluteString + "/api/fences")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(adminToken)")
        request.headers.add(name: "Content-Type", value: "application/json")
        let body = try JSONSerialization.data(withJSONObject: ["type": "FeatureCollection", "features": features])
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let reply = try await response.body.collect(upTo: 1 << 20)
        guard response.status.code == 201 else {
            throw InputError("the demo server refused the fences (HTTP \(response.status.code)): \(String(buffer: reply))")
        }
    }

    /// The fence events the server stored for the demo device after sequence number `after`, oldest first.
    func fenceEvents(after: Int64) async throws -> [FenceEventRecord] {
        try await store.fenceEvents(deviceID: deviceID, afterID: after, limit: 10_000)
    }

    /// The geofence events the demo device reported (stored as device events of kind
    /// `waymark.fence_event`), oldest first, as the server holds them: fence, kind and the device's time.
    func reportedFenceEvents() async throws -> [DemoFenceEvent] {
        var events: [DemoFenceEvent] = []
        var cursor: Int64 = 0
        while true {
            let page = try await store.deviceEvents(deviceID: deviceID, kind: DeviceEventRecord.deviceFenceEventKind,
                                                    afterID: cursor, limit: 1000)
            for record in page {
                guard let event = record.reportedFenceEvent, let time = record.time else {
                    throw InputError("the demo server holds an unreadable device fence event \(record.id): \(record.detail)")
                }
                events.append(DemoFenceEvent(fence: event.fenceID, kind: event.event, time: time))
            }
            guard page.count == 1000, let last = page.last else { return events }
            cursor = last.id
        }
    }

    /// Stops listening and removes the temporary folder.
    func stop() {
        task.cancel()
        try? FileManager.default.removeItem(at: folder)
    }
}
