import Foundation
import WaymarkGeo

/// The shape of an upload request for a backend with a JSON API of its own: what one location looks
/// like, where the locations go in the body, and the extra fields, headers and query items.
///
/// ```swift
/// let template = try UploadTemplate(
///     location: #"{"lat":{{latitude}},"lng":{{longitude}},"at":"{{timestamp}}","acc":{{horizontal_accuracy}}}"#,
///     rootProperty: "points",
///     extraFields: ["device": "{{device_id}}", "app": "waymark"],
///     headers: ["X-Api-Key": "{{token}}"],
///     authorization: .none)
/// let format = UploadFormat.template(template, deviceID: "van-7")
/// // POST body: {"points":[{"lat":48.1,"lng":11.5,"at":"2024-05-01T10:00:00.000Z","acc":5},…],"app":"waymark","device":"van-7"}
/// ```
///
/// **The location template** is JSON text with placeholders `{{name}}` (see ``fixPlaceholders``).
/// Outside a JSON string a placeholder becomes a JSON value: a number, a quoted string, or `null` when
/// the fix does not know it. Inside a string (`"{{latitude}}"`) it becomes the value's text, or
/// nothing. The filled-in template must be a JSON object; the initializer checks that with sample
/// values and with every value unknown.
///
/// **The body** is `{"<rootProperty>": [location, …], <extraFields>}`, or with ``Batching/single``
/// `{"<rootProperty>": location, <extraFields>}`; with no root property it is the array (or the one
/// location) itself, and extra fields are refused.
///
/// **Extra fields, headers and query items** may use the request placeholders (``requestPlaceholders``:
/// `{{device_id}}`, `{{token}}`, `{{batch_key}}`), and with ``Batching/single`` the fix placeholders too
/// (a form-style API that wants `?lat=…`). Headers are set after the format's own, so a template may
/// replace `Content-Type` or `Authorization`.
///
/// A `Sendable` value type; made only through the throwing initializer, so every template is usable.
public struct UploadTemplate: Hashable, Sendable {
    /// A value of an extra field: a string (which may hold request placeholders), a number or a boolean.
    public enum Value: Hashable, Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
        ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral {
        /// A JSON string.
        case string(String)
        /// A JSON number.
        case number(Double)
        /// A JSON boolean.
        case bool(Bool)

        /// A string.
        public init(stringLiteral value: String) { self = .string(value) }
        /// A number.
        public init(integerLiteral value: Int) { self = .number(Double(value)) }
        /// A number.
        public init(floatLiteral value: Double) { self = .number(value) }
        /// A boolean.
        public init(booleanLiteral value: Bool) { self = .bool(value) }
    }

    /// How many locations one request carries.
    public enum Batching: Hashable, Sendable {
        /// One location per request, as an object (not an array).
        case single
        /// Up to `maxPoints` locations per request, as an array.
        case array(maxPoints: Int)
    }

    /// The placeholders of one fix: `latitude`, `longitude` (degrees); `altitude`, `horizontal_accuracy`,
    /// `vertical_accuracy` (metres); `speed` (m/s), `speed_kmh`, `speed_knots`; `course` (degrees);
    /// `timestamp` (ISO-8601 UTC with milliseconds), `epoch_seconds` (whole seconds), `epoch_milliseconds`;
    /// `source` (`gnss`, `wifi`, …). Unknown values (a negative accuracy, speed or course) are `null`.
    public static let fixPlaceholders = ["latitude", "longitude", "altitude", "horizontal_accuracy", "vertical_accuracy",
                                         "speed", "speed_kmh", "speed_knots", "course", "timestamp", "epoch_seconds",
                                         "epoch_milliseconds", "source"]
    /// The placeholders of the request: `device_id` (the format's, `null` when none), `token` (the device
    /// token) and `batch_key` (the batch's idempotency key).
    public static let requestPlaceholders = ["device_id", "token", "batch_key"]

    /// The location template as given.
    public let location: String
    /// The body's property that holds the locations; nil for a body that is the locations themselves.
    public let rootProperty: String?
    /// Fields added to the body's object beside the locations.
    public let extraFields: [String: Value]
    /// Headers added to every request.
    public let headers: [String: String]
    /// Query items added to the server's URL.
    public let query: [String: String]
    /// How many locations one request carries.
    public let batching: Batching
    /// How the device token travels (``UploadRequest/Authorization/none`` when a header or the query
    /// of the template carries `{{token}}`).
    public let authorization: UploadRequest.Authorization
    /// Which reply acknowledges a request.
    public let acknowledgement: UploadFormat.Acknowledgement
    /// Whether `Idempotency-Key: <batch key>` goes along.
    public let sendsIdempotencyKey: Bool
    /// The body's `Content-Type`.
    public let contentType: String

    let parts: [Part]

    /// Checks and makes a template.
    ///
    /// - parameter location: one location as JSON text with `{{placeholder}}`s.
    /// - parameter rootProperty: the body's property that holds the locations (`"locations"` by
    ///   default); nil for a body that is the array (or the one location) itself.
    /// - parameter extraFields: fields beside the locations in the body's object; their strings may hold
    ///   request placeholders.
    /// - parameter headers: headers for every request; values may hold placeholders.
    /// - parameter query: query items for every request; values may hold placeholders.
    /// - parameter batching: locations per request; 100 in an array by default.
    /// - parameter authorization: how the token travels; `Authorization: Bearer` by default.
    /// - parameter acknowledgement: which reply acknowledges a request; any 2xx by default.
    /// - parameter sendsIdempotencyKey: whether `Idempotency-Key` goes along; true by default (a
    ///   server that does not know it ignores it).
    /// - parameter contentType: the body's `Content-Type`.
    /// - throws: ``TransportError`` `.uploadFormat` naming what is wrong and where: an unknown or
    ///   unclosed placeholder (with its position), a location that is not a JSON object once filled
    ///   in, an empty root property, extra fields without one or under its name, a header name that is
    ///   not an HTTP token or is managed by the transport, a value with a line break, a fix placeholder
    ///   outside the location with more than one location per request, a batch size below one.
    public init(location: String, rootProperty: String? = "locations", extraFields: [String: Value] = [:],
                headers: [String: String] = [:], query: [String: String] = [:], batching: Batching = .array(maxPoints: 100),
                authorization: UploadRequest.Authorization = .bearer, acknowledgement: UploadFormat.Acknowledgement = .successStatus,
                sendsIdempotencyKey: Bool = true, contentType: String = "application/json") throws {
        parts = try Self.parse(location, in: "the location template", allowed: Self.fixPlaceholders + Self.requestPlaceholders)
        self.location = location
        self.rootProperty = rootProperty
        self.extraFields = extraFields
        self.headers = headers
        self.query = query
        self.batching = batching
        self.authorization = authorization
        self.acknowledgement = acknowledgement
        self.sendsIdempotencyKey = sendsIdempotencyKey
        self.contentType = contentType
        try check()
    }

    private func check() throws {
        if case .array(let maxPoints) = batching, maxPoints < 1 {
            throw Self.error("batching .array(maxPoints: \(maxPoints)) must carry at least one location")
        }
        if let rootProperty {
            if rootProperty.isEmpty { throw Self.error("rootProperty is empty; give a property name, or nil for a body that is the locations themselves") }
            if extraFields[rootProperty] != nil {
                throw Self.error("extra field '\(rootProperty)' has the name of rootProperty, which holds the locations")
            }
        } else if !extraFields.isEmpty {
            throw Self.error("extra fields (\(extraFields.keys.sorted().joined(separator: ", "))) need a rootProperty: "
                             + "without one the body is the locations themselves; put them in the location template instead")
        }
        for sample in [Self.sampleFix, Self.unknownFix] {
            let text = String(decoding: fill(parts, fix: sample, request: Self.sampleRequest, json: true), as: UTF8.self)
            let object: Any
            do {
                object = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
            } catch {
                throw Self.error("the location template is not valid JSON once filled in (as \(text)): \(error.localizedDescription)")
            }
            guard object is [String: Any] else {
                throw Self.error("the location template must make a JSON object {…}; filled in it is \(text)")
            }
        }
        let single = batching == .single
        func checkValue(_ value: String, in place: String) throws {
            guard !value.contains("\r"), !value.contains("\n") else { throw Self.error("\(place) holds a line break") }
            let used = try Self.parse(value, in: place, allowed: Self.fixPlaceholders + Self.requestPlaceholders)
            for case .placeholder(let name, _) in used where !single && Self.fixPlaceholders.contains(name) {
                throw Self.error("\(place) uses '{{\(name)}}', a value of one fix, but a request carries up to "
                                 + "\(maxPointsPerRequest) locations; use batching: .single, or put it in the location template")
            }
        }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            guard !name.isEmpty, name.unicodeScalars.allSatisfy(Self.tokenCharacters.contains) else {
                throw Self.error("header name '\(name)' is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~ only)")
            }
            guard !Self.managedHeaders.contains(name.lowercased()) else {
                throw Self.error("header '\(name)' is set by the transport, not by a template")
            }
            try checkValue(value, in: "header '\(name)'")
        }
        for (name, value) in query.sorted(by: { $0.key < $1.key }) {
            guard !name.isEmpty else { throw Self.error("a query item has an empty name") }
            try checkValue(value, in: "query item '\(name)'")
        }
        for (name, value) in extraFields.sorted(by: { $0.key < $1.key }) {
            if case .string(let text) = value { try checkValue(text, in: "extra field '\(name)'") }
            if case .number(let number) = value, !number.isFinite { throw Self.error("extra field '\(name)' is not a finite number") }
        }
    }

    var maxPointsPerRequest: Int {
        switch batching {
        case .single: 1
        case .array(let maxPoints): maxPoints
        }
    }

    /// Headers a transport sets from the body and connection itself.
    static let managedHeaders: Set<String> = ["host", "content-length", "transfer-encoding", "connection"]
    static let tokenCharacters = CharacterSet(charactersIn: "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")

    static func error(_ message: String) -> TransportError {
        TransportError(.uploadFormat, "upload template: " + message)
    }

    // MARK: - Filling in

    /// The request for `fixes` (at most ``maxPointsPerRequest``).
    func request(fixes: [Fix], key: String, token: String, deviceID: String?) -> UploadRequest {
        let context = RequestValues(deviceID: deviceID, token: token, batchKey: key)
        let first = fixes.first
        var body: [UInt8] = []
        let locations = fixes.prefix(maxPointsPerRequest).map { fill(parts, fix: $0, request: context, json: true) }
        let payload: [UInt8]
        switch batching {
        case .single: payload = locations.first ?? Array("null".utf8)
        case .array: payload = Array("[".utf8) + Array(locations.joined(separator: Array(",".utf8))) + Array("]".utf8)
        }
        func filled(_ value: String) -> String { text(filledWith: first, context, value) }
        if let rootProperty {
            body = Array("{".utf8) + Array(JSONText.quoted(rootProperty).utf8) + Array(":".utf8) + payload
            for (name, value) in extraFields.sorted(by: { $0.key < $1.key }) {
                body += Array(("," + JSONText.quoted(name) + ":").utf8)
                switch value {
                case .string(let string): body += Array(JSONText.quoted(filled(string)).utf8)
                case .number(let number): body += Array(JSONText.number(number).utf8)
                case .bool(let flag): body += Array((flag ? "true" : "false").utf8)
                }
            }
            body += Array("}".utf8)
        } else {
            body = payload
        }
        return UploadRequest(key: key, body: body, token: token,
                             query: query.sorted { $0.key < $1.key }.map { .init($0.key, filled($0.value)) },
                             headers: headers.sorted { $0.key < $1.key }.map { .init($0.key, filled($0.value)) },
                             contentType: contentType, authorization: authorization, sendsIdempotencyKey: sendsIdempotencyKey)
    }

    /// A header, query or extra-field value with its placeholders replaced by their text (unknown: empty).
    private func text(filledWith fix: Fix?, _ context: RequestValues, _ value: String) -> String {
        guard let parts = try? Self.parse(value, in: "", allowed: Self.fixPlaceholders + Self.requestPlaceholders) else { return value }
        let raw = parts.map { (part: Part) -> Part in
            if case .placeholder(let name, _) = part { return .placeholder(name, inString: true) }
            return part
        }
        return String(decoding: fill(raw, fix: fix, request: context, json: false), as: UTF8.self)
    }

    struct RequestValues {
        var deviceID: String?
        var token: String
        var batchKey: String
    }

    enum Part: Hashable, Sendable {
        case literal(String)
        case placeholder(String, inString: Bool)
    }

    /// One placeholder's value: a number, a string, or nil when unknown.
    enum Filling {
        case number(Double)
        case integer(Int64)
        case string(String)
    }

    static func value(of name: String, fix: Fix?, request: RequestValues) -> Filling? {
        func known(_ v: Double?, nonNegative: Bool = true) -> Filling? {
            NativeBatchFormat.known(v, nonNegative: nonNegative).map(Filling.number)
        }
        switch name {
        case "device_id": return request.deviceID.map(Filling.string)
        case "token": return .string(request.token)
        case "batch_key": return .string(request.batchKey)
        default: break
        }
        guard let fix else { return nil }
        switch name {
        case "latitude": return .number(fix.coordinate.latitude)
        case "longitude": return .number(fix.coordinate.longitude)
        case "altitude": return known(fix.altitude, nonNegative: false)
        case "horizontal_accuracy": return known(fix.horizontalAccuracy)
        case "vertical_accuracy": return known(fix.verticalAccuracy)
        case "speed": return known(fix.speed)
        case "speed_kmh": return known(fix.speed.map { $0 * 3.6 })
        case "speed_knots": return known(fix.speed.map { $0 / UploadFormat.metresPerSecondPerKnot })
        case "course": return known(fix.course)
        case "timestamp": return .string(NativeBatchFormat.timestamp(fix.timestamp))
        case "epoch_seconds": return .integer(Int64(fix.timestamp.timeIntervalSince1970.rounded(.down)))
        case "epoch_milliseconds": return .integer(Int64((fix.timestamp.timeIntervalSince1970 * 1000).rounded()))
        case "source": return .string(fix.source.rawValue)
        default: return nil
        }
    }

    /// The parts filled in: outside a JSON string (`json`) a placeholder is a JSON value, inside one its text.
    func fill(_ parts: [Part], fix: Fix?, request: RequestValues, json: Bool) -> [UInt8] {
        var out = ""
        for part in parts {
            switch part {
            case .literal(let text):
                out += text
            case .placeholder(let name, let inString):
                let value = Self.value(of: name, fix: fix, request: request)
                if inString || !json {
                    let raw: String = switch value {
                    case .number(let n): JSONText.number(n)
                    case .integer(let i): String(i)
                    case .string(let s): s
                    case nil: ""
                    }
                    if json {
                        let quoted = JSONText.quoted(raw)
                        out += quoted.dropFirst().dropLast()
                    } else {
                        out += raw
                    }
                } else {
                    let literal: String = switch value {
                    case .number(let n): JSONText.number(n)
                    case .integer(let i): String(i)
                    case .string(let s): JSONText.quoted(s)
                    case nil: "null"
                    }
                    out += literal
                }
            }
        }
        return Array(out.utf8)
    }

    /// Splits `text` into literals and placeholders, noting for each placeholder whether it stands
    /// inside a JSON string literal.
    static func parse(_ text: String, in place: String, allowed: [String]) throws -> [Part] {
        var parts: [Part] = []
        var literal = ""
        var inString = false, escaped = false
        let chars = Array(text)
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c == "{", i + 1 < chars.count, chars[i + 1] == "{" {
                guard let close = (i + 2..<max(i + 2, chars.count - 1)).first(where: { chars[$0] == "}" && chars[$0 + 1] == "}" }) else {
                    throw error("\(place): '{{' at character \(i + 1) has no closing '}}'")
                }
                let name = String(chars[(i + 2)..<close]).trimmingCharacters(in: .whitespaces)
                guard allowed.contains(name) else {
                    throw error("\(place): unknown placeholder '{{\(name)}}' at character \(i + 1); "
                                + "known here: \(allowed.joined(separator: ", "))")
                }
                if !literal.isEmpty { parts.append(.literal(literal)) }
                literal = ""
                parts.append(.placeholder(name, inString: inString))
                i = close + 2
                continue
            }
            if inString {
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { inString = false }
            } else if c == "\"" {
                inString = true
            }
            literal.append(c)
            i += 1
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        return parts
    }

    static let sampleFix = Fix(coordinate: Coordinate(uncheckedLatitude: 48.137154, longitude: 11.576124), altitude: 519.5,
                               horizontalAccuracy: 5, verticalAccuracy: 3, speed: 4.2, course: 87.5,
                               timestamp: Date(timeIntervalSince1970: 1_714_557_600.25), source: .gnss)
    static let unknownFix = Fix(coordinate: Coordinate(uncheckedLatitude: 0, longitude: 0), timestamp: Date(timeIntervalSince1970: 0))
    static let sampleRequest = RequestValues(deviceID: "device", token: "token", batchKey: "key")
}
