/// Writes tracks, routes and waypoints as an RFC 7946 GeoJSON `FeatureCollection`, feature by feature.
///
/// - A track becomes a `Feature` whose geometry is a `LineString` when it has one
///   non-empty segment and a `MultiLineString` (one line per segment) when it has
///   several; a track without points gets a `null` geometry. Empty segments are left out.
/// - A route becomes a `LineString` feature; a waypoint a `Point` feature.
/// - Positions are `[longitude, latitude]`, plus elevation in metres as a third
///   number when *every* point of the geometry has one (RFC 7946 §3.1.1).
/// - Properties: `kind` (`"track"`, `"route"` or `"waypoint"`, so a reader can tell
///   tracks from routes), then whichever of `name`, `cmt`, `desc`, `src`, `type`,
///   `number` (paths) or `sym`, `time` (waypoints) are set. A track or route with at
///   least one timed point also gets `coordTimes`: one ISO-8601 UTC time (or `null`)
///   per position — an array for a `LineString`, an array of arrays for a
///   `MultiLineString` — the convention of Mapbox's togeojson and of many GPX tools.
///
/// Output is compact JSON with one feature per line, written to any `TextOutputStream`
/// as it goes, so memory stays at one feature.
///
/// ```swift
/// var writer = GeoJSONWriter(output: "")
/// for track in document.tracks { writer.write(track) }
/// let json = writer.finish()
/// // or simply: GeoJSONWriter.string(for: document)
/// ```
///
/// A value type; `Sendable` when its output is.
public struct GeoJSONWriter<Output: TextOutputStream> {
    /// Where the text goes.
    public private(set) var output: Output
    private var featureCount = 0
    private var finished = false

    /// Starts a collection, writing its opening text to `output`.
    public init(output: Output) {
        self.output = output
        self.output.write(#"{"type":"FeatureCollection","features":["#)
    }

    /// Writes `track` as a `LineString` or `MultiLineString` feature.
    public mutating func write(_ track: Track) {
        let lines = track.segments.map(\.points).filter { !$0.isEmpty }
        var properties = Self.pathProperties(kind: "track", track.info)
        let withElevation = lines.allSatisfy { $0.allSatisfy { $0.elevation?.isFinite == true } }
        let geometry: String
        switch lines.count {
        case 0: geometry = "null"
        case 1:
            geometry = #"{"type":"LineString","coordinates":"# + Self.positions(lines[0], withElevation) + "}"
            if let times = Self.times(lines[0]) { properties.append(("coordTimes", times)) }
        default:
            let all = lines.map { Self.positions($0, withElevation) }.joined(separator: ",")
            geometry = #"{"type":"MultiLineString","coordinates":["# + all + "]}"
            if lines.contains(where: { $0.contains { $0.time != nil } }) {
                let times = lines.map { Self.times($0) ?? Self.nullTimes($0.count) }.joined(separator: ",")
                properties.append(("coordTimes", "[" + times + "]"))
            }
        }
        writeFeature(properties: properties, geometry: geometry)
    }

    /// Writes `route` as a `LineString` feature (a `null` geometry when it has no points).
    public mutating func write(_ route: Route) {
        var properties = Self.pathProperties(kind: "route", route.info)
        let withElevation = route.points.allSatisfy { $0.elevation?.isFinite == true }
        var geometry = "null"
        if !route.points.isEmpty {
            geometry = #"{"type":"LineString","coordinates":"# + Self.positions(route.points, withElevation) + "}"
            if let times = Self.times(route.points) { properties.append(("coordTimes", times)) }
        }
        writeFeature(properties: properties, geometry: geometry)
    }

    /// Writes `waypoint` as a `Point` feature.
    public mutating func write(_ waypoint: Waypoint) {
        var properties: [(String, String)] = [("kind", #""waypoint""#)]
        let d = waypoint.details
        Self.add(&properties, "name", d.name)
        Self.add(&properties, "cmt", d.comment)
        Self.add(&properties, "desc", d.description)
        Self.add(&properties, "src", d.source)
        Self.add(&properties, "sym", d.symbol)
        Self.add(&properties, "type", d.type)
        if let time = waypoint.time { properties.append(("time", JSONText.quoted(ISO8601UTC.string(time)))) }
        let position = Self.position(waypoint, withElevation: waypoint.elevation?.isFinite == true)
        writeFeature(properties: properties, geometry: #"{"type":"Point","coordinates":"# + position + "}")
    }

    /// Closes the collection (only the first call writes) and returns the output.
    @discardableResult
    public mutating func finish() -> Output {
        if !finished {
            output.write(featureCount == 0 ? "]}\n" : "\n]}\n")
            finished = true
        }
        return output
    }

    private mutating func writeFeature(properties: [(String, String)], geometry: String) {
        precondition(!finished, "GeoJSONWriter: write after finish()")
        output.write(featureCount == 0 ? "\n" : ",\n")
        featureCount += 1
        let props = properties.map { JSONText.quoted($0.0) + ":" + $0.1 }.joined(separator: ",")
        output.write(#"{"type":"Feature","properties":{"# + props + #"},"geometry":"# + geometry + "}")
    }
}

extension GeoJSONWriter: Sendable where Output: Sendable {}

extension GeoJSONWriter where Output == String {
    /// The whole document as a GeoJSON `FeatureCollection`: waypoints, then routes, then tracks.
    public static func string(for document: GPXDocument) -> String {
        var writer = GeoJSONWriter(output: "")
        for waypoint in document.waypoints { writer.write(waypoint) }
        for route in document.routes { writer.write(route) }
        for track in document.tracks { writer.write(track) }
        return writer.finish()
    }
}
