import Foundation
import WaymarkGeo
import WaymarkSync

/// The wire formats `waymark send` speaks, each as the real client sends it.
enum SendFormat: String, CaseIterable, Sendable {
    /// Native batches (Overland-compatible GeoJSON) to `/api/ingest` with `Idempotency-Key`.
    case native
    /// OwnTracks HTTP mode: one JSON location per `POST /pub`, Basic auth (password = token).
    case owntracks
    /// OsmAnd protocol as Traccar Client sends it: a `POST /?id=TOKEN&lat=…` query string.
    case osmand
    /// Traccar Client JSON body: `POST /` with `{"location":{…},"device_id":TOKEN}`.
    case traccar

    /// Points per request: the native client batches, the others send one point each.
    func pointsPerRequest(batch: Int) -> Int { self == .native ? batch : 1 }

    /// The HTTP request for `fixes` (one, or a batch for native).
    func request(for fixes: [Fix], token: String, server: String, key: String) -> SendRequest {
        switch self {
        case .native:
            return SendRequest(url: server + "/api/ingest", body: NativeBatchFormat().body(for: fixes),
                               headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json"),
                                         ("Idempotency-Key", key)])
        case .owntracks:
            let fix = fixes[0]
            var object: [String: Any] = ["_type": "location", "tid": "wm", "lat": fix.coordinate.latitude,
                                         "lon": fix.coordinate.longitude, "tst": Int(fix.timestamp.timeIntervalSince1970)]
            if let a = fix.horizontalAccuracy { object["acc"] = Int(a.rounded()) }
            if let a = fix.altitude { object["alt"] = Int(a.rounded()) }
            if let v = fix.speed { object["vel"] = Int((v * 3.6).rounded()) }   // km/h, as OwnTracks sends it
            if let c = fix.course { object["cog"] = Int(c.rounded()) }
            let basic = Data("waymark:\(token)".utf8).base64EncodedString()
            return SendRequest(url: server + "/pub", body: Self.json(object),
                               headers: [("Authorization", "Basic \(basic)"), ("Content-Type", "application/json"),
                                         ("X-Limit-U", "waymark"), ("X-Limit-D", "send")])
        case .osmand:
            let fix = fixes[0]
            var items = [("id", token), ("lat", Self.number(fix.coordinate.latitude)), ("lon", Self.number(fix.coordinate.longitude)),
                         ("timestamp", String(Int(fix.timestamp.timeIntervalSince1970)))]
            if let v = fix.speed { items.append(("speed", Self.number(v / 0.514444))) }   // knots
            if let c = fix.course { items.append(("bearing", Self.number(c))) }
            if let a = fix.altitude { items.append(("altitude", Self.number(a))) }
            if let a = fix.horizontalAccuracy { items.append(("accuracy", Self.number(a))) }
            var components = URLComponents()
            components.queryItems = items.map { URLQueryItem(name: $0.0, value: $0.1) }
            return SendRequest(url: server + "/?" + (components.percentEncodedQuery ?? ""), body: [], headers: [])
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
