import Foundation
import WaymarkGeo
import WaymarkSync

/// The wire formats `waymark send` speaks, each as the real client sends it.
enum SendFormat: String, CaseIterable, Sendable {
    /// Native batches (Overland-compatible GeoJSON) to `/api/ingest` with `Idempotency-Key`.
    case native
    /// OwnTracks HTTP mode: one JSON location per `POST /pub`, Basic auth (password = token).
    case owntracks
    /// OsmAnd protocol as Traccar Client sends it: a `POST /?id=TOKEN&lat=…` query string
    /// (`UploadFormat.traccar()`: time in milliseconds, speed in knots).
    case osmand
    /// Traccar Client JSON body: `POST /` with `{"location":{…},"device_id":TOKEN}`.
    case traccar

    /// Points per request: the native client batches, the others send one point each.
    func pointsPerRequest(batch: Int) -> Int { self == .native ? batch : 1 }

    /// The HTTP request for `fixes` (one, or a batch for native). The native, OwnTracks and OsmAnd
    /// requests are the phone's own (`UploadFormat`, WaymarkTransport), so `waymark send` speaks them
    /// exactly as an app built on Waymark does.
    func request(for fixes: [Fix], token: String, server: String, key: String) -> SendRequest {
        switch self {
        case .native:
            return Self.request(UploadFormat.native(), fixes: fixes, token: token, url: server + "/api/ingest", key: key)
        case .owntracks:
            // Valid names, checked once: cannot throw.
            let format = (try? UploadFormat.owntracks(user: "waymark", device: "send", trackerID: "wm")) ?? .native()
            return Self.request(format, fixes: fixes, token: token, url: server + "/pub", key: key)
        case .osmand:
            return Self.request(.traccar(), fixes: fixes, token: token, url: server + "/", key: key)
        case .traccar:
            let fix = fixes[0]
            var coords: [String: Any] = ["latitude": fix.coordinate.latitude, "longitude": fix.coordinate.longitude]
            if let a = fix.horizontalAccuracy { coords["accuracy"] = a }
            if let v = fix.speed { coords["speed"] = v }
            if let c = fix.course { coords["heading"] = c }
            if let a = fix.altitude { coords["altitude"] = a }
            let location: [String: Any] = ["timestamp": Self.iso8601(fix.timestamp), "coords": coords, "is_moving": true,
                                           "battery": ["level": 0.8, "is_charging": false], "activity": ["type": "on_bicycle"]]
            return SendRequest(url: server + "/", body: Self.json(["location": location, "device_id": token]),
                               headers: [("Content-Type", "application/json")])
        }
    }

    /// The phone's request in `format` for `fixes`, posted to `url`.
    static func request(_ format: UploadFormat, fixes: [Fix], token: String, url: String, key: String) -> SendRequest {
        let request = format.request(fixes: fixes, key: key, token: token)
        return SendRequest(url: request.url(appendingQueryTo: url), body: request.body,
                           headers: request.headerFields.map { ($0.name, $0.value) })
    }

    static func json(_ object: [String: Any]) -> [UInt8] {
        Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
    }

    static func number(_ value: Double) -> String { String(format: "%.7g", value) }

    static func iso8601(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}

/// One HTTP POST that `waymark send` makes.
struct SendRequest: Sendable {
    var url: String
    var body: [UInt8]
    var headers: [(String, String)]
}
