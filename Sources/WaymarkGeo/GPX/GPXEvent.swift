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
/// The limits bound the work and memory one input can cost, for input from
/// strangers (an upload to a server). Exceeding one throws a ``GeoError`` with code
/// `.malformedXML` (also in lenient mode) naming the limit, the element and
/// `file:line:column`. The defaults accept any real GPX file: `maxAttributes` (256)
/// is far above what GPX uses (fewer than 10), and there is no default cap on
/// elements or points, so a 1 GB track reads as before. A server should set
/// ``maxPoints`` to what it accepts per request:
///
/// ```swift
/// let options = GPXReadOptions(maxPoints: 100_000)
/// let doc = try GPXDocument(data: body, name: "upload.gpx", options: options)
/// ```
///
/// `GPXReadOptions` is a `Sendable` value type.
public struct GPXReadOptions: Hashable, Sendable {
    /// The default ``maxAttributes``: 256 attributes on one element.
    public static let defaultMaxAttributes = 256

    /// Skip invalid points (bad or missing coordinates, unparsable numbers or times) and
    /// report each as a ``GPXEvent/issue(_:)`` instead of throwing. XML that is not well
    /// formed still throws, after every event before the fault has been delivered; so does
    /// exceeding a limit.
    public var lenient: Bool
    /// Bytes read from the file at a time; the reader's buffer starts at this size. Default 512 KiB.
    public var chunkSize: Int
    /// The longest single tag, text run, comment or raw extension accepted, in bytes
    /// (bounds memory on hostile input). Default 16 MiB.
    public var maxTokenBytes: Int
    /// The deepest element nesting accepted. Default 256.
    public var maxDepth: Int
    /// The most attributes one element may have. Default ``defaultMaxAttributes`` (256);
    /// GPX elements have fewer than 10. Duplicate attributes are found in time linear in
    /// the number of attributes whatever this is set to.
    public var maxAttributes: Int
    /// The most elements (start tags, empty elements included) one document may have;
    /// nil (the default) for no limit.
    public var maxElements: Int?
    /// The most points (`<wpt>`, `<rtept>` and `<trkpt>` together, skipped ones included)
    /// one document may have; nil (the default) for no limit.
    public var maxPoints: Int?

    /// Makes options; the defaults suit any file.
    public init(lenient: Bool = false, chunkSize: Int = 512 * 1024, maxTokenBytes: Int = 16 * 1024 * 1024,
                maxDepth: Int = 256, maxAttributes: Int = GPXReadOptions.defaultMaxAttributes,
                maxElements: Int? = nil, maxPoints: Int? = nil) {
        self.lenient = lenient
        self.chunkSize = chunkSize
        self.maxTokenBytes = maxTokenBytes
        self.maxDepth = maxDepth
        self.maxAttributes = maxAttributes
        self.maxElements = maxElements
        self.maxPoints = maxPoints
    }
}

extension GeoError.Code {
    /// Reading stopped because the current task was cancelled (``GPXReader`` checks every
    /// few thousand tokens, so a server can stop parsing an upload whose client went away).
    public static let cancelled = GeoError.Code(rawValue: "cancelled")
}
