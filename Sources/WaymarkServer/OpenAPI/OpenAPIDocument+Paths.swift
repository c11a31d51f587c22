import Foundation

extension OpenAPIDocument {
    /// Every route of ``TrackingServer/makeRouter(configuration:store:metrics:feed:webhooks:)``.
    static var paths: Object {
        let ingestReply = reply("Stored (Docs/SERVER.md §3).", ref("IngestReply"))
        let error = ref("Error")
        let tooLarge = reply("Too large (code `payloadTooLarge`): the body, its entries or JSON values, or the fence events it "
                             + "would cause (more than 10,000 per request or 200 per point by default); nothing was stored. "
                             + "The message names the limit.", error)
        let unprocessable = reply("Nothing valid (code `noValidPoint`, with `problems`), or an `Idempotency-Key` this device "
                                  + "already used with a different body or route (code `idempotencyKeyReused`, naming the key); "
                                  + "nothing was stored.", error)
        var busy = reply("Busy (code `busy`): more large bodies wait to be decoded (past 16), or more large uploads (over 500 "
                         + "entries) wait for their turn to be written (past 16), than the server queues; nothing was stored. "
                         + "Retry after `Retry-After` seconds.", error)
        busy["headers"] = retryAfterHeader
        let osmAnd = operation("OsmAnd protocol (query string)", tag: "ingest", parameters: osmAndFields,
                               responses: ["200": ingestReply])
        let osmAndPost = operation(
            "OsmAnd protocol (form body), Traccar Client JSON or a flat JSON point", tag: "ingest", parameters: osmAndFields,
            body: ["required": false, "content": [
                "application/x-www-form-urlencoded": ["schema": ["type": "object", "additionalProperties": string]],
                "application/json": ["schema": ["oneOf": [
                    ["type": "object", "required": ["location"], "description": "Traccar Client: {\"location\":{…},\"device_id\":TOKEN}"],
                    ["type": "array", "items": ["type": "object"], "description": "The Traccar SDK's flat OsmAnd objects."],
                    ["type": "object", "required": ["lat", "lon"], "not": ["required": ["location"]],
                     "description": "One point as a flat object of the query's field names (Colota's field-mapped JSON)."],
                ]]],
            ] as Object],
            responses: ["200": ingestReply, "503": busy])
        var root = osmAnd
        root["summary"] = "The dashboard (no device fields or credentials), else the OsmAnd protocol"
        root["responses"] = (root["responses"] as? Object ?? [:]).merging([
            "200": ["description": "The dashboard page, or the ingest reply.", "content": [
                "text/html": ["schema": string], "application/json": ["schema": ref("IngestReply")],
            ] as Object],
        ]) { $1 }
        return [
            "/": ["get": root, "post": osmAndPost],
            "/osmand": ["get": osmAnd, "post": osmAndPost],
            "/pub": ["post": operation(
                "OwnTracks HTTP mode: one message or an array", tag: "ingest",
                body: jsonBody(["oneOf": [["type": "object", "required": ["_type"]], ["type": "array", "items": ["type": "object"]]]]),
                responses: ["200": reply("Accepted; rejected points in `X-Waymark-Rejected`.", ["type": "array"]), "503": busy])],
            "/api/ingest": ["post": operation(
                "Native and Overland batches", tag: "ingest",
                parameters: [["name": "Idempotency-Key", "in": "header", "required": false,
                              "schema": ["type": "string", "minLength": 1, "maxLength": 200]]],
                body: jsonBody(ref("NativeBatch")), responses: ["200": ingestReply, "413": tooLarge, "422": unprocessable, "503": busy])],
            "/api/devices/{id}/gpx": ["post": operation(
                "Upload a GPX file's track points", tag: "ingest", parameters: [deviceID, query("name", string, "The file's name.")],
                body: ["required": true, "content": ["application/gpx+xml": ["schema": string]]],
                responses: ["200": ingestReply, "413": tooLarge, "422": unprocessable, "503": busy])],
            "/api/devices": [
                "get": operation("Devices by id, a page at a time (the admin: all; a device: itself), each with its last position",
                                 tag: "devices",
                                 parameters: [query("limit", ["type": "integer", "minimum": 1, "maximum": 1_000], "Page size (1000 when absent)."),
                                              query("after", string, "`next_after` of the previous page.")],
                                 responses: ["200": reply("One page, streamed: at most `limit` devices, ending after the device that "
                                                          + "passes 8 MiB; `next_after` is null on the last page.",
                                                          object(["devices": array(ref("Device")), "next_after": nullable("string")]))]),
                "post": operation("Register a device (admin); the token is shown once", tag: "devices",
                                  body: jsonBody(object(["name": ["type": "string", "minLength": 1]])),
                                  responses: ["201": reply("The device and its token.", ref("Device"))]),
            ],
            "/api/devices/{id}": ["delete": operation("Revoke a device (admin)", tag: "devices", parameters: [deviceID],
                                                      responses: ["204": noContent])],
            "/api/devices/{id}/last": ["get": operation("The latest position", tag: "query", parameters: [deviceID],
                                                        responses: ["200": reply("The position.", ref("Position"))])],
            "/api/devices/{id}/positions": ["get": operation(
                "Positions in time order, a page at a time", tag: "query",
                parameters: [deviceID] + timeRange + [limit, query("cursor", string, "`next_cursor` of the previous page.")],
                responses: ["200": reply("One page.", object(["positions": array(ref("Position")), "next_cursor": nullable("string")]))])],
            "/api/devices/{id}/gaps": ["get": operation(
                "Gap markers by start time", tag: "query",
                parameters: [deviceID] + timeRange + [limit, query("cursor", string, "`next_cursor` of the previous page.")],
                responses: ["200": reply("One page.", object(["gaps": array(ref("Gap")), "next_cursor": nullable("string")]))])],
            "/api/devices/{id}/device-events": ["get": operation(
                "Records the device reported without a position: its own geofence events (kind `waymark.fence_event`, apart "
                + "from the events the server decides), OwnTracks transitions, Overland visits, heartbeats, rejected points",
                tag: "query",
                parameters: [deviceID, query("limit", ["type": "integer", "minimum": 1, "maximum": 1_000], "Page size (100 when absent)."),
                             query("after", ["type": "integer", "minimum": 0], "`next_after` of the previous page."),
                             query("kind", ["type": "string", "minLength": 1, "maxLength": 100],
                                   "Only records of this kind, e.g. `waymark.fence_event`."),
                             query("format", ["enum": ["json", "csv"]],
                                   "json (paged) when absent; csv exports every record after `after`, streamed.")],
                responses: ["200": ["description": "One page, streamed: at most `limit` records, ending after the record that passes "
                                    + "8 MiB; `next_after` is set when more may follow. With `format=csv`: "
                                    + "`id,kind,time,received,fence_id,event,latitude,longitude,timing,sequence,detail`.",
                                    "content": [
                                        "application/json": ["schema": object(["device_events": array(ref("DeviceEvent")),
                                                                               "next_after": nullable("integer")])],
                                        "text/csv": ["schema": string],
                                    ] as Object]])],
            "/api/devices/{id}/rides": ["get": operation(
                "Rides: positions split at pauses, a page at a time", tag: "query",
                parameters: [deviceID] + timeRange + [rideGap, limit,
                             query("cursor", ["type": "string", "pattern": "^-?[0-9]{1,19}$"], "`next_cursor` of the previous page.")],
                responses: ["200": reply("One page of at most `limit` rides, oldest first, streamed; `next_cursor` is the start "
                                         + "(ms) of the next page's first ride, or null.",
                                         object(["rides": array(ref("Ride")), "gap_s": number, "next_cursor": nullable("string")]))])],
            "/api/devices/{id}/export": ["get": operation(
                "Export positions", tag: "query",
                parameters: [deviceID] + timeRange + [rideGap, query("format", ["enum": ["gpx", "geojson", "csv"]], "geojson when absent.")],
                responses: ["200": ["description": "The file, streamed.", "content": [
                    "application/gpx+xml": ["schema": string], "application/geo+json": ["schema": ["type": "object"]],
                    "text/csv": ["schema": string],
                ] as Object]])],
            "/api/fences": [
                "get": operation("Fences by id, a page at a time; conditional with the fence set's ETag", tag: "fences",
                                 parameters: [limit, query("after", string, "`next` of the previous page."),
                                              ["name": "If-None-Match", "in": "header", "required": false, "schema": string,
                                               "description": "The `ETag` of an earlier page: 304 while the fences are unchanged."]],
                                 responses: ["200": reply("One page, streamed: at most `limit` fences, ending after the fence that "
                                                          + "passes 8 MiB; `next` is absent on the last page. `ETag` is the fence "
                                                          + "set's version (`\"fences-N\"`).", ref("FenceCollection"))
                                                .merging(["headers": ["ETag": ["schema": string] as Object] as Object]) { $1 },
                                             "304": ["description": "The fences are unchanged since that ETag; no body.",
                                                     "headers": ["ETag": ["schema": string] as Object] as Object]]),
                "post": operation("Add or replace fences (admin): a GeoJSON Feature, FeatureCollection or circle shorthand",
                                  tag: "fences", body: jsonBody(["type": "object"]),
                                  responses: ["201": reply("The stored fences.", ref("FenceCollection")),
                                              "400": reply("A bad fence, named (code `badRequest`): e.g. a polygon with more than "
                                                           + "10,000 vertices in all its rings or more than 100 holes.", error)]),
            ],
            "/api/fences/{id}": ["delete": operation("Delete a fence (admin)", tag: "fences", parameters: [pathID("A fence id.")],
                                                     responses: ["204": noContent])],
            "/api/events": ["get": operation(
                "Fence events by id", tag: "fences",
                parameters: [query("device", string, "Only this device's (a device sees only its own)."),
                             query("after", ["type": "integer"], "Events with a larger id (`next_after` of the previous page)."),
                             limit],
                responses: ["200": reply("One page, oldest first, streamed: at most `limit` events, ending after the event that "
                                         + "passes 8 MiB; `next_after` is null on the last page.",
                                         object(["events": array(ref("FenceEvent")), "next_after": nullable("integer")]))])],
            "/api/webhooks": [
                "get": operation("Webhook subscriptions by id (admin), a page at a time", tag: "webhooks",
                                 parameters: [query("limit", ["type": "integer", "minimum": 1, "maximum": 32], "Page size (32, the cap "
                                                    + "on subscriptions, when absent)."),
                                              query("after", string, "`next_after` of the previous page.")],
                                 responses: ["200": reply("One page; `next_after` is null on the last page.",
                                                          object(["webhooks": array(ref("Webhook")), "next_after": nullable("string")]))]),
                "post": operation("Subscribe a URL to fence events (admin): those the server decides (`type` `fence.KIND`) and "
                                  + "those a device reports (`type` `device.fence.KIND`, `source` `device`)", tag: "webhooks",
                                  body: jsonBody(object(["url": string, "secret": string], required: ["url"])),
                                  responses: ["201": reply("The subscription and its secret.", ref("Webhook")),
                                              "400": reply("A refused destination, named (code `badRequest`), or 32 webhooks "
                                                           + "already exist, the limit.", error)]),
            ],
            "/api/webhooks/{id}": ["delete": operation("Remove a subscription (admin)", tag: "webhooks",
                                                       parameters: [pathID("A webhook id.")],
                                                       responses: ["204": noContent])],
            "/api/webhooks/deliveries": ["get": operation(
                "Deliveries of the outbox (admin)", tag: "webhooks",
                parameters: [query("state", ["enum": ["pending", "delivered", "dead"]], "Only this state."),
                             query("limit", ["type": "integer", "minimum": 1, "maximum": 10_000], "100 when absent."),
                             query("before", ["type": "integer", "minimum": 1], "`next_before` of the previous page.")],
                responses: ["200": reply("One page, newest first, streamed: at most `limit` deliveries, ending after the delivery "
                                         + "that passes 8 MiB; `next_before` is null on the last page.",
                                         object(["deliveries": array(ref("Delivery")), "next_before": nullable("integer")]))])],
            "/api/webhooks/deliveries/retry": ["post": operation(
                "Requeue dead deliveries (admin): one, one webhook's, or all", tag: "webhooks",
                body: jsonBody(object(["id": ["type": "integer", "minimum": 1], "webhook_id": string], required: []), required: false),
                responses: ["200": reply("How many were requeued.", object(["requeued": integer]))])],
            "/api/stream": ["get": operation(
                "Live positions (`event: position`), fence events the server decided (`event: fence`) and records the "
                + "device reported, its own geofence events among them (`event: device`, a DeviceEvent) (server-sent events)",
                tag: "live",
                parameters: [query("ticket", string, "A ticket from POST /api/stream/ticket (EventSource cannot send headers).")],
                responses: ["200": reply("A `text/event-stream` with a `: keep-alive` comment every 15 s, ending after an hour.",
                                         string, type: "text/event-stream"),
                            "429": rateLimited("Too many live streams (code `tooManyRequests`, `Retry-After: 5`): 4 per device, "
                                               + "16 for the admin, 200 in all by default; the message names the cap. Or: ")])],
            "/api/stream/ticket": ["post": operation(
                "A single-use ticket for /api/stream", tag: "live",
                responses: ["201": reply("The ticket.", object(["ticket": string, "expires_in": integer]))])],
            "/metrics": ["get": operation("Prometheus metrics", tag: "operations",
                                          responses: ["200": reply("Exposition format.", string, type: "text/plain")], isPublic: true)],
            "/dashboard": ["get": operation("The dashboard page", tag: "operations",
                                            responses: ["200": reply("HTML.", string, type: "text/html")], isPublic: true)],
            DashboardAssets.pathPrefix + "leaflet.js": ["get": operation(
                "The dashboard's map library (Leaflet), served by the server itself", tag: "operations",
                responses: ["200": reply("JavaScript; cached for a year (the path names the version).", string, type: "text/javascript")],
                isPublic: true)],
            DashboardAssets.pathPrefix + "leaflet.css": ["get": operation(
                "The map library's stylesheet", tag: "operations",
                responses: ["200": reply("CSS; cached for a year.", string, type: "text/css")], isPublic: true)],
            DashboardAssets.pathPrefix + "LICENSE.txt": ["get": operation(
                "The map library's licence (BSD-2-Clause)", tag: "operations",
                responses: ["200": reply("Plain text.", string, type: "text/plain")], isPublic: true)],
            "/openapi.json": ["get": operation("This document", tag: "operations",
                                               responses: ["200": reply("OpenAPI 3.1.", ["type": "object"])], isPublic: true)],
        ]
    }
}
