import Foundation

/// One step of a GPX file as ``GPXReader`` reports it, in file order.
///
/// A track arrives as `trackBegin`, then for each `<trkseg>` a `segmentBegin`,
/// its `trackPoint`s and a `segmentEnd`, and finally `trackEnd`; routes likewise
/// with `routeBegin`, `routePoint`s and `routeEnd`. `trackBegin`/`routeBegin`
/// carry the descriptive fields seen before the first segment or point (GPX puts
/// them first); `trackEnd`/`routeEnd` carry the complete set.
///
/// `GPXEvent` is a `Sendable` value type.
public enum GPXEvent: Hashable, Sendable {
    /// The `<gpx>` root: its version (`"1.0"` or `"1.1"`; taken from the namespace when the
    /// attribute is missing) and creator.
    indirect case document(version: String, creator: String?)
    /// The document metadata (GPX 1.1 `<metadata>`, or the GPX 1.0 top-level fields).
    indirect case metadata(GPXMetadata)
    /// A `<wpt>`.
    case waypoint(Waypoint)
    /// A `<rte>` starts; the route's fields seen before its first point.
    indirect case routeBegin(PathInfo)
    /// A `<rtept>` of the current route.
    case routePoint(Waypoint)
    /// The current `<rte>` ends; all its fields.
    indirect case routeEnd(PathInfo)
    /// A `<trk>` starts; the track's fields seen before its first segment.
    indirect case trackBegin(PathInfo)
    /// A `<trkseg>` of the current track starts.
    case segmentBegin
    /// A `<trkpt>` of the current segment.
    case trackPoint(Waypoint)
    /// The current `<trkseg>` ends, with the raw XML of its `<extensions>` children.
    indirect case segmentEnd(extensions: [String])
    /// The current `<trk>` ends; all its fields.
    indirect case trackEnd(PathInfo)
    /// The raw XML of the document's top-level `<extensions>` children (and unknown top-level elements).
    indirect case extensions([String])
    /// Lenient mode only: something invalid was skipped (a point, or a field outside points).
    indirect case issue(GPXIssue)
}

/// A problem that lenient reading skipped instead of throwing.
///
/// `GPXIssue` is a `Sendable` value type.
public struct GPXIssue: Hashable, Sendable, CustomStringConvertible {
    /// The error strict reading would have thrown.
    public var error: GeoError
    /// What was skipped because of it, e.g. `"<trkpt>"` or `"<time> of <metadata>"`.
    public var skipped: String

    /// Makes an issue.
    public init(error: GeoError, skipped: String) {
        self.error = error
        self.skipped = skipped
    }

    /// Where in the input the problem is.
    public var location: SourceLocation? { error.location }

    /// `file:line:column: message (skipped …)`.
    public var description: String { "\(error) (skipped \(skipped))" }
}

/// Options for ``GPXReader`` and the whole-document readers.
///
/// `GPXReadOptions` is a `Sendable` value type.
public struct GPXReadOptions: Hashable, Sendable {
    /// Skip invalid points (bad or missing coordinates, unparsable numbers or times) and
    /// report each as a ``GPXEvent/issue(_:)`` instead of throwing. XML that is not well
    /// formed still throws, after every event before the fault has been delivered.
    public var lenient: Bool
    /// Bytes read from the file at a time; the reader's buffer starts at this size. Default 512 KiB.
    public var chunkSize: Int
    /// The longest single tag, text run, comment or raw extension accepted, in bytes
    /// (bounds memory on hostile input). Default 16 MiB.
    public var maxTokenBytes: Int
    /// The deepest element nesting accepted. Default 256.
    public var maxDepth: Int

    /// Makes options; the defaults suit any file.
    public init(lenient: Bool = false, chunkSize: Int = 512 * 1024, maxTokenBytes: Int = 16 * 1024 * 1024,
                maxDepth: Int = 256) {
        self.lenient = lenient
        self.chunkSize = chunkSize
        self.maxTokenBytes = maxTokenBytes
        self.maxDepth = maxDepth
    }
}
