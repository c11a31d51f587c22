import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOFoundationEssentialsCompat

/// A small native-ingest server on 127.0.0.1 for tests: idempotency-key and per-(device,
/// timestamp) dedupe, and faults a test can script (5xx, 413 above N points, 401, 409/422 for
/// marked points, delays, a dropped connection after commit).
final class IngestTestServer: Sendable {
    /// One fault for one upcoming request.
    enum Fault: Hashable, Sendable {
        /// Answer with this status without committing.
        case status(Int)
        /// Commit, then break the connection before the reply (the client cannot know it landed).
        case dropAfterCommit
        /// Commit, then hold the reply until the device's next request arrives: the client must
        /// have given up (timed out) on this one before the hold ends, however slow the machine. The
        /// device's `whenHeld` action runs as the hold starts (a test moves its transport's clock past
        /// the timeout there, so the client times out at once, in virtual time).
        case holdAfterCommitUntilNextRequest
    }

    /// A server behind this one: given the device token, the idempotency key, the content type and
    /// the body, it stores the batch and answers (status, body). With one, this server only injects
    /// faults in front of it: a scripted status is answered without forwarding (nothing committed),
    /// and a drop or a hold happens after the upstream committed and answered.
    typealias Upstream = @Sendable (_ token: String, _ key: String?, _ contentType: String?, _ body: [UInt8]) async throws
        -> (status: Int, body: [UInt8])

    let state: IngestLedger
    let port: Int
    private let task: Task<Void, any Error>

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    private init(port: Int, task: Task<Void, any Error>, state: IngestLedger) {
        self.port = port
        self.state = state
        self.task = task
    }

    /// Starts a server on a free port and returns once it listens.
    ///
    /// - parameter upstream: a real server to forward to; nil stores in the ledger (see ``Upstream``).
    static func start(path: String = "/api/ingest", upstream: Upstream? = nil) async throws -> IngestTestServer {
        let ledger = IngestLedger()
        let router = Router()
        router.post(RouterPath(path)) { request, _ -> Response in
            if let upstream { return try await forward(request, ledger: ledger, to: upstream) }
            return try await handle(request, ledger: ledger)
        }
        var logger = Logger(label: "test-ingest")
        logger.logLevel = .critical
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) },
                              logger: logger)
        let task = Task { try await app.runService(gracefulShutdownSignals: []) }
        var iterator = stream.makeAsyncIterator()
        let port = await iterator.next() ?? 0
        return IngestTestServer(port: port, task: task, state: ledger)
    }

    func stop() { task.cancel() }

    /// What both modes read first: the bearer token, the idempotency key, the body, and the
    /// device's next fault (the request is counted in the ledger).
    private static func intake(_ request: Request, ledger: IngestLedger) async throws
        -> (token: String, key: String?, body: ByteBuffer, fault: Fault?) {
        let auth = request.headers[.authorization] ?? ""
        let token = auth.hasPrefix("Bearer ") ? String(auth.dropFirst(7)) : ""
        let key = HTTPField.Name("Idempotency-Key").flatMap { request.headers[$0] }
        let body = try await request.body.collect(upTo: 50_000_000)
        await ledger.saw(contentType: request.headers[.contentType], key: key)
        return (token, key, body, await ledger.nextFault(for: token))
    }

    private static func handle(_ request: Request, ledger: IngestLedger) async throws -> Response {
        let (token, key, body, fault) = try await intake(request, ledger: ledger)
        if case .status(let code) = fault { return reply(code, #"{"error":{"message":"injected fault"}}"#) }
        guard let device = await ledger.device(for: token) else {
            return reply(401, #"{"error":{"message":"unknown or expired token"}}"#)
        }
        guard let json = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any],
              let locations = json["locations"] as? [[String: Any]] else {
            return reply(400, #"{"error":{"message":"expected {\"locations\":[…]}"}}"#)
        }
        var points: [IngestLedger.Point] = []
        var gaps: [IngestLedger.Gap] = []
        var events = 0
        for feature in locations {
            let properties = feature["properties"] as? [String: Any] ?? [:]
            if properties["waymark_kind"] as? String == "gap" {
                // A gap marker: not a point; it must come after the points so indexes stay.
                gaps.append(.init(ride: properties["ride_id"] as? String ?? "", start: properties["start"] as? String ?? "",
                                  end: properties["end"] as? String ?? "", reason: properties["reason"] as? String ?? ""))
                continue
            }
            if properties["waymark_kind"] as? String == "fence_event" {
                // The device's geofence event: not a point either, and last of all (the real server's
                // run checks that they arrive; this ledger counts points and gap markers).
                events += 1
                continue
            }
            guard gaps.isEmpty, events == 0 else {
                return reply(400, #"{"error":{"message":"a point after a gap marker or fence event"}}"#)
            }
            let coordinates = (feature["geometry"] as? [String: Any])?["coordinates"] as? [Double] ?? []
            let timestamp = (feature["properties"] as? [String: Any])?["timestamp"] as? String ?? ""
            guard coordinates.count >= 2, !timestamp.isEmpty else {
                return reply(400, #"{"error":{"message":"a feature lacks coordinates or a timestamp"}}"#)
            }
            points.append(.init(timestamp: timestamp, longitude: coordinates[0], latitude: coordinates[1]))
        }
        await ledger.received(device: device, bytes: body.readableBytes, points: points.count)
        let rejected: [(index: Int, message: String)]
        switch await ledger.commit(points, gaps: gaps, device: device, key: key) {
        case .tooLarge(let max):
            return reply(413, #"{"error":{"message":"at most \#(max) points per request"}}"#)
        case .refused(let code):
            return reply(code, #"{"error":{"message":"point refused by test rule"}}"#)
        case .committed(let list):
            rejected = list
        }
        if let dropped = await afterCommit(fault, device: device, ledger: ledger) { return dropped }
        // WaymarkServer's reply shape: points it could not store are listed, the rest are committed.
        let list = rejected.map { #"{"index":\#($0.index),"field":"properties.timestamp","message":"\#($0.message)"}"# }
        return reply(200, #"{"result":"ok","rejected":[\#(list.joined(separator: ","))]}"#)
    }

    /// Injects the device's next fault in front of `upstream`: a status instead of forwarding; a drop
    /// or a hold after the upstream committed and answered.
    private static func forward(_ request: Request, ledger: IngestLedger, to upstream: Upstream) async throws -> Response {
        let (token, key, body, fault) = try await intake(request, ledger: ledger)
        if case .status(let code) = fault { return reply(code, #"{"error":{"message":"injected fault"}}"#) }
        let answer = try await upstream(token, key, request.headers[.contentType], Array(buffer: body))
        if (200..<300).contains(answer.status), let device = await ledger.device(for: token),
           let dropped = await afterCommit(fault, device: device, ledger: ledger) {
            return dropped
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: .init(code: answer.status), headers: headers,
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
    }

    /// Carries out a fault that strikes after the commit: a drop returns a reply whose body breaks
    /// the connection; a hold waits for the device's next request and returns nil (reply as usual).
    private static func afterCommit(_ fault: Fault?, device: String, ledger: IngestLedger) async -> Response? {
        switch fault {
        case .dropAfterCommit:
            var headers = HTTPFields()
            headers[.contentLength] = "64"
            return Response(status: .ok, headers: headers, body: ResponseBody { _ in throw CancellationError() })
        case .holdAfterCommitUntilNextRequest:
            let released = await ledger.holdSignal(device: device)
            await ledger.held(device: device)
            for await _ in released { break }
            return nil
        default:
            return nil
        }
    }

    private static func reply(_ status: Int, _ text: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: .init(code: status), headers: headers,
                        body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
