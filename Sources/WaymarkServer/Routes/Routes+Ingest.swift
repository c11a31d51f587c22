import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import WaymarkGeo

extension Routes {
    func addIngestRoutes(to router: Router<TrackingServer.Context>) {
        router.post("/api/ingest") { request, context in try await overland(request, context: context) }
        router.post("/pub") { request, context in try await ownTracks(request, context: context) }
        router.get("/") { request, context in
            Self.wantsDashboard(request) ? dashboard() : try await osmAnd(request, context: context)
        }
        router.get("/osmand") { request, context in try await osmAnd(request, context: context) }
        for path in ["/", "/osmand"] {
            router.post(RouterPath(path)) { request, context in try await osmAnd(request, context: context) }
        }
        router.post("/api/devices/:id/gpx") { request, context in try await gpxUpload(request, context: context) }
    }

    /// `POST /api/ingest`: Overland-compatible GeoJSON batch; replies `{"result":"ok",…}`.
    func overland(_ request: Request, context: TrackingServer.Context) async throws -> Response {
        let t0 = StageTrace.now()
        let device = try await auth.requireDevice(request)
        let t1 = StageTrace.now()
        let key = try idempotencyKey(request)
        let buffer = try await body(of: request)
        let t2 = StageTrace.now()
        let limits = configuration.decodeLimits
        let checked = try await decode(buffer, device: device, context: context) {
            try NativeBatchScanner.decode($0, limits: limits) ?? OverlandDecoder.decode(try JSONBody.parse($0, limits: limits), limits: limits)
        }
        let t3 = StageTrace.now()
        let outcome = try await commit(checked, device: device, idempotencyKey: key.map { IdempotencyClaim(key: $0, route: "ingest", body: buffer) },
                                       closeFuture: context.closeFuture)
        let t4 = StageTrace.now()
        let reply = okReply(outcome, checked.rejections)
        if StageTrace.enabled {
            let t5 = StageTrace.now()
            StageTrace.log("ingest key=\(key ?? "-") dev=\(device.id.prefix(6)) n=\(checked.positions.count) bytes=\(buffer.readableBytes) "
                           + "auth=\(StageTrace.ms(t0, t1)) body=\(StageTrace.ms(t1, t2)) decode=\(StageTrace.ms(t2, t3)) "
                           + "commit=\(StageTrace.ms(t3, t4)) reply=\(StageTrace.ms(t4, t5)) total=\(StageTrace.ms(t0, t5)) at=\(t0 / 1_000_000)")
        }
        return reply
    }

    /// `POST /pub`: OwnTracks HTTP mode; replies `[]`. Rejected points are summarised in the
    /// `X-Waymark-Rejected` header (at most 1 KiB).
    func ownTracks(_ request: Request, context: TrackingServer.Context) async throws -> Response {
        let device = try await auth.requireDevice(request)
        let buffer = try await body(of: request)
        let limits = configuration.decodeLimits
        let checked = try await decode(buffer, device: device, context: context, keepRejected: true) {
            try OwnTracksDecoder.decode(try JSONBody.parse($0, limits: limits), limits: limits)
        }
        var headers: HTTPFields = [.contentType: "application/json"]
        // A location is a point; every other message type (and a rejected location) a device event.
        if !checked.positions.isEmpty || !checked.deviceEvents.isEmpty {
            _ = try await commit(checked, device: device, idempotencyKey: nil, closeFuture: context.closeFuture)
            if checked.rejections.count > 0, let name = HTTPField.Name("X-Waymark-Rejected") {
                headers[name] = checked.rejections.headerSummary()
            }
        } else {
            // Nothing to write, so no transaction re-checks a device that came from the upload cache.
            try await auth.confirmActive(device)
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: "[]")))
    }

    /// `GET|POST /` and `/osmand`: OsmAnd query/form protocol, Traccar Client JSON, the Traccar SDK's JSON array,
    /// or one flat JSON object of the form's field names (Colota).
    ///
    /// Credentials are checked before any body byte is read when the request carries them in a header,
    /// in `?token=`, or in the query's `id`/`deviceid` (also for a Traccar JSON body). Only when the
    /// credentials are in the body (form `id`, JSON `device_id`) is the body read first, up to
    /// ``ServerConfiguration/maxBodyBytesBeforeAuthentication`` bytes, and only the credential is looked
    /// up before the device is known.
    func osmAnd(_ request: Request, context: TrackingServer.Context) async throws -> Response {
        let received = configuration.clock()
        let limits = configuration.decodeLimits
        var fields = try FormFields(request.uri.query ?? "", limits: limits)
        var device: DeviceRecord?
        if let token = Authenticator.token(in: request) ?? fields.first("id", "deviceid")?.value {
            device = try await auth.requireDevice(token: token)
        }
        let bodyLimit = device == nil ? min(configuration.maxBodyBytesBeforeAuthentication, configuration.maxBodyBytes) : nil
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        if request.method == .post, contentType.hasPrefix("application/json") {
            let buffer = try await body(of: request, limit: bodyLimit)
            if buffer.readableBytesView.first(where: { !JSONBody.isWhitespace($0) }) == UInt8(ascii: "[") {
                return try await osmAndArray(buffer, device: device, context: context, receivedAt: received)
            }
            let sender: DeviceRecord
            if let device {
                sender = device
            } else {
                // Traccar Client names the device in `device_id`; a flat object (Colota) in `id`.
                sender = try await auth.requireDevice(token: JSONKeyScanner.topLevelText(forKey: "device_id", in: buffer)
                                                        ?? JSONKeyScanner.topLevelText(forKey: "id", in: buffer))
            }
            let checked = try await decode(buffer, device: sender, context: context, receivedAt: received, keepRejected: true) {
                let json = try JSONBody.parse($0, limits: limits)
                // A flat object of OsmAnd or Colota field names (Colota's default "field-mapped" JSON) is one point.
                if let object = json as? [String: Any], object["location"] == nil,
                   object["lat"] != nil || object["latitude"] != nil || object["lon"] != nil {
                    return try OsmAndDecoder.decodeArray([object], receivedAt: received, limits: limits)
                }
                return try TraccarJSONDecoder.decode(json, limits: limits)
            }
            let outcome = try await commit(checked, device: sender, idempotencyKey: nil, receivedAt: received,
                                           closeFuture: context.closeFuture)
            return okReply(outcome, checked.rejections)
        }
        if request.method == .post {
            let buffer = try await body(of: request, limit: bodyLimit)
            fields.merge(try FormFields(String(buffer: buffer), limits: limits))
        }
        if device == nil {
            guard let token = fields.first("id", "deviceid")?.value else {
                throw ServerError(.badRequest, "missing 'id': the OsmAnd protocol identifies the device by its token in 'id'")
            }
            device = try await auth.requireDevice(token: token)
        }
        guard let device else { throw ServerError(.unauthorized, "the device token is unknown or revoked") }
        let decoded = OsmAndDecoder.decode(fields, receivedAt: received)
        let checked = validate(decoded, device: device, receivedAt: received)
        let outcome = try await commit(checked, device: device, idempotencyKey: nil, receivedAt: received,
                                       closeFuture: context.closeFuture)
        return okReply(outcome, checked.rejections)
    }

    /// `POST /` with a JSON array of flat OsmAnd objects (the Traccar SDK's `uploadJson`); the token is the
    /// first object's `id` when no header or query carried one.
    func osmAndArray(_ buffer: ByteBuffer, device: DeviceRecord?, context: TrackingServer.Context,
                     receivedAt received: Date) async throws -> Response {
        let limits = configuration.decodeLimits
        let sender: DeviceRecord
        if let device {
            sender = device
        } else {
            let first = (try JSONBody.parse(buffer, limits: limits) as? [Any])?.first as? [String: Any]
            guard let token = first.flatMap({ JSONBody.string($0["id"] ?? $0["deviceid"]) }) else {
                throw ServerError(.badRequest, "missing 'id': the first object of the array names the device by its token")
            }
            sender = try await auth.requireDevice(token: token)
        }
        let checked = try await decode(buffer, device: sender, context: context, receivedAt: received, keepRejected: true) {
            try OsmAndDecoder.decodeArray(try JSONBody.parse($0, limits: limits), receivedAt: received, limits: limits)
        }
        let outcome = try await commit(checked, device: sender, idempotencyKey: nil, receivedAt: received,
                                           closeFuture: context.closeFuture)
        return okReply(outcome, checked.rejections)
    }

    /// `POST /api/devices/{id}/gpx`: every timed track point of a GPX file.
    func gpxUpload(_ request: Request, context: TrackingServer.Context) async throws -> Response {
        let id = try context.parameters.require("id")
        let device = try await auth.requireDevice(request)
        guard device.id == id else { throw ServerError(.forbidden, "a device may upload only its own points") }
        guard let reader = configuration.gpxReader else {
            throw ServerError(.notFound, "GPX upload is not enabled on this server")
        }
        let key = try idempotencyKey(request)
        let buffer = try await body(of: request)
        // The name only labels error messages; a long one is cut rather than repeated.
        let name = ClientText.truncated(request.uri.queryParameters["name"].map(String.init) ?? "upload.gpx", maxBytes: 100)
        let maxEntries = configuration.maxPointsPerRequest
        let checked = try await decode(buffer, device: device, context: context) { buffer in
            let tracks: [Track]
            do {
                tracks = try reader(Data(buffer.readableBytesView), name, maxEntries)
            } catch let error as GeoError where error.code == .cancelled {
                throw CancellationError()
            } catch let error as GeoError {
                throw ServerError(.malformedBody, "the GPX file is invalid: \(error)")
            }
            let count = tracks.reduce(0) { $0 + $1.points.count }
            guard count <= maxEntries else {
                throw ServerError(.payloadTooLarge, "the GPX file has \(count) track points; at most \(maxEntries) are accepted per request")
            }
            var decoded = DecodedBody()
            decoded.candidates.reserveCapacity(count)
            for point in tracks.lazy.flatMap(\.points) {
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
            return decoded
        }
        let outcome = try await commit(checked, device: device, idempotencyKey: key.map { IdempotencyClaim(key: $0, route: "gpx", body: buffer) },
                                       closeFuture: context.closeFuture)
        return okReply(outcome, checked.rejections)
    }

    /// Decodes `buffer` with `decoder` and validates the result for `device`. A body larger than
    /// ``ServerConfiguration/heavyDecodeThresholdBytes`` goes through the ``DecodeGate``: a bounded number at
    /// once, in a task cancelled when the client disconnects.
    ///
    /// `keepRejected`: rejected points become device events and do not fail the request (see
    /// ``PositionValidator/validate(_:deviceID:sampleLimit:keepRejected:)``), for clients that resend a refused request forever.
    func decode(_ buffer: ByteBuffer, device: DeviceRecord, context: TrackingServer.Context, receivedAt: Date? = nil,
                keepRejected: Bool = false,
                _ decoder: @escaping @Sendable (ByteBuffer) throws -> DecodedBody) async throws -> PositionValidator.Outcome {
        let now = receivedAt ?? configuration.clock()
        let sampleLimit = configuration.rejectionSampleLimit
        let work: @Sendable () throws -> PositionValidator.Outcome = {
            let decoded = try decoder(buffer)
            try Task.checkCancellation()
            return PositionValidator(now: now).validate(decoded, deviceID: device.id, sampleLimit: sampleLimit,
                                                        keepRejected: keepRejected)
        }
        guard buffer.readableBytes > configuration.heavyDecodeThresholdBytes else { return try work() }
        do {
            return try await decodeGate.run(closeFuture: context.closeFuture, work)
        } catch let error as ServerError where error.code == .cancelled || error.code == .busy {
            metrics.refused(error.code == .busy ? "busy" : "cancelled")
            throw error
        } catch is CancellationError {
            metrics.refused("cancelled")
            throw ServerError(.cancelled, "the client closed the connection; the request was abandoned")
        }
    }

    /// Validates a small decoded body of the OsmAnd protocol in place (no gate); rejected points become device events.
    func validate(_ decoded: DecodedBody, device: DeviceRecord, receivedAt: Date) -> PositionValidator.Outcome {
        PositionValidator(now: receivedAt).validate(decoded, deviceID: device.id, sampleLimit: configuration.rejectionSampleLimit,
                                                    keepRejected: true)
    }

    /// Commits what validation accepted; throws 422 when nothing in the request is valid (a request of gap
    /// markers only has no point but succeeds when a marker is valid). The error lists the problems of the
    /// first ``ServerConfiguration/rejectionSampleLimit`` rejected entries and counts the rest.
    ///
    /// A write of more than ``ServerConfiguration/largeWriteEntries`` entries waits for its turn in the
    /// ``LargeWriteLane`` first (it is dropped, unstored, when `closeFuture` completes while it waits).
    func commit(_ checked: PositionValidator.Outcome, device: DeviceRecord, idempotencyKey: IdempotencyClaim?,
                receivedAt: Date? = nil, closeFuture: EventLoopFuture<Void>? = nil) async throws -> IngestOutcome {
        let now = receivedAt ?? configuration.clock()
        guard !checked.positions.isEmpty || !checked.gaps.isEmpty || !checked.deviceEvents.isEmpty else {
            let message = checked.rejections.count == 0 ? "the request contains no points" : "no point in the request is valid"
            throw ServerError(.noValidPoint, message, rejections: checked.rejections)
        }
        // A device's own fence events fan out to every webhook like the server's: the same cap bounds them.
        let reported = checked.deviceEvents.lazy.filter { $0.kind == DeviceEventRecord.deviceFenceEventKind }.count
        if reported > configuration.maxFenceEventsPerRequest {
            throw ServerError(.payloadTooLarge, "the request reports \(reported) fence events, more than the "
                              + "\(configuration.maxFenceEventsPerRequest) accepted per request (maxFenceEventsPerRequest); "
                              + "nothing was stored. Send smaller batches")
        }
        let outcome: IngestOutcome
        do {
            var write = IngestWrite(deviceID: device.id, idempotencyKey: idempotencyKey?.key,
                                    positions: checked.positions, receivedAt: now, gaps: checked.gaps,
                                    deviceEvents: checked.deviceEvents)
            write.requestDigest = idempotencyKey?.digest
            write.fenceEventLimits = FenceEventLimits(perRequest: configuration.maxFenceEventsPerRequest,
                                                      perPoint: configuration.maxFenceEventsPerPoint)
            if let writeLane {
                let admitted = write
                do {
                    outcome = try await writeLane.run(device: device.id, entries: write.entryCount, closeFuture: closeFuture) {
                        try await store.ingest(admitted)
                    }
                } catch let error as ServerError where error.code == .busy || error.code == .cancelled {
                    metrics.refused(error.code == .busy ? "busy" : "cancelled")
                    throw error
                }
            } else {
                outcome = try await store.ingest(write)
            }
        } catch let error as ServerError where error.code == .unauthorized {
            auth.forget(deviceID: device.id)   // revoked since its token was cached
            throw error
        }
        // A replay stored nothing now: it is neither counted again nor streamed again.
        metrics.pointsStored(outcome.newPositions.count)
        if !outcome.newPositions.isEmpty, feed.subscriberCount > 0 {
            feed.publish(positions: outcome.newPositions.sorted { $0.fix.timestamp < $1.fix.timestamp })
        }
        for record in outcome.events { feed.publish(.event(record)) }
        for record in outcome.newDeviceEvents { feed.publish(.deviceEvent(record)) }
        return outcome
    }

    func idempotencyKey(_ request: Request) throws -> String? {
        guard let name = HTTPField.Name("Idempotency-Key"), let key = request.headers[name] else { return nil }
        guard !key.isEmpty, key.utf8.count <= 200 else {
            throw ServerError(.badRequest, "Idempotency-Key must have 1 to 200 bytes")
        }
        return key
    }

    func okReply(_ outcome: IngestOutcome, _ rejections: Rejections) -> Response {
        JSONReply.response(encoding: IngestReply(stored: outcome.stored, duplicates: outcome.duplicates,
                                                 replayed: outcome.replayed, gaps: outcome.gapsStored,
                                                 deviceEvents: outcome.deviceEventsStored,
                                                 rejected: rejections.sample, rejectedCount: rejections.count,
                                                 rejectedByField: rejections.byField, events: outcome.events))
    }

    /// `{"result":"ok","stored","duplicates","replayed","gaps","device_events","rejected","rejected_count","rejected_by_field","events"}`.
    struct IngestReply: Encodable {
        var result = "ok"
        var stored: Int, duplicates: Int, replayed: Bool
        /// Gap markers newly stored.
        var gaps: Int
        /// Records without a position newly stored (device events).
        var deviceEvents: Int
        /// Every problem of the first ``ServerConfiguration/rejectionSampleLimit`` rejected entries.
        var rejected: [PointProblem]
        /// Rejected entries in all.
        var rejectedCount: Int
        /// Rejected entries by the field at fault.
        var rejectedByField: [String: Int]
        var events: [FenceEventRecord]

        enum CodingKeys: String, CodingKey {
            case result, stored, duplicates, replayed, gaps, rejected, events
            case rejectedCount = "rejected_count", rejectedByField = "rejected_by_field", deviceEvents = "device_events"
        }
    }
}
