import Foundation

/// Writes GPX 1.1, streaming to a file or collecting in memory.
///
/// Call the methods in document order: ``begin(creator:metadata:declareExtensions:)``, then waypoints,
/// then routes, then tracks, then ``end(extensions:)``. Elements inside each point,
/// route, track and the metadata are written in the order the GPX 1.1 schema
/// requires. Numbers are written in the shortest decimal form that reads back to
/// the identical `Double` (never in exponent notation, which `xsd:decimal`
/// forbids); times are written in UTC with `Z`, with the fewest fractional digits
/// that read back to the identical `Date`. Non-finite optional values are omitted.
///
/// Typed extension data goes into Garmin's TrackPointExtension v2 (`gpxtpx:`: `atemp`,
/// `wtemp`, `hr`, `cad`, and ``Waypoint/speed`` / ``Waypoint/course`` as `gpxtpx:speed` /
/// `gpxtpx:course`, since GPX 1.1 has no speed or course element) and power into
/// Garmin's PowerExtension v1 (`pwr:PowerInWatts`). Raw extension fragments are
/// written as they were read, except that an element without any namespace is declared in
/// ``unqualifiedExtensionNamespace`` so the output stays valid GPX 1.1.
///
/// ```swift
/// var writer = GPXWriter()
/// try writer.begin(creator: "Waymark")
/// try writer.beginTrack(PathInfo(name: "Morning ride"))
/// try writer.beginSegment()
/// try writer.trackPoint(Waypoint(coordinate: try Coordinate(latitude: 46.05, longitude: 14.5), elevation: 295))
/// try writer.endSegment()
/// try writer.endTrack()
/// try writer.end()
/// let gpx: Data = writer.data
/// ```
///
/// Thread safety: a writer is a value with a single owner; a file-backed writer
/// shares its `FileHandle`.
public struct GPXWriter {
    enum State: Int { case start, waypoints, routes, inRoute, tracks, inTrack, inSegment, ended }

    private let handle: FileHandle?
    var buffer: [UInt8] = []
    private var flushed = 0
    var state = State.start

    /// The GPX 1.1 namespace.
    public static let gpxNamespace = "http://www.topografix.com/GPX/1/1"
    /// Garmin's TrackPointExtension v2 namespace, bound to the `gpxtpx` prefix.
    public static let trackPointExtensionNamespace = "http://www.garmin.com/xmlschemas/TrackPointExtension/v2"
    /// Garmin's PowerExtension v1 namespace, bound to the `pwr` prefix.
    public static let powerExtensionNamespace = "http://www.garmin.com/xmlschemas/PowerExtension/v1"

    /// A writer that collects the output in memory; read it from ``data`` after ``end(extensions:)``.
    public init() {
        handle = nil
        buffer.reserveCapacity(64 * 1024)
    }

    /// A writer that streams to `handle`, flushing every 64 KiB.
    public init(to handle: FileHandle) {
        self.handle = handle
        buffer.reserveCapacity(72 * 1024)
    }

    /// The output so far (in-memory writers only; a file-backed writer returns what is not yet flushed).
    public var data: Data { Data(buffer) }

    /// Writes the XML declaration and the `<gpx>` start tag with its namespaces, then `metadata`
    /// unless it is empty.
    ///
    /// `declareExtensions` adds the `gpxtpx` and `pwr` namespace declarations; leave it on
    /// unless no point carries typed extension data, speed or course.
    public mutating func begin(creator: String? = nil, metadata: GPXMetadata = GPXMetadata(),
                               declareExtensions: Bool = true) throws(GeoError) {
        precondition(state == .start, "GPXWriter.begin called twice")
        write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"")
        write(GPXWriter.escape(creator ?? "Waymark", attribute: true))
        write("\" xmlns=\"\(GPXWriter.gpxNamespace)\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"")
        if declareExtensions {
            write(" xmlns:gpxtpx=\"\(GPXWriter.trackPointExtensionNamespace)\" xmlns:pwr=\"\(GPXWriter.powerExtensionNamespace)\"")
        }
        write(" xsi:schemaLocation=\"\(GPXWriter.gpxNamespace) http://www.topografix.com/GPX/1/1/gpx.xsd\">\n")
        if !metadata.isEmpty { writeMetadata(metadata) }
        state = .waypoints
        try flushIfNeeded()
    }

    /// Writes a `<wpt>`; all waypoints come before routes and tracks.
    public mutating func waypoint(_ point: Waypoint) throws(GeoError) {
        precondition(state == .waypoints, "GPXWriter: waypoints must come after begin and before routes and tracks")
        writePoint(point, tag: "wpt", indent: "  ")
        try flushIfNeeded()
    }

    /// Starts a `<rte>` with its descriptive fields; routes come before tracks.
    public mutating func beginRoute(_ info: PathInfo = PathInfo()) throws(GeoError) {
        precondition(state == .waypoints || state == .routes, "GPXWriter: routes must come after waypoints and before tracks")
        write("  <rte>\n")
        writePathInfo(info)
        state = .inRoute
    }

    /// Writes a `<rtept>` of the current route.
    public mutating func routePoint(_ point: Waypoint) throws(GeoError) {
        precondition(state == .inRoute, "GPXWriter.routePoint outside beginRoute/endRoute")
        writePoint(point, tag: "rtept", indent: "    ")
        try flushIfNeeded()
    }

    /// Ends the current `<rte>`.
    public mutating func endRoute() throws(GeoError) {
        precondition(state == .inRoute, "GPXWriter.endRoute without beginRoute")
        write("  </rte>\n")
        state = .routes
        try flushIfNeeded()
    }

    /// Starts a `<trk>` with its descriptive fields.
    public mutating func beginTrack(_ info: PathInfo = PathInfo()) throws(GeoError) {
        precondition(state.rawValue <= State.tracks.rawValue && state != .inRoute && state != .start,
                     "GPXWriter: tracks must come after begin, waypoints and routes")
        write("  <trk>\n")
        writePathInfo(info)
        state = .inTrack
    }

    /// Starts a `<trkseg>` of the current track.
    public mutating func beginSegment() throws(GeoError) {
        precondition(state == .inTrack, "GPXWriter.beginSegment outside a track")
        write("    <trkseg>\n")
        state = .inSegment
    }

    /// Writes a `<trkpt>` of the current segment.
    public mutating func trackPoint(_ point: Waypoint) throws(GeoError) {
        precondition(state == .inSegment, "GPXWriter.trackPoint outside beginSegment/endSegment")
        writePoint(point, tag: "trkpt", indent: "      ")
        try flushIfNeeded()
    }

    /// Ends the current `<trkseg>`, writing its raw extension fragments.
    public mutating func endSegment(extensions: [String] = []) throws(GeoError) {
        precondition(state == .inSegment, "GPXWriter.endSegment without beginSegment")
        writeRawExtensions(extensions, indent: "      ")
        write("    </trkseg>\n")
        state = .inTrack
        try flushIfNeeded()
    }

    /// Ends the current `<trk>`.
    public mutating func endTrack() throws(GeoError) {
        precondition(state == .inTrack, "GPXWriter.endTrack without beginTrack or with an open segment")
        write("  </trk>\n")
        state = .tracks
        try flushIfNeeded()
    }

    /// Writes the document's raw extension fragments and `</gpx>`, and flushes.
    public mutating func end(extensions: [String] = []) throws(GeoError) {
        precondition(state == .waypoints || state == .routes || state == .tracks, "GPXWriter.end with an open element")
        writeRawExtensions(extensions, indent: "    ")
        write("</gpx>\n")
        state = .ended
        try flush()
    }

    private mutating func flushIfNeeded() throws(GeoError) {
        if handle != nil && buffer.count >= 64 * 1024 { try flush() }
    }

    private mutating func flush() throws(GeoError) {
        guard let handle, !buffer.isEmpty else { return }
        do {
            try handle.write(contentsOf: buffer)
        } catch {
            throw GeoError(.io, "cannot write GPX: \(error.localizedDescription)")
        }
        flushed += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }

    @inline(__always)
    mutating func write(_ s: String) {
        var s = s
        s.withUTF8 { buffer.append(contentsOf: $0) }
    }

    /// `s` with `&`, `<`, `>` (and in attributes `"`) escaped and carriage returns as `&#13;`;
    /// control characters XML 1.0 cannot represent (U+0000–U+001F except tab, LF, CR) are dropped.
    public static func escape(_ s: String, attribute: Bool = false) -> String {
        guard s.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 < 0x20 }) else {
            return s
        }
        var out = ""
        out.reserveCapacity(s.utf8.count + 16)
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where attribute: out += "&quot;"
            case "\r": out += "&#13;"
            case "\t" where attribute: out += "&#9;"
            case "\n" where attribute: out += "&#10;"
            case "\t", "\n": out.unicodeScalars.append(c)
            case _ where c.value < 0x20: continue
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// The shortest decimal text (no exponent) that reads back as exactly `value`.
    public static func decimal(_ value: Double) -> String {
        var s = "\(value)"
        guard let e = s.firstIndex(where: { $0 == "e" || $0 == "E" }) else {
            if s.hasSuffix(".0") { s.removeLast(2) }
            return s
        }
        let exponent = Int(s[s.index(after: e)...]) ?? 0
        var mantissa = s[..<e]
        let negative = mantissa.hasPrefix("-")
        if negative { mantissa = mantissa.dropFirst() }
        let point = mantissa.firstIndex(of: ".").map { mantissa.distance(from: mantissa.startIndex, to: $0) } ?? mantissa.count
        var digits = mantissa.filter { $0 != "." }
        while digits.count > 1 && digits.hasSuffix("0") && digits.count > point + exponent { digits.removeLast() }
        let newPoint = point + exponent
        var out: String
        if newPoint <= 0 {
            out = "0." + String(repeating: "0", count: -newPoint) + digits
        } else if newPoint >= digits.count {
            out = digits + String(repeating: "0", count: newPoint - digits.count)
        } else {
            let i = digits.index(digits.startIndex, offsetBy: newPoint)
            out = digits[..<i] + "." + digits[i...]
        }
        return negative ? "-" + out : out
    }
}
