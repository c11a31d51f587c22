import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import WaymarkGeo

extension Routes {
    func addIngestRoutes(to router: Router<TrackingServer.Context>) {
        router.post("/api/ingest") { request, _ in try await overland(request) }
        router.post("/pub") { request, _ in try await ownTracks(request) }
        router.get("/") { request, _ in Self.wantsDashboard(request) ? Self.dashboard() : try await osmAnd(request) }
        router.get("/osmand") { request, _ in try await osmAnd(request) }
        for path in ["/", "/osmand"] {
            router.post(RouterPath(path)) { request, _ in try await osmAnd(request) }
        }
        router.post("/api/devices/:id/gpx") { request, context in try await gpxUpload(request, context: context) }
    }

    /// `POST /api/ingest`: Overland-compatible GeoJSON batch; replies `{"result":"ok",…}`.
    func overland(_ request: Request) async throws -> Response {
        let device = try await auth.requireDevice(request)
        let key = try idempotencyKey(request)
        let buffer = try await body(of: request)
        let decoded = try NativeBatchScanner.decode(buffer) ?? OverlandDecoder.decode(try JSONBody.parse(buffer))
        let (outcome, problems) = try await commit(decoded, device: device, idempotencyKey: key)
        return okReply(outcome, problems)
    }

    /// `POST /pub`: OwnTracks HTTP mode; replies `[]`.
    func ownTracks(_ request: Request) async throws -> Response {
        let device = try await auth.requireDevice(request)
        let (decoded, positional) = try OwnTracksDecoder.decode(try JSONBody.parse(try await body(of: request)))
        var headers: HTTPFields = [.contentType: "application/json"]
        if positional > 0 {
            let (_, problems) = try await commit(decoded, device: device, idempotencyKey: nil)
            if !problems.isEmpty, let name = HTTPField.Name("X-Waymark-Rejected") {
                headers[name] = problems.map(\.description).joined(separator: "; ")
            }
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: "[]")))
    }

    /// `GET|POST /` and `/osmand`: OsmAnd query/form protocol or Traccar Client JSON.
    func osmAnd(_ request: Request) async throws -> Response {
        let received = configuration.clock()
        var fields = FormFields(request.uri.query ?? "")
        let decoded: DecodedBody
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        if request.method == .post, contentType.hasPrefix("application/json") {
            decoded = try TraccarJSONDecoder.decode(try JSONBody.parse(try await body(of: request)))
        } else {
            if request.method == .post {
                let buffer = try await body(of: request)
                fields.merge(FormFields(String(buffer: buffer)))
            }
            guard fields.first("id", "deviceid") != nil || Authenticator.token(in: request) != nil else {
                throw ServerError(.badRequest, "missing 'id': the OsmAnd protocol identifies the device by its token in 'id'")
            }
            decoded = OsmAndDecoder.decode(fields, receivedAt: received)
        }
        let device = try await auth.requireDevice(request, fallbackToken: decoded.bodyToken)
        let (outcome, problems) = try await commit(decoded, device: device, idempotencyKey: nil, receivedAt: received)
        return okReply(outcome, problems)
    }

    /// `POST /api/devices/{id}/gpx`: every timed track point of a GPX file.
    func gpxUpload(_ request: Request, context: TrackingServer.Context) async throws -> Response {
        let id = try context.parameters.require("id")
        let device = try await auth.requireDevice(request)
        guard device.id == id else { throw ServerError(.forbidden, "a device may upload only its own points") }
        guard let reader = configuration.gpxReader else {
            throw ServerError(.notFound, "GPX upload is not enabled on this server")
        }
        let data = Data(try await body(of: request).readableBytesView)
        let name = request.uri.queryParameters["name"].map(String.init) ?? "upload.gpx"
        let tracks: [Track]
        do {
            tracks = try reader(data, name)
        } catch let error as GeoError {
            throw ServerError(.malformedBody, "the GPX file is invalid: \(error)")
        }
        var decoded = DecodedBody()
        for point in tracks.flatMap(\.points) {
            var c = PositionCandidate()
            c.names = .init(latitude: "trkpt@lat", longitude: "trkpt@lon", timestamp: "trkpt/time")
            c.latitude = point.coordinate.latitude
            c.longitude = point.coordinate.longitude
            c.timestamp = point.time
            c.altitude = point.elevation
            c.speed = point.speed
            c.course = point.course
            c.source = .file
            decoded.candidates.append(c)
        }
        let (outcome, problems) = try await commit(decoded, device: device, idempotencyKey: try idempotencyKey(request))
        return okReply(outcome, problems)
    }

    /// Validates and commits; throws 422 when nothing in the request is valid (a request of gap
    /// markers only has no point but succeeds when a marker is valid).
    func commit(_ decoded: DecodedBody, device: DeviceRecord, idempotencyKey: String?,
                receivedAt: Date? = nil) async throws -> (IngestOutcome, [PointProblem]) {
        let now = receivedAt ?? configuration.clock()
        let validator = PositionValidator(now: now)
        var (positions, problems) = validator.validate(decoded.candidates, deviceID: device.id)
        let (gaps, gapProblems) = validator.gaps(decoded.candidates, deviceID: device.id)
        if !gapProblems.isEmpty {
            problems = (problems + gapProblems).sorted { $0.index < $1.index }
        }
        guard !positions.isEmpty || !gaps.isEmpty else {
            let message = decoded.candidates.isEmpty ? "the request contains no points" : "no point in the request is valid"
            throw ServerError(.noValidPoint, message, problems: problems)
        }
        let outcome = try await store.ingest(IngestWrite(deviceID: device.id, idempotencyKey: idempotencyKey,
                                                         positions: positions, receivedAt: now, gaps: gaps))
        // A replay stored nothing now: it is neither counted again nor streamed again.
        metrics.pointsStored(outcome.newPositions.count)
        if !outcome.newPositions.isEmpty, feed.subscriberCount > 0 {
            feed.publish(.positions(outcome.newPositions.sorted { $0.fix.timestamp < $1.fix.timestamp }))
        }
        for record in outcome.events { feed.publish(.event(record)) }
        return (outcome, problems)
    }

    func idempotencyKey(_ request: Request) throws -> String? {
        guard let name = HTTPField.Name("Idempotency-Key"), let key = request.headers[name] else { return nil }
        guard !key.isEmpty, key.utf8.count <= 200 else {
            throw ServerError(.badRequest, "Idempotency-Key must have 1 to 200 bytes")
        }
        return key
    }

    func okReply(_ outcome: IngestOutcome, _ problems: [PointProblem]) -> Response {
        JSONReply.response(encoding: IngestReply(stored: outcome.stored, duplicates: outcome.duplicates,
                                                 replayed: outcome.replayed, gaps: outcome.gapsStored, rejected: problems,
                                                 events: outcome.events))
    }

    /// `{"result":"ok","stored","duplicates","replayed","gaps","rejected","events"}`.
    struct IngestReply: Encodable {
        var result = "ok"
        var stored: Int, duplicates: Int, replayed: Bool
        /// Gap markers newly stored.
        var gaps: Int
        var rejected: [PointProblem]
        var events: [FenceEventRecord]
    }
}
