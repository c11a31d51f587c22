import Foundation

/// One waypoint, route or track read from GeoJSON by ``GeoJSONFeatureReader``.
///
/// `GeoJSONItem` is a `Sendable` value type.
public enum GeoJSONItem: Hashable, Sendable {
    /// A `Point` feature, or one position of a `MultiPoint` feature.
    case waypoint(Waypoint)
    /// A `LineString` feature whose `kind` property is `"route"`.
    case route(Route)
    /// A `LineString` (one segment) or `MultiLineString` (one segment per line) feature.
    case track(Track)
}

/// Streams the features of a GeoJSON (RFC 7946) file one by one, in constant memory.
///
/// A `FeatureCollection` is parsed feature by feature: only the feature being converted is
/// held in memory, so memory is bounded by the largest single feature, not by the file. Each
/// feature becomes items exactly as ``GeoJSONReader`` converts it (same rules, same
/// properties). A single `Feature` or a bare geometry at the top level is read whole and
/// delivered the same way.
///
/// ```swift
/// var reader = try GeoJSONFeatureReader(contentsOf: URL(fileURLWithPath: "big.geojson"))
/// while let item = try reader.next() {
///     if case .waypoint(let point) = item { print(point.coordinate) }
/// }
/// ```
///
/// Errors are ``GeoError`` with code ``GeoError/Code/invalidGeoJSON`` and a
/// `file:line:column` location: of the offending byte for malformed JSON, of the start of
/// the feature for a feature that is valid JSON but not valid GeoJSON (the message then
/// starts with the JSON path, e.g. `features[3].geometry.coordinates[12]: …`). Items before
/// the fault have already been delivered. After a throw, further calls throw the same error.
///
/// Thread safety: a reader is a single-owner cursor; use it from one task at a time.
public struct GeoJSONFeatureReader {
    private final class State {
        let parser: JSONByteParser
        var pending: [GeoJSONItem] = []
        var pendingHead = 0
        var topMembers: [String: JSONValue] = [:]
        var sawFeatures = false
        var inFeatures = false
        var featureIndex = 0
        var started = false
        var finished = false
        var failure: GeoError?

        init(parser: JSONByteParser) { self.parser = parser }
    }

    private let state: State

    /// Opens the file at `url` for streaming; `chunkSize` bytes are read at a time.
    ///
    /// - throws: ``GeoError`` with code `.io` if the file cannot be opened.
    public init(contentsOf url: URL, chunkSize: Int = 64 * 1024) throws(GeoError) {
        state = State(parser: try JSONByteParser(url: url, chunkSize: chunkSize))
    }

    /// Reads GeoJSON from bytes in memory; `name` is used in error locations.
    public init(data: Data, name: String? = nil, chunkSize: Int = 64 * 1024) throws(GeoError) {
        state = State(parser: try JSONByteParser(data: data, name: name, chunkSize: chunkSize))
    }

    /// How many bytes of input have been parsed so far.
    public var bytesRead: Int { state.parser.offset }

    /// The next item in input order, or nil after the end of the input.
    ///
    /// - throws: ``GeoError`` (see the type's documentation).
    public mutating func next() throws(GeoError) -> GeoJSONItem? {
        let s = state
        if let failure = s.failure { throw failure }
        do {
            while true {
                if s.pendingHead < s.pending.count {
                    s.pendingHead += 1
                    return s.pending[s.pendingHead - 1]
                }
                s.pending.removeAll(keepingCapacity: true)
                s.pendingHead = 0
                if s.finished { return nil }
                try step(s)
            }
        } catch {
            s.failure = error
            throw error
        }
    }

    /// Parses until at least one item is pending or the input ends.
    private func step(_ s: State) throws(GeoError) {
        let p = s.parser
        if !s.started {
            s.started = true
            guard let b = try p.skipWhitespace() else { throw p.error("the input is empty; expected a GeoJSON object") }
            guard b == UInt8(ascii: "{") else {
                throw p.error("unexpected \(JSONByteParser.describe(b)); expected a GeoJSON object")
            }
            p.advance()
            if try p.skipWhitespace() == UInt8(ascii: "}") { p.advance(); try finish(s); return }
            try readMembers(s)
            return
        }
        if s.inFeatures {
            try readFeatureOrEnd(s)
        } else {
            try readMembers(s)
        }
    }

    /// Reads top-level members until the `features` array opens or the object closes.
    private func readMembers(_ s: State) throws(GeoError) {
        let p = s.parser
        while true {
            let key = try p.parseKey()
            if key == "features" && !s.sawFeatures {
                s.sawFeatures = true
                try p.expect(UInt8(ascii: "["), "'[' starting the features array")
                if try p.skipWhitespace() == UInt8(ascii: "]") {
                    p.advance()
                } else {
                    s.inFeatures = true
                    return
                }
            } else {
                s.topMembers[key] = try p.parseValue(depth: 1)
            }
            if try closeMemberOrContinue(s) { return }
        }
    }

    /// After a member: consumes `,` (false: more members follow) or `}` (true: finished).
    private func closeMemberOrContinue(_ s: State) throws(GeoError) -> Bool {
        let p = s.parser
        guard let next = try p.skipWhitespace() else { throw p.error("unexpected end of input; expected ',' or '}'") }
        if next == UInt8(ascii: "}") { p.advance(); try finish(s); return true }
        guard next == UInt8(ascii: ",") else { throw p.error("unexpected \(JSONByteParser.describe(next)); expected ',' or '}'") }
        p.advance()
        return false
    }

    /// Reads one element of the features array (queueing its items) or the array's end.
    private func readFeatureOrEnd(_ s: State) throws(GeoError) {
        let p = s.parser
        _ = try p.skipWhitespace()
        let start = p.location
        let feature = try p.parseValue(depth: 2)
        var builder = GeoJSONDocumentBuilder()
        do {
            try builder.readFeature(feature, at: "features[\(s.featureIndex)]")
        } catch {
            throw GeoError(error.code, error.message, at: start)
        }
        s.featureIndex += 1
        enqueue(builder.document, into: s)
        guard let next = try p.skipWhitespace() else { throw p.error("unexpected end of input; expected ',' or ']'") }
        p.advance()
        if next == UInt8(ascii: "]") {
            s.inFeatures = false
            _ = try closeMemberOrContinue(s)
        } else if next != UInt8(ascii: ",") {
            throw p.error("unexpected \(JSONByteParser.describe(next)) after a feature; expected ',' or ']'")
        }
    }

    /// Checks the end of input and the top-level type; a Feature or geometry is converted here.
    private func finish(_ s: State) throws(GeoError) {
        let p = s.parser
        if let extra = try p.skipWhitespace() {
            throw p.error("unexpected \(JSONByteParser.describe(extra)) after the GeoJSON object; expected the end of input")
        }
        s.finished = true
        let end = p.location
        let type = s.topMembers["type"]?.string
        if s.sawFeatures {
            guard type == "FeatureCollection" else {
                throw GeoError(.invalidGeoJSON, "type: expected \"FeatureCollection\" for an object with features, found \(type.map { "\"\($0)\"" } ?? "none")", at: end)
            }
            return
        }
        var builder = GeoJSONDocumentBuilder()
        do {
            try builder.read(root: .object(s.topMembers))
        } catch {
            throw GeoError(error.code, error.message, at: end)
        }
        enqueue(builder.document, into: s)
    }

    private func enqueue(_ document: GPXDocument, into s: State) {
        s.pending.append(contentsOf: document.waypoints.map(GeoJSONItem.waypoint))
        s.pending.append(contentsOf: document.routes.map(GeoJSONItem.route))
        s.pending.append(contentsOf: document.tracks.map(GeoJSONItem.track))
    }
}
