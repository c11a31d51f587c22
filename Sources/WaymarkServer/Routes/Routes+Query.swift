import Foundation
import Hummingbird
import WaymarkGeo

extension Routes {
    /// Positions per page when streaming rides and exports.
    static let streamPage = 2000

    func addQueryRoutes(to router: Router<TrackingServer.Context>) {
        router.get("/api/devices/:id/last") { request, context in
            let device = try await readableDevice(request, context)
            guard let last = try await store.lastPosition(deviceID: device.id) else {
                throw ServerError(.notFound, "device '\(device.id)' has no positions yet")
            }
            return JSONReply.response(encoding: PositionReply(position: last))
        }
        router.get("/api/devices/:id/positions") { request, context in
            try await positions(request, device: try await readableDevice(request, context))
        }
        router.get("/api/devices/:id/gaps") { request, context in
            try await gaps(request, device: try await readableDevice(request, context))
        }
        router.get("/api/devices/:id/device-events") { request, context in
            try deviceEvents(request, device: try await readableDevice(request, context))
        }
        router.get("/api/devices/:id/rides") { request, context in
            try rides(request, device: try await readableDevice(request, context))
        }
        router.get("/api/devices/:id/export") { request, context in
            let device = try await readableDevice(request, context)
            let name = request.uri.queryParameters["format"].map(String.init) ?? "geojson"
            guard let format = ExportFormat(rawValue: name) else {
                throw ServerError(.badRequest, "unknown export format '\(name)'; expected gpx, geojson or csv")
            }
            return try export(request, device: device, format: format)
        }
    }

    /// The device in the path, if the caller may read it (admin, or the device itself).
    func readableDevice(_ request: Request, _ context: TrackingServer.Context) async throws -> DeviceRecord {
        let id = try context.parameters.require("id")
        let principal = try await auth.require(request)
        guard principal.mayRead(deviceID: id) else {
            throw ServerError(.forbidden, "a device token may read only its own device")
        }
        guard let device = try await store.device(id: id) else { throw ServerError(.notFound, "no device with id '\(id)'") }
        return device
    }

    /// `?from&to&limit&cursor`: one page in time order and the cursor of the next page.
    func positions(_ request: Request, device: DeviceRecord) async throws -> Response {
        let q = request.uri.queryParameters
        let limit = try pageLimit(request)
        let cursor = try q["cursor"].map { text -> Int64 in
            guard let n = Int64(text) else { throw ServerError(.badRequest, "cursor '\(text)' is not one this server issued") }
            return n
        }
        let (from, to) = try timeRange(request)
        let page = try await store.positions(PositionQuery(deviceID: device.id, from: from, to: to,
                                                           afterMillis: cursor, limit: limit))
        return JSONReply.response(encoding: PositionPage(positions: page.map(PositionReply.init(position:)),
                                                         nextCursor: page.count == limit ? String(page[page.count - 1].timestampMillis) : nil))
    }

    /// `?from&to&limit&cursor`: the device's gap markers by start time, and the cursor of the next page.
    func gaps(_ request: Request, device: DeviceRecord) async throws -> Response {
        let q = request.uri.queryParameters
        let limit = try pageLimit(request)
        let cursor = try q["cursor"].map { text -> GapQuery.Cursor in
            guard let cursor = GapQuery.Cursor(text) else {
                throw ServerError(.badRequest, "cursor '\(text)' is not one this server issued")
            }
            return cursor
        }
        let (from, to) = try timeRange(request)
        let page = try await store.gaps(GapQuery(deviceID: device.id, from: from, to: to, after: cursor, limit: limit))
        return JSONReply.response(encoding: GapPage(gaps: page, nextCursor: page.count == limit
                                                        ? page.last.map { GapQuery.Cursor(after: $0).text } : nil))
    }

    /// `{"gaps":[…],"next_cursor":"…"|null}`.
    struct GapPage: Encodable {
        var gaps: [PositionGap]
        var nextCursor: String?

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(gaps, forKey: .gaps)
            try c.encode(nextCursor, forKey: .nextCursor)
        }

        enum Key: String, CodingKey { case gaps, nextCursor = "next_cursor" }
    }

    /// A streamed export (`?format&from&to&gap`), read from the store page by page while writing.
    func export(_ request: Request, device: DeviceRecord, format: ExportFormat) throws -> Response {
        let (from, to) = try timeRange(request)
        let store = self.store
        let gap = try rideGap(request)
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: format.header(deviceName: device.name)))
            var after: Int64?
            var previous: Position?
            // GPX starts a new track segment at every stored gap marker (read page by page alongside).
            var markers = GapMarkerCursor(store: store, deviceID: device.id, from: from, to: to, enabled: format == .gpx)
            while true {
                let page = try await store.positions(PositionQuery(deviceID: device.id, from: from, to: to,
                                                                   afterMillis: after, limit: Self.streamPage))
                var chunk = ""
                for p in page {
                    let marked = try await markers.anyStart(before: p.fix.timestamp)
                    chunk += format.row(p, previous: previous, gapSeconds: gap, gapMarked: marked)
                    previous = p
                }
                if !chunk.isEmpty { try await writer.write(ByteBuffer(string: chunk)) }
                guard page.count == Self.streamPage, let last = page.last else { break }
                after = last.timestampMillis
            }
            try await writer.write(ByteBuffer(string: format.footer(wroteAny: previous != nil)))
            try await writer.finish(nil)
        }
        let filename = "\(device.id).\(format == .geojson ? "geojson" : format.rawValue)"
        return Response(status: .ok, headers: [
            .contentType: format.contentType,
            .contentDisposition: "attachment; filename=\"\(filename)\"",
        ], body: body)
    }

    /// The `limit` query parameter of a paged listing: 1…`maximum` (10000), `fallback` (1000) when absent.
    func pageLimit(_ request: Request, default fallback: Int = 1000, maximum: Int = 10_000) throws -> Int {
        guard let text = request.uri.queryParameters["limit"] else { return fallback }
        guard let n = Int(text), (1...maximum).contains(n) else {
            throw ServerError(.badRequest, "limit '\(text)' is not a number in 1…\(maximum)")
        }
        return n
    }

    /// The `gap` query parameter (seconds of pause that end a ride, at least ``minimumRideGapSeconds``), or the
    /// configured ride gap.
    func rideGap(_ request: Request) throws -> TimeInterval {
        guard let text = request.uri.queryParameters["gap"] else { return configuration.rideGapSeconds }
        guard let seconds = Double(text), seconds >= Self.minimumRideGapSeconds, seconds.isFinite else {
            throw ServerError(.badRequest, "gap '\(text)' is not a number of seconds of at least \(Int(Self.minimumRideGapSeconds))")
        }
        return seconds
    }

    /// The shortest `gap` accepted: a pause of under a second does not end a ride.
    static let minimumRideGapSeconds = 1.0

    /// `from` and `to` query parameters (ISO-8601 or epoch seconds/milliseconds).
    ///
    /// Hummingbird has already percent-decoded the value, so `%2B02:00` and a literal `+02:00` both
    /// arrive as an offset; form-style `+` for a space (`2025-06-15+10:00:00`) is tried second.
    func timeRange(_ request: Request) throws -> (Date?, Date?) {
        func parse(_ name: String) throws -> Date? {
            guard let text = request.uri.queryParameters[Substring(name)] else { return nil }
            guard let date = TimestampParser.date(from: String(text)) ?? TimestampParser.date(from: FormFields.decode(text)) else {
                throw ServerError(.badRequest, "\(name) '\(text)' is not an ISO-8601 date-time or epoch number")
            }
            return date
        }
        return (try parse("from"), try parse("to"))
    }
}
