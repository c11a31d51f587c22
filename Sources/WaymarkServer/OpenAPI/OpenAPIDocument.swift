import Foundation
import WaymarkGeo

/// The OpenAPI 3.1 document of every HTTP route, served at `GET /openapi.json`.
///
/// Written by hand next to the routes; `OpenAPIParityTests` fail when a route of
/// ``TrackingServer/makeRouter(configuration:store:metrics:feed:webhooks:)`` and the document disagree,
/// and CI runs schemathesis against a live server with it (`Scripts/check_openapi.sh`). Docs/SERVER.md
/// explains each route in prose.
public enum OpenAPIDocument {
    /// The document as compact JSON with sorted keys.
    public static let json: Data = {
        (try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
    }()

    /// Every `(method, path)` the document describes, paths in OpenAPI form (`/api/devices/{id}`).
    public static var operations: [(method: String, path: String)] {
        paths.flatMap { path, item in
            (item as? Object ?? [:]).keys.map { (method: $0.uppercased(), path: path) }
        }.sorted { ($0.path, $0.method) < ($1.path, $1.method) }
    }

    static var document: Object {
        [
            "openapi": "3.1.0",
            "info": [
                "title": "Waymark tracking server",
                "version": WaymarkVersion.current,
                "description": "Ingest from phones (native/Overland, OwnTracks, OsmAnd, Traccar Client, GPX), queries, exports, "
                    + "fences, webhooks. Prose reference: Docs/SERVER.md.",
            ] as Object,
            "components": [
                "schemas": schemas,
                "securitySchemes": [
                    "bearer": ["type": "http", "scheme": "bearer", "description": "A device token or the admin token."],
                    "basic": ["type": "http", "scheme": "basic", "description": "OwnTracks: the device token as the password."],
                    "token": ["type": "apiKey", "in": "query", "name": "token",
                              "description": "A device token in the URL (Overland's URL setting); the admin token is refused here."],
                ] as Object,
            ] as Object,
            "security": [["bearer": [String]()], ["basic": [String]()], ["token": [String]()]],
            "paths": paths,
        ]
    }

    // MARK: building blocks

    static func content(_ type: String, _ schema: Object) -> Object { ["content": [type: ["schema": schema]]] }

    static func reply(_ description: String, _ schema: Object, type: String = "application/json") -> Object {
        ["description": description].merging(content(type, schema)) { $1 }
    }

    static var noContent: Object { ["description": "Done; no body."] }

    /// The `Retry-After` header of a 429 or 503 reply: whole seconds to wait.
    static var retryAfterHeader: Object {
        ["Retry-After": ["required": true, "description": "Whole seconds to wait before trying again.",
                         "schema": ["type": "integer", "minimum": 1]] as Object]
    }

    /// The 429 every operation may answer: the rate limit per address (every route) or per device (every request
    /// a device token authenticates); `extra` describes an operation's own 429 (live streams).
    static func rateLimited(_ extra: String = "") -> Object {
        var answer = reply(extra + "Rate limited (code `tooManyRequests`): more requests than the limit per address (every "
                           + "request from one IPv4 address or IPv6 /64; `--rate-limit-per-address`, 1,000 a second in bursts "
                           + "of 20,000 by default) or per device (every request a device token authenticates; "
                           + "`--rate-limit-per-device`, 100 a second in bursts of 3,000 by default). The message names the "
                           + "limit; `Retry-After` says when a request will be admitted again. Nothing of the request was "
                           + "stored.", ref("Error"))
        answer["headers"] = retryAfterHeader
        return answer
    }

    /// An operation; every one also answers 429 (``rateLimited(_:)``) and the shared error shape (any 4xx, 500, 503).
    static func operation(_ summary: String, tag: String, parameters: [Object] = [], body: Object? = nil,
                          responses: Object, isPublic: Bool = false) -> Object {
        var all = responses
        if all["429"] == nil { all["429"] = rateLimited() }
        all["default"] = reply("An error (Docs/SERVER.md §3).", ref("Error"))
        var op: Object = ["summary": summary, "tags": [tag], "parameters": parameters, "responses": all]
        if let body { op["requestBody"] = body }
        if isPublic { op["security"] = [Object]() }
        return op
    }

    static func query(_ name: String, _ schema: Object, _ description: String) -> Object {
        ["name": name, "in": "query", "required": false, "schema": schema, "description": description]
    }

    static var deviceID: Object { pathID("A device id.") }
    /// The `{id}` of a path, a string.
    static func pathID(_ description: String) -> Object {
        ["name": "id", "in": "path", "required": true, "schema": string, "description": description]
    }
    static var timeRange: [Object] {
        [query("from", string, "Inclusive start: ISO-8601 or epoch seconds/milliseconds."),
         query("to", string, "Exclusive end: ISO-8601 or epoch seconds/milliseconds.")]
    }
    static var limit: Object { query("limit", ["type": "integer", "minimum": 1, "maximum": 10_000], "Page size (1000 when absent).") }
    static var rideGap: Object { query("gap", ["type": "number", "minimum": 1], "Seconds without points that split rides (at least 1).") }

    static func jsonBody(_ schema: Object, required: Bool = true) -> Object {
        ["required": required].merging(content("application/json", schema)) { $1 }
    }

    /// The OsmAnd protocol's fields, in the query or a form body.
    static var osmAndFields: [Object] { [
        ("id", "The device token (also `deviceid`)."), ("deviceid", "The device token."), ("lat", "Latitude, degrees."),
        ("lon", "Longitude, degrees."), ("location", "`LAT,LON`."), ("timestamp", "Epoch s/ms, ISO-8601 or `yyyy-MM-dd HH:mm:ss`."),
        ("speed", "Knots."), ("speed_mps", "Metres per second."), ("bearing", "Degrees."), ("altitude", "Metres."),
        ("accuracy", "Metres; 0 is unknown."), ("batt", "Percent."), ("charge", "true/false."),
        ("tst", "Epoch seconds (Colota)."), ("vel", "Metres per second (Colota)."), ("acc", "Metres (Colota); 0 is unknown."),
        ("alt", "Metres (Colota)."), ("bear", "Degrees (Colota)."),
        ("bs", "Battery status (Colota, as OwnTracks): 0 unknown, 1 unplugged, 2 charging, 3 full; wins over `charge`."),
    ].map { query($0.0, string, $0.1) } }
}
