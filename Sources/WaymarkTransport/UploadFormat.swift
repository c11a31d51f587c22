import Foundation
import WaymarkGeo

/// What a batch is sent as: Waymark's native format (the default), one of the formats other servers
/// speak (OwnTracks HTTP, the OsmAnd protocol Traccar accepts, Overland), or a template of your own.
///
/// ```swift
/// let format = try UploadFormat.owntracks(user: "jane", device: "phone")
/// let transport = try URLSessionUploadTransport(server: recorder, path: format.defaultPath ?? "/pub")
/// let executor = UploadExecutor(store: store, transport: transport, uploadFormat: format, credentials: credentials)
/// ```
///
/// The transport owns the URL; the format owns the rest of the request: the body, query items,
/// headers, how the token travels, how many points go in one request, and which reply counts as an
/// acknowledgement (``acknowledgement``). Every format keeps the queue's rule: a point leaves the
/// phone only once the server acknowledged the request that carried it, and a retry sends the same
/// points again. What makes a retry harmless differs:
///
/// | Format | Requests | Retry | Gap markers, geofence events |
/// |---|---|---|---|
/// | ``native(deviceID:)`` | batches to `/api/ingest` | `Idempotency-Key` | sent |
/// | ``overland(deviceID:)`` | batches of GeoJSON | `Idempotency-Key` (Overland servers ignore it) | kept on the phone |
/// | ``owntracks(user:device:trackerID:)`` | one point per `POST /pub` | the point's time | kept on the phone |
/// | ``traccar(deviceIdentifier:)`` | one point per `POST /?id=…` | the point's time | kept on the phone |
/// | ``template(_:deviceID:)`` | as the template says | `Idempotency-Key` unless turned off | kept on the phone |
///
/// `waymark serve` stores a point once per device and time (to the millisecond) in both of its
/// stores, so a retried request of any format stores nothing twice there. Another server may not
/// de-duplicate: Traccar and OwnTracks Recorder store a resent point again.
///
/// Gap markers and the device's own geofence events exist only in the native format. With any other
/// format the upload executor does not send them: it keeps them in the device store, marked as not
/// sent (WaymarkSync's `RideStore.unsentRecords()` lists them), and logs how many it kept.
///
/// A `Sendable` value type.
public struct UploadFormat: Hashable, Sendable {
    /// The built-in formats and the template.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// Waymark's native batch format (``NativeBatchFormat``).
        case native
        /// OwnTracks HTTP mode: `{"_type":"location",…}` to `/pub`.
        case owntracks
        /// The OsmAnd protocol as Traccar accepts it: `POST /?id=…&lat=…&lon=…`.
        case traccar
        /// Overland: `{"locations":[Feature…]}`.
        case overland
        /// A template of your own (``UploadTemplate``).
        case template
    }

    /// Which reply acknowledges a request (lets the queue delete its points).
    public enum Acknowledgement: Hashable, Sendable {
        /// A 2xx reply whose JSON body says `{"result":"ok"}` (Waymark, Overland).
        case resultOK
        /// Any 2xx reply (OwnTracks Recorder answers `[]`, Traccar an empty body).
        case successStatus
    }

    /// OwnTracks HTTP mode's names for the device: its user, its device name and the tracker ID
    /// shown on maps.
    public struct OwnTracksIdentity: Hashable, Sendable {
        /// The user (`X-Limit-U`, the `user` of Basic authentication, the second level of `topic`).
        public let user: String
        /// The device's name (`X-Limit-D`, the third level of `topic`).
        public let device: String
        /// One or two characters (`tid`).
        public let trackerID: String
        /// `owntracks/<user>/<device>`.
        public var topic: String { "owntracks/\(user)/\(device)" }
    }

    enum Storage: Hashable, Sendable {
        case native(NativeBatchFormat)
        case owntracks(OwnTracksIdentity)
        case traccar(deviceIdentifier: String?)
        case overland(NativeBatchFormat)
        case template(UploadTemplate, deviceID: String?)
    }

    let storage: Storage

    /// Waymark's native batch format (``NativeBatchFormat``): batches of Overland-compatible GeoJSON
    /// with gap markers and geofence events, `Idempotency-Key` on every request. The default.
    ///
    /// - parameter deviceID: the `device_id` written into every feature; nil leaves it out.
    public static func native(deviceID: String? = nil) -> UploadFormat {
        UploadFormat(storage: .native(NativeBatchFormat(deviceID: deviceID)))
    }

    /// Overland's format: `{"locations":[Feature…]}`, the native format's points without its gap
    /// markers and geofence events, for an Overland-compatible server (Compass, Dawarich, …).
    /// Sent with `Authorization: Bearer <token>` and `Idempotency-Key`; acknowledged by
    /// `{"result":"ok"}`, as Overland's servers answer.
    ///
    /// - parameter deviceID: the `device_id` property of every point (Overland sends one); nil leaves it out.
    public static func overland(deviceID: String? = nil) -> UploadFormat {
        UploadFormat(storage: .overland(NativeBatchFormat(deviceID: deviceID)))
    }

    /// OwnTracks HTTP mode: one `{"_type":"location",…}` message per `POST`, with the token as the
    /// password of Basic authentication and the `X-Limit-U`/`X-Limit-D` headers OwnTracks Recorder
    /// reads the user and device from.
    ///
    /// The message carries `lat`, `lon`, `tst` (whole seconds), `acc`, `alt` and `vac` (whole metres),
    /// `vel` (whole km/h), `cog` (whole degrees), `tid` and `topic`, as the OwnTracks apps send them
    /// (owntracks.org/booklet/tech/json): a server stores the fix to that resolution. Two fixes within
    /// one second share a `tst`, and a server that keeps one point per time keeps the first.
    ///
    /// - parameter user: the user name; not empty, no `/`.
    /// - parameter device: the device name; not empty, no `/`.
    /// - parameter trackerID: one or two characters; the device name's last two by default.
    /// - throws: ``TransportError`` `.uploadFormat` naming the option that is unusable.
    public static func owntracks(user: String, device: String, trackerID: String? = nil) throws -> UploadFormat {
        for (name, value) in [("user", user), ("device", device)] {
            guard !value.isEmpty, !value.contains("/"), !value.contains("#"), !value.contains("+") else {
                throw TransportError(.uploadFormat, "OwnTracks \(name) '\(value)' must be non-empty and hold no '/', '#' or '+' "
                                     + "(it is a level of the topic owntracks/<user>/<device>)")
            }
        }
        let tid = trackerID ?? String(device.suffix(2))
        guard (1...2).contains(tid.count) else {
            throw TransportError(.uploadFormat, "OwnTracks trackerID '\(tid)' must have one or two characters")
        }
        return UploadFormat(storage: .owntracks(OwnTracksIdentity(user: user, device: device, trackerID: tid)))
    }

    /// The OsmAnd protocol as Traccar accepts it (its port 5055): one `POST /?id=…&timestamp=…&lat=…`
    /// per point, with an empty body, as Traccar Client sends it.
    ///
    /// The query carries `id`, `timestamp` (milliseconds since 1970, which Traccar reads as such),
    /// `lat`, `lon`, `accuracy` and `altitude` (m), `speed` (knots, as the protocol has it) and
    /// `bearing` (degrees), each a plain decimal number.
    ///
    /// - parameter deviceIdentifier: the `id` Traccar knows the device by; nil sends the upload token
    ///   (what `waymark serve` expects). With an identifier no `Authorization` header goes along either.
    public static func traccar(deviceIdentifier: String? = nil) -> UploadFormat {
        UploadFormat(storage: .traccar(deviceIdentifier: deviceIdentifier))
    }

    /// A template of your own (see ``UploadTemplate``).
    ///
    /// - parameter template: the request's shape, already checked.
    /// - parameter deviceID: the value of the template's `{{device_id}}` placeholder.
    public static func template(_ template: UploadTemplate, deviceID: String? = nil) -> UploadFormat {
        UploadFormat(storage: .template(template, deviceID: deviceID))
    }

    /// Which format this is.
    public var kind: Kind {
        switch storage {
        case .native: .native
        case .owntracks: .owntracks
        case .traccar: .traccar
        case .overland: .overland
        case .template: .template
        }
    }

    /// The ingest path of this format on `waymark serve`, which is also where the format's usual
    /// server listens (`/pub` for OwnTracks Recorder, `/` for Traccar's OsmAnd port); nil for a
    /// template, whose server you name in full.
    public var defaultPath: String? {
        switch storage {
        case .native, .overland: "/api/ingest"
        case .owntracks: "/pub"
        case .traccar: "/"
        case .template: nil
        }
    }

    /// Most points in one request; nil when only the queue's batch limits apply. OwnTracks and the
    /// OsmAnd protocol carry one point per request.
    public var maxPointsPerRequest: Int? {
        switch storage {
        case .native, .overland: nil
        case .owntracks, .traccar: 1
        case .template(let template, _):
            switch template.batching {
            case .single: 1
            case .array(let maxPoints): maxPoints
            }
        }
    }

    /// Whether the format carries gap markers and the device's geofence events (the native format only).
    public var carriesGapsAndFenceEvents: Bool {
        if case .native = storage { return true }
        return false
    }

    /// Whether every request carries the batch's `Idempotency-Key`, so that a server that honours it
    /// (`waymark serve`) answers a retry from its first commit.
    public var sendsIdempotencyKey: Bool {
        switch storage {
        case .native, .overland: true
        case .owntracks, .traccar: false
        case .template(let template, _): template.sendsIdempotencyKey
        }
    }

    /// Which reply acknowledges a request.
    public var acknowledgement: Acknowledgement {
        switch storage {
        case .native, .overland: .resultOK
        case .owntracks, .traccar: .successStatus
        case .template(let template, _): template.acknowledgement
        }
    }

    /// The encoding the device store measures batch sizes in (`maxBatchBytes`): the native one, with
    /// this format's device id. Other formats' bodies differ in size; a server's 413 splits a batch.
    public var batchSizing: NativeBatchFormat {
        switch storage {
        case .native(let format), .overland(let format): format
        case .template(_, let deviceID): NativeBatchFormat(deviceID: deviceID)
        case .owntracks, .traccar: NativeBatchFormat()
        }
    }

    /// The request that carries `fixes` (and, in the native format, `gaps` and `fenceEvents`, which
    /// other formats leave out).
    ///
    /// - parameter fixes: the points, oldest first; at most ``maxPointsPerRequest`` of them (a
    ///   one-point format sends the first and drops the rest: form batches of one).
    /// - parameter gaps: gap markers (native format only).
    /// - parameter fenceEvents: the device's geofence events (native format only).
    /// - parameter key: the batch's idempotency key.
    /// - parameter token: the device token.
    public func request(fixes: [Fix], gaps: [NativeBatchFormat.Gap] = [], fenceEvents: [NativeBatchFormat.FenceEvent] = [],
                        key: String, token: String) -> UploadRequest {
        switch storage {
        case .native(let format):
            return UploadRequest(key: key, body: format.body(for: fixes, gaps: gaps, fenceEvents: fenceEvents), token: token)
        case .overland(let format):
            return UploadRequest(key: key, body: format.body(for: fixes), token: token)
        case .owntracks(let identity):
            let body = fixes.first.map { Self.ownTracksMessage($0, identity: identity) } ?? []
            return UploadRequest(key: key, body: body, token: token,
                                 headers: [.init("X-Limit-U", identity.user), .init("X-Limit-D", identity.device)],
                                 authorization: .basic(user: identity.user), sendsIdempotencyKey: false)
        case .traccar(let identifier):
            let query = fixes.first.map { Self.osmAndQuery($0, id: identifier ?? token) } ?? []
            return UploadRequest(key: key, body: [], token: token, query: query, contentType: nil,
                                 authorization: .none, sendsIdempotencyKey: false)
        case .template(let template, let deviceID):
            return template.request(fixes: fixes, key: key, token: token, deviceID: deviceID)
        }
    }

    /// The response as the upload queue should read it: for a format acknowledged by any 2xx
    /// (``Acknowledgement/successStatus``), a 2xx reply that does not already say `{"result":"ok"}`
    /// becomes `.status(code, body: {"result":"ok"})`, the acknowledgement the queue recognises
    /// (``UploadResponse/isAcknowledgement``). Every other response is returned as it is.
    public func interpret(_ response: UploadResponse) -> UploadResponse {
        guard acknowledgement == .successStatus, case .status(let code, _) = response, (200..<300).contains(code),
              !response.isAcknowledgement else { return response }
        return .status(code, body: Array(#"{"result":"ok"}"#.utf8))
    }

    // MARK: - OwnTracks and OsmAnd encoders

    /// One OwnTracks location message, keys in a fixed order.
    static func ownTracksMessage(_ fix: Fix, identity: OwnTracksIdentity) -> [UInt8] {
        var s = "{\"_type\":\"location\",\"lat\":" + JSONText.number(fix.coordinate.latitude)
        s += ",\"lon\":" + JSONText.number(fix.coordinate.longitude)
        s += ",\"tst\":" + String(Int64((fix.timestamp.timeIntervalSince1970).rounded(.down)))
        if let v = NativeBatchFormat.known(fix.horizontalAccuracy, nonNegative: true) { s += ",\"acc\":" + whole(v) }
        if let v = NativeBatchFormat.known(fix.altitude) { s += ",\"alt\":" + whole(v) }
        if let v = NativeBatchFormat.known(fix.verticalAccuracy, nonNegative: true) { s += ",\"vac\":" + whole(v) }
        if let v = NativeBatchFormat.known(fix.speed, nonNegative: true) { s += ",\"vel\":" + whole(v * 3.6) }
        if let v = NativeBatchFormat.known(fix.course, nonNegative: true) { s += ",\"cog\":" + whole(v) }
        s += ",\"tid\":" + JSONText.quoted(identity.trackerID) + ",\"topic\":" + JSONText.quoted(identity.topic) + "}"
        return Array(s.utf8)
    }

    static func whole(_ value: Double) -> String { String(Int64(value.rounded())) }

    /// The OsmAnd query of one fix.
    static func osmAndQuery(_ fix: Fix, id: String) -> [UploadRequest.Field] {
        var items: [UploadRequest.Field] = [
            .init("id", id),
            .init("timestamp", String(Int64((fix.timestamp.timeIntervalSince1970 * 1000).rounded()))),
            .init("lat", decimal(fix.coordinate.latitude)),
            .init("lon", decimal(fix.coordinate.longitude)),
        ]
        if let v = NativeBatchFormat.known(fix.horizontalAccuracy, nonNegative: true) { items.append(.init("accuracy", decimal(v))) }
        if let v = NativeBatchFormat.known(fix.altitude) { items.append(.init("altitude", decimal(v))) }
        if let v = NativeBatchFormat.known(fix.speed, nonNegative: true) { items.append(.init("speed", decimal(v / metresPerSecondPerKnot))) }
        if let v = NativeBatchFormat.known(fix.course, nonNegative: true) { items.append(.init("bearing", decimal(v))) }
        return items
    }

    /// Metres per second in one knot (1852 m per hour).
    public static let metresPerSecondPerKnot = 1852.0 / 3600.0

    /// A plain decimal (no exponent, which not every OsmAnd server reads) that reads back to the same `Double`.
    static func decimal(_ value: Double) -> String {
        let text = JSONText.number(value)
        guard text.contains("e") || text.contains("E") else { return text }
        // Only tiny or huge magnitudes have an exponent; 17 significant digits read back exactly.
        var fixed = String(format: "%.17f", value)
        while fixed.hasSuffix("0") { fixed.removeLast() }
        if fixed.hasSuffix(".") { fixed.removeLast() }
        return fixed
    }
}
