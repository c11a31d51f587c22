import Foundation

extension GPXDocument {
    /// Reads a whole GPX file into memory.
    ///
    /// For example:
    ///
    /// ```swift
    /// let doc = try GPXDocument(contentsOf: URL(fileURLWithPath: "ride.gpx"))
    /// print(doc.tracks.first?.points.count ?? 0)
    /// ```
    ///
    /// - throws: ``GeoError`` naming `file:line:column` (see ``GPXReader``). With
    ///   `options.lenient`, invalid points are dropped silently; use
    ///   ``read(contentsOf:options:)`` to get the issues as well.
    public init(contentsOf url: URL, options: GPXReadOptions = GPXReadOptions()) throws(GeoError) {
        var reader = try GPXReader(contentsOf: url, options: options)
        self = try GPXDocument.build(&reader).document
    }

    /// Reads a whole GPX document from bytes; `name` appears in error locations.
    ///
    /// - throws: ``GeoError`` (see ``GPXReader``).
    public init(data: Data, name: String? = nil, options: GPXReadOptions = GPXReadOptions()) throws(GeoError) {
        var reader = try GPXReader(data: data, name: name, options: options)
        self = try GPXDocument.build(&reader).document
    }

    /// Reads a whole GPX file leniently: the document without its invalid points, and one issue per skip.
    ///
    /// - throws: ``GeoError`` for XML that is not well formed, a wrong root element, or I/O errors.
    public static func read(contentsOf url: URL, options: GPXReadOptions = GPXReadOptions(lenient: true))
        throws(GeoError) -> (document: GPXDocument, issues: [GPXIssue]) {
        var reader = try GPXReader(contentsOf: url, options: options)
        return try build(&reader)
    }

    /// Reads a whole GPX document from bytes leniently; see ``read(contentsOf:options:)``.
    public static func read(data: Data, name: String? = nil, options: GPXReadOptions = GPXReadOptions(lenient: true))
        throws(GeoError) -> (document: GPXDocument, issues: [GPXIssue]) {
        var reader = try GPXReader(data: data, name: name, options: options)
        return try build(&reader)
    }

    static func build(_ reader: inout GPXReader) throws(GeoError) -> (document: GPXDocument, issues: [GPXIssue]) {
        var doc = GPXDocument()
        var issues: [GPXIssue] = []
        var track = Track()
        var segment = TrackSegment()
        var route = Route()
        while let event = try reader.next() {
            switch event {
            case .document(let version, let creator):
                doc.version = version
                doc.creator = creator
            case .metadata(let metadata): doc.metadata = metadata
            case .waypoint(let point): doc.waypoints.append(point)
            case .routeBegin(let info): route = Route(info: info)
            case .routePoint(let point): route.points.append(point)
            case .routeEnd(let info):
                route.info = info
                doc.routes.append(route)
                route = Route()
            case .trackBegin(let info): track = Track(info: info)
            case .segmentBegin: segment = TrackSegment()
            case .trackPoint(let point): segment.points.append(point)
            case .segmentEnd(let extensions):
                segment.extensions = extensions
                track.segments.append(segment)
                segment = TrackSegment()
            case .trackEnd(let info):
                track.info = info
                doc.tracks.append(track)
                track = Track()
            case .extensions(let raw): doc.extensions = raw
            case .issue(let issue): issues.append(issue)
            }
        }
        return (doc, issues)
    }
}
