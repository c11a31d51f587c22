import Foundation

/// A recorded path (GPX `<trk>`): an ordered list of segments, each a run of
/// points recorded without interruption.
public struct Track: Hashable, Sendable {
    public var info: PathInfo
    public var segments: [TrackSegment]

    public init(info: PathInfo = PathInfo(), segments: [TrackSegment] = []) {
        self.info = info
        self.segments = segments
    }

    /// All points of all segments, in order.
    public var points: [Waypoint] { segments.flatMap(\.points) }
}

/// A run of track points recorded without a gap (GPX `<trkseg>`).
public struct TrackSegment: Hashable, Sendable {
    public var points: [Waypoint]
    /// Raw XML of the segment's `<extensions>`, if any.
    public var extensions: [String]

    public init(points: [Waypoint] = [], extensions: [String] = []) {
        self.points = points
        self.extensions = extensions
    }
}

/// A planned path (GPX `<rte>`): an ordered list of route points.
public struct Route: Hashable, Sendable {
    public var info: PathInfo
    public var points: [Waypoint]

    public init(info: PathInfo = PathInfo(), points: [Waypoint] = []) {
        self.info = info
        self.points = points
    }
}

/// The descriptive fields shared by tracks and routes.
public struct PathInfo: Hashable, Sendable {
    public var name: String?
    public var comment: String?
    public var description: String?
    public var source: String?
    public var links: [GPXLink]
    /// GPS slot number (`<number>`).
    public var number: Int?
    public var type: String?
    /// Raw XML of the path's `<extensions>` children.
    public var extensions: [String]

    public init(name: String? = nil, comment: String? = nil, description: String? = nil, source: String? = nil,
                links: [GPXLink] = [], number: Int? = nil, type: String? = nil, extensions: [String] = []) {
        self.name = name
        self.comment = comment
        self.description = description
        self.source = source
        self.links = links
        self.number = number
        self.type = type
        self.extensions = extensions
    }
}

/// Document metadata (GPX 1.1 `<metadata>`, or the GPX 1.0 top-level fields).
public struct GPXMetadata: Hashable, Sendable {
    public var name: String?
    public var description: String?
    public var author: GPXPerson?
    public var copyright: GPXCopyright?
    public var links: [GPXLink]
    public var time: Date?
    public var keywords: String?
    /// The bounds the file declares (not computed).
    public var bounds: BoundingBox?
    public var extensions: [String]

    public init(name: String? = nil, description: String? = nil, author: GPXPerson? = nil,
                copyright: GPXCopyright? = nil, links: [GPXLink] = [], time: Date? = nil,
                keywords: String? = nil, bounds: BoundingBox? = nil, extensions: [String] = []) {
        self.name = name
        self.description = description
        self.author = author
        self.copyright = copyright
        self.links = links
        self.time = time
        self.keywords = keywords
        self.bounds = bounds
        self.extensions = extensions
    }

    public var isEmpty: Bool { self == GPXMetadata() }
}

/// A GPX `personType`.
public struct GPXPerson: Hashable, Sendable {
    public var name: String?
    public var email: String?
    public var link: GPXLink?
    public init(name: String? = nil, email: String? = nil, link: GPXLink? = nil) {
        self.name = name
        self.email = email
        self.link = link
    }
}

/// A GPX `copyrightType`.
public struct GPXCopyright: Hashable, Sendable {
    public var author: String
    public var year: Int?
    public var license: String?
    public init(author: String, year: Int? = nil, license: String? = nil) {
        self.author = author
        self.year = year
        self.license = license
    }
}

/// A whole GPX file in memory. For files of any size use the streaming ``GPXReader``.
public struct GPXDocument: Hashable, Sendable {
    /// "1.0" or "1.1" as the file declares.
    public var version: String
    public var creator: String?
    public var metadata: GPXMetadata
    public var waypoints: [Waypoint]
    public var routes: [Route]
    public var tracks: [Track]
    /// Raw XML of the document's top-level `<extensions>` children.
    public var extensions: [String]

    public init(version: String = "1.1", creator: String? = nil, metadata: GPXMetadata = GPXMetadata(),
                waypoints: [Waypoint] = [], routes: [Route] = [], tracks: [Track] = [], extensions: [String] = []) {
        self.version = version
        self.creator = creator
        self.metadata = metadata
        self.waypoints = waypoints
        self.routes = routes
        self.tracks = tracks
        self.extensions = extensions
    }
}
