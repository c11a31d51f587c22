import Foundation

extension OpenAPIDocument {
    typealias Object = [String: Any]

    /// A reference to a schema of `components.schemas`.
    static func ref(_ name: String) -> Object { ["$ref": "#/components/schemas/\(name)"] }

    /// A JSON Schema type that may also be null.
    static func nullable(_ type: String, _ extra: Object = [:]) -> Object {
        extra.merging(["type": [type, "null"]]) { $1 }
    }

    static func object(_ properties: Object, required: [String]? = nil, description: String? = nil) -> Object {
        var schema: Object = ["type": "object", "properties": properties, "required": required ?? Array(properties.keys).sorted()]
        if let description { schema["description"] = description }
        return schema
    }

    static var string: Object { ["type": "string"] }
    static var integer: Object { ["type": "integer"] }
    static var number: Object { ["type": "number"] }
    static var boolean: Object { ["type": "boolean"] }
    static var dateTime: Object { ["type": "string", "format": "date-time"] }
    static func array(_ items: Object) -> Object { ["type": "array", "items": items] }

    /// The reusable schemas: the shapes of every reply (``Routes``) and of the bodies the routes read.
    static var schemas: Object {
        [
            "Error": object([
                "error": object([
                    "code": string, "message": string,
                    "problems": array(ref("PointProblem")), "rejected_count": integer,
                    "rejected_by_field": ["type": "object", "additionalProperties": integer],
                ], required: ["code", "message"]),
            ], description: "Every error a route raises; `problems` and the counts only for 422."),
            "PointProblem": object(["index": integer, "field": string, "message": string]),
            "Position": object([
                "device_id": string, "timestamp": dateTime, "lat": number, "lon": number,
                "altitude": nullable("number"), "accuracy": nullable("number"), "vertical_accuracy": nullable("number"),
                "speed": nullable("number"), "course": nullable("number"), "battery": nullable("number"),
                "charging": nullable("boolean"), "activity": nullable("string"), "source": string,
                "simulated_by_software": nullable("boolean", ["description": "iOS's CLLocationSourceInformation."
                    + "isSimulatedBySoftware (a mock-location app); null when the device did not report the fix's origin."]),
                "produced_by_accessory": nullable("boolean", ["description": "iOS's CLLocationSourceInformation."
                    + "isProducedByAccessory (an external GNSS receiver); null when the device did not report the fix's origin."]),
                "impossible_speed": ["type": "boolean", "description": "The device flagged the fix as implying an impossible "
                    + "speed from the fix before it: kept, but no part of distances, and it causes no fence event."],
            ]),
            "Device": object([
                "id": string, "name": string, "created": dateTime, "revoked": nullable("string", ["format": "date-time"]),
                "last": ["oneOf": [ref("Position"), ["type": "null"]]], "token": string,
            ], required: ["id", "name", "created", "revoked"],
               description: "`last` in lists; `token` only in the reply that registered the device."),
            "IngestReply": object([
                "result": ["const": "ok"], "stored": integer, "duplicates": integer, "replayed": boolean, "gaps": integer,
                "device_events": integer, "rejected": array(ref("PointProblem")), "rejected_count": integer,
                "rejected_by_field": ["type": "object", "additionalProperties": integer], "events": array(ref("FenceEvent")),
            ]),
            "FenceEvent": object([
                "id": integer, "device_id": string, "fence_id": string, "kind": ["enum": ["enter", "exit", "dwell"]],
                "timestamp": dateTime, "lat": number, "lon": number,
            ]),
            "Gap": object(["device_id": string, "ride_id": nullable("string"), "start": dateTime, "end": dateTime, "reason": string]),
            "DeviceEvent": object([
                "id": integer, "device_id": string, "kind": string, "time": nullable("string", ["format": "date-time"]),
                "received": dateTime, "detail": ["description": "The record as the client sent it (usually an object)."],
            ]),
            "Ride": object(["start": dateTime, "end": dateTime, "points": integer, "distance_m": number]),
            "FenceFeature": object([
                "type": ["const": "Feature"], "id": string,
                "properties": object(["name": string, "dwellSeconds": nullable("number"), "radiusMeters": number],
                                     required: ["name", "dwellSeconds"]),
                "geometry": object(["type": ["enum": ["Point", "Polygon"]], "coordinates": ["type": "array"]]),
            ]),
            "FenceCollection": object([
                "type": ["const": "FeatureCollection"], "features": array(ref("FenceFeature")), "next": string,
            ], required: ["type", "features"]),
            "Webhook": object(["id": string, "url": string, "created": dateTime, "secret": string],
                              required: ["id", "url", "created"], description: "`secret` only in the reply that created it."),
            "Delivery": object([
                "id": integer, "webhook_id": string, "event_id": integer, "state": ["enum": ["pending", "delivered", "dead"]],
                "attempts": integer, "next_attempt": dateTime, "last_error": nullable("string"), "payload": string,
            ]),
            "NativeBatch": object([
                "locations": array(["type": "object", "description": "A GeoJSON Feature: a Point fix, a gap marker, or an Overland record. "
                    + "A Waymark fix's properties may add the booleans simulated_by_software, produced_by_accessory (its origin as "
                    + "iOS reported it; absent when unknown) and impossible_speed (flagged by the device's filter)."]),
            ], required: ["locations"], description: "Overland's GeoJSON batch, Waymark's native upload format."),
        ]
    }
}
