import Foundation
import Hummingbird
import NIOCore
import WaymarkGeo

/// The paged listings whose entries can be large or many: rides and device events. Each page has a hard
/// maximum (entries, and bytes for device events) and is written to the connection in pieces, never built
/// as one Foundation object graph.
extension Routes {
    /// Most bytes of device-event records one page carries: a page stops after the record that passes it
    /// (and `next_after` continues from there).
    static let deviceEventPageBytes = 8 << 20
    /// Most device events per page (a record may hold 64 KiB).
    static let maxDeviceEventLimit = 1000
    /// Device events read from the store at a time while a page is written.
    static let deviceEventBatch = 50

    /// `GET /api/devices/{id}/device-events?after=ID&limit=N&kind=K` (limit 1–1000, default 100): the device's
    /// records without a position (``DeviceEventRecord``), oldest first, only those of kind `K` when given
    /// (`waymark.fence_event`: the geofence events the device reported):
    /// `{"device_events":[{"detail","device_id","id","kind","received","time"}],"next_after":ID|null}`.
    /// Each stored `detail` is JSON text and is written as it is stored, without being parsed. A page ends at
    /// `limit` records or after the record that passes ``deviceEventPageBytes``; `next_after` is then set.
    /// With `format=csv` every record after `after` is exported instead, streamed page by page
    /// (``deviceEventsCSV(device:kind:after:)``).
    func deviceEvents(_ request: Request, device: DeviceRecord) throws -> Response {
        let afterText = request.uri.queryParameters["after"].map(String.init) ?? "0"
        guard let after = Int64(afterText), after >= 0 else {
            throw ServerError(.badRequest, "after '\(afterText)' is not an event id (a whole number, 0 or more)")
        }
        let kind = request.uri.queryParameters["kind"].map(String.init)
        if let kind, !ClientText.fits(kind, maxBytes: 100) {
            throw ServerError(.badRequest, "kind must have 1 to 100 bytes, e.g. \(DeviceEventRecord.deviceFenceEventKind)")
        }
        switch request.uri.queryParameters["format"].map(String.init) {
        case nil, "json": break
        case "csv": return deviceEventsCSV(device: device, kind: kind, after: after)
        case let other?: throw ServerError(.badRequest, "unknown format '\(ClientText.truncated(other, maxBytes: 64))'; expected json or csv")
        }
        let limit = try pageLimit(request, default: 100, maximum: Self.maxDeviceEventLimit)
        let store = self.store
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: #"{"device_events":["#))
            var cursor = after, written = 0, bytes = 0, more = false
            while true {
                let wanted = min(Self.deviceEventBatch, limit - written)
                let batch = try await store.deviceEvents(deviceID: device.id, kind: kind, afterID: cursor, limit: wanted)
                var chunk = ByteBuffer()
                for record in batch {
                    if written > 0 { chunk.writeString(",") }
                    bytes += Self.writeDeviceEvent(record, to: &chunk)
                    written += 1
                    cursor = record.id
                    if bytes >= Self.deviceEventPageBytes { more = true; break }
                }
                if chunk.readableBytes > 0 { try await writer.write(chunk) }
                if more || batch.count < wanted { break }       // the byte budget is spent, or nothing more is stored
                if written == limit { more = true; break }       // a full page: the next one may hold more
            }
            try await writer.write(ByteBuffer(string: "],\"next_after\":" + (more ? String(cursor) : "null") + "}"))
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: body)
    }

    /// The CSV export of a device's records (of `kind`, when given) after `after`, oldest first, read from the
    /// store ``streamPage`` at a time while it is written:
    /// `id,kind,time,received,fence_id,event,latitude,longitude,timing,sequence,detail`. The fence columns are
    /// filled for the geofence events a Waymark device reported and empty for other records; `detail` is the
    /// record's JSON text, neutralised like every text cell (`ExportFormat.csvTextCell`).
    func deviceEventsCSV(device: DeviceRecord, kind: String?, after: Int64) -> Response {
        let store = self.store
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: "id,kind,time,received,fence_id,event,latitude,longitude,timing,sequence,detail\n"))
            var cursor = after
            while true {
                let page = try await store.deviceEvents(deviceID: device.id, kind: kind, afterID: cursor, limit: Self.streamPage)
                var chunk = ""
                for record in page { chunk += Self.csvRow(record) }
                if !chunk.isEmpty { try await writer.write(ByteBuffer(string: chunk)) }
                guard let last = page.last, page.count == Self.streamPage else { break }
                cursor = last.id
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [
            .contentType: "text/csv; charset=utf-8",
            .contentDisposition: "attachment; filename=\"\(device.id)-device-events.csv\"",
        ], body: body)
    }

    /// One CSV row of ``deviceEventsCSV(device:kind:after:)``.
    static func csvRow(_ record: DeviceEventRecord) -> String {
        var fence: [String] = Array(repeating: "", count: 6)
        if let e = record.reportedFenceEvent {
            fence = [ExportFormat.csvTextCell(e.fenceID), ExportFormat.csvTextCell(e.event), e.latitude.map { String($0) } ?? "",
                     e.longitude.map { String($0) } ?? "", ExportFormat.csvTextCell(e.timing ?? ""), e.sequence.map(String.init) ?? ""]
        }
        let cells = [String(record.id), ExportFormat.csvTextCell(record.kind), record.time.map(TimestampParser.format) ?? "",
                     TimestampParser.format(record.receivedAt)] + fence + [ExportFormat.csvTextCell(record.detail)]
        return cells.joined(separator: ",") + "\n"
    }

    /// Appends one record as `{"detail":…,"device_id","id","kind","received","time"}`; returns its bytes. A
    /// detail that is not JSON text (a record written through the library with arbitrary text) is written as
    /// a JSON string instead.
    static func writeDeviceEvent(_ record: DeviceEventRecord, to buffer: inout ByteBuffer) -> Int {
        let start = buffer.writerIndex
        buffer.writeString(#"{"detail":"#)
        if JSONText.isValid(record.detail) {
            buffer.writeString(record.detail)
        } else {
            buffer.writeString(JSONText.quoted(record.detail))
        }
        buffer.writeString(#","device_id":"# + JSONText.quoted(record.deviceID))
        buffer.writeString(#","id":"# + String(record.id))
        buffer.writeString(#","kind":"# + JSONText.quoted(record.kind))
        buffer.writeString(#","received":""# + TimestampParser.format(record.receivedAt) + "\"")
        buffer.writeString(#","time":"# + (record.time.map { "\"" + TimestampParser.format($0) + "\"" } ?? "null") + "}")
        return buffer.writerIndex - start
    }

    /// `GET /api/devices/{id}/rides?from&to&gap&limit&cursor`: rides split at pauses longer than `gap` seconds
    /// (at least 1), at most `limit` (1–10000, default 1000) per page, oldest first:
    /// `{"gap_s":600,"next_cursor":"MS"|null,"rides":[{"distance_m","end","points","start"}]}`. `next_cursor` is
    /// the start (milliseconds) of the next page's first ride; pass it back as `cursor`. Positions are read page
    /// by page, so memory stays bounded by `limit` whatever the range holds.
    func rides(_ request: Request, device: DeviceRecord) throws -> Response {
        let (from, to) = try timeRange(request)
        let gap = try rideGap(request)
        let limit = try pageLimit(request)
        let cursor = try request.uri.queryParameters["cursor"].map { text -> Int64 in
            guard let n = Int64(text), n > Int64.min else { throw ServerError(.badRequest, "cursor '\(text)' is not one this server issued") }
            return n
        }
        let store = self.store
        let body = ResponseBody { writer in
            var splitter = RideSplitter(gapSeconds: gap)
            var rides: [RideSummary] = []
            var next: Date?
            var after = cursor.map { $0 - 1 }
            scan: while true {
                let page = try await store.positions(PositionQuery(deviceID: device.id, from: from, to: to,
                                                                   afterMillis: after, limit: Self.streamPage))
                for p in page {
                    splitter.add(p)
                    rides += splitter.takeFinished()
                    if rides.count == limit, let started = splitter.inProgress {
                        next = started.start    // the first ride of the next page has begun
                        break scan
                    }
                }
                guard page.count == Self.streamPage, let last = page.last else { break }
                after = last.timestampMillis
            }
            if next == nil, rides.count < limit, let open = splitter.inProgress { rides.append(open) }
            let nextText = next.map { "\"\($0.millisecondsSince1970)\"" } ?? "null"
            try await writer.write(ByteBuffer(string: "{\"gap_s\":\(JSONText.number(gap)),\"next_cursor\":\(nextText),\"rides\":["))
            for start in stride(from: 0, to: rides.count, by: 500) {
                let part = rides[start..<min(start + 500, rides.count)].map { ride in
                    "{\"distance_m\":\(JSONText.number(ride.distanceMeters)),\"end\":\"\(TimestampParser.format(ride.end))\","
                        + "\"points\":\(ride.points),\"start\":\"\(TimestampParser.format(ride.start))\"}"
                }
                try await writer.write(ByteBuffer(string: (start > 0 ? "," : "") + part.joined(separator: ",")))
            }
            try await writer.write(ByteBuffer(string: "]}"))
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: body)
    }
}
