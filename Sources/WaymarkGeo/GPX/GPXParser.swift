import Foundation

/// The GPX state machine behind ``GPXReader`` (internal): turns tokens into events.
final class GPXParser {
    /// What the element being read is, for deciding what its children mean.
    enum Context: UInt8 {
        case gpx, metadata, author, copyright, link
        case wpt, rte, rtept, trk, trkseg, trkpt
        case extensions, trackPointExtension
        case leaf, skip, raw
    }

    /// Where a captured raw extension fragment goes.
    enum RawTarget { case point, path, segment, metadata, document }

    let tok: XMLTokenizer
    let lenient: Bool
    let maxRawBytes: Int
    /// The most points the document may have (nil: no limit); see ``GPXReadOptions/maxPoints``.
    let maxPoints: Int?
    /// `<wpt>`, `<rtept>` and `<trkpt>` elements started so far.
    @exclusivity(unchecked) var pointCount = 0
    @exclusivity(unchecked) var contexts: [Context] = []
    @exclusivity(unchecked) var first: GPXEvent?
    /// Set when a step produced exactly one point, returned straight from ``point`` without queueing.
    @exclusivity(unchecked) var pointReady: Context?
    @exclusivity(unchecked) var events: [GPXEvent] = []
    @exclusivity(unchecked) var head = 0
    @exclusivity(unchecked) var finished = false
    @exclusivity(unchecked) var failure: GeoError?

    @exclusivity(unchecked) var version = "1.1"
    @exclusivity(unchecked) var leafTag: GPXTag = .unknown
    @exclusivity(unchecked) var leafValueOffset = 0
    @exclusivity(unchecked) var text: [UInt8] = []
    /// How the current leaf's text is held: 0 none yet, 1 one run still in the tokenizer's
    /// (pinned) buffer at absolute offsets `directStart..<directEnd`, 2 copied into ``text``.
    @exclusivity(unchecked) var leafMode: UInt8 = 0
    @exclusivity(unchecked) var directStart = 0
    @exclusivity(unchecked) var directEnd = 0
    /// The finished leaf's text while ``finishLeaf(in:)`` runs.
    @exclusivity(unchecked) var leafBytes = UnsafeBufferPointer<UInt8>(start: nil, count: 0)

    @exclusivity(unchecked) var point = Waypoint(coordinate: Coordinate(uncheckedLatitude: 0, longitude: 0))
    @exclusivity(unchecked) var pointIssue: GeoError?
    /// The current point's details and extensions, built apart and stored into ``point`` once at its end.
    @exclusivity(unchecked) var pointDetails = WaypointDetails()
    @exclusivity(unchecked) var pointExtensions = PointExtensions()
    @exclusivity(unchecked) var detailsTouched = false
    @exclusivity(unchecked) var extensionsTouched = false
    @exclusivity(unchecked) var inPoint = false
    @exclusivity(unchecked) var link = GPXLink(href: "")
    @exclusivity(unchecked) var metadata = GPXMetadata()
    @exclusivity(unchecked) var metadataPending = false
    @exclusivity(unchecked) var path = PathInfo()
    @exclusivity(unchecked) var pathBegun = false
    @exclusivity(unchecked) var segmentExtensions: [String] = []
    @exclusivity(unchecked) var documentExtensions: [String] = []

    @exclusivity(unchecked) var raw: [UInt8] = []
    @exclusivity(unchecked) var rawDepth = 0
    @exclusivity(unchecked) var rawTarget = RawTarget.document
    @exclusivity(unchecked) var rawRootNameEnd = 0
    @exclusivity(unchecked) var rawPrefixes: [String] = []
    /// In-scope `xmlns:prefix` declarations with the depth of the element declaring them.
    @exclusivity(unchecked) var namespaces: [(prefix: String, uri: String, depth: Int)] = []

    init(input: GPXInput, options: GPXReadOptions) {
        tok = XMLTokenizer(input: input, chunkSize: options.chunkSize, maxTokenBytes: options.maxTokenBytes,
                           maxDepth: options.maxDepth, maxAttributes: options.maxAttributes,
                           maxElements: options.maxElements)
        lenient = options.lenient
        maxPoints = options.maxPoints
        maxRawBytes = options.maxTokenBytes
        contexts.reserveCapacity(16)
        events.reserveCapacity(8)
        text.reserveCapacity(64)
    }

    /// The next event, or nil after the end of the document.
    func next() throws(GeoError) -> GPXEvent? {
        if let event = first.take() { return event }
        if head < events.count {
            head += 1
            return events[head - 1]
        }
        if head > 0 { events.removeAll(keepingCapacity: true); head = 0 }
        if let failure { throw failure }
        while !finished {
            do {
                try step()
            } catch {
                failure = error
                throw error
            }
            if let kind = pointReady {
                pointReady = nil
                switch kind {
                case .wpt: return .waypoint(point)
                case .rtept: return .routePoint(point)
                default: return .trackPoint(point)
                }
            }
            if let event = first.take() { return event }
        }
        return nil
    }

    /// Queues an event; the first of a step is kept apart so the common one-event step never touches the queue.
    @inline(__always)
    func emit(_ event: GPXEvent) {
        if first == nil && events.isEmpty { first = event } else { events.append(event) }
    }

    private func step() throws(GeoError) {
        switch try tok.next() {
        case .startTag: try startElement()
        case .endTag: try endElement()
        case .text:
            switch contexts.last {
            case .leaf?: try appendLeafText()
            case .raw?: try appendRawText()
            default: try tok.validateText()
            }
        case .end:
            finished = true
        }
    }

    /// Collects a text token of the current leaf: kept in place when it is the only run
    /// and needs no decoding (the common case), copied and decoded otherwise.
    private func appendLeafText() throws(GeoError) {
        if leafMode == 0 && !tok.textHasEntity {
            directStart = tok.base + tok.textStart
            directEnd = tok.base + tok.textEnd
            leafMode = 1
            return
        }
        if leafMode != 2 {
            text.removeAll(keepingCapacity: true)
            if leafMode == 1 {
                text.append(contentsOf: UnsafeBufferPointer(start: tok.buf + (directStart - tok.base), count: directEnd - directStart))
            }
            leafMode = 2
        }
        try tok.appendText(to: &text)
    }

    /// Reports an invalid value: throws in strict mode; in lenient mode marks the current point
    /// as skipped, or emits an issue for a field outside points.
    func invalid(_ error: GeoError, skipping what: @autoclosure () -> String) throws(GeoError) {
        guard lenient else { throw error }
        if inPoint {
            if pointIssue == nil { pointIssue = error }
        } else {
            emit(.issue(GPXIssue(error: error, skipped: what())))
        }
    }

    // MARK: start tags

    private func startElement() throws(GeoError) {
        let depth = contexts.count
        if tok.hasNamespaceDeclaration {
            for a in tok.attributes where a.nameEnd - a.nameStart >= 5 && tok.nameEquals(a.nameStart, a.nameStart + 5, "xmlns") {
                try declareNamespace(a, depth: depth)
            }
        }
        guard let parent = contexts.last else {
            try startDocument()
            contexts.append(.gpx)
            return
        }
        switch parent {
        case .raw:
            try rawStart()
            contexts.append(.raw)
            return
        case .skip, .leaf:
            contexts.append(.skip)
            return
        default:
            break
        }
        let tag = GPXTag.match(tok.buf, tok.nameStart, tok.nameEnd)
        let child = classify(tag, in: parent)
        switch child {
        case .leaf:
            leafTag = tag
            leafMode = 0
            leafValueOffset = tok.base + tok.pos
            if tok.takeSimpleContent() {
                // Text and end tag consumed together: finish the leaf as endElement would.
                leafBytes = UnsafeBufferPointer(start: tok.buf + tok.textStart, count: tok.textEnd - tok.textStart)
                try finishLeaf(in: parent)
                leafBytes = UnsafeBufferPointer(start: nil, count: 0)
                while let last = namespaces.last, last.depth >= depth { namespaces.removeLast() }
                return
            }
            tok.pinned = leafValueOffset
        case .wpt, .rtept, .trkpt:
            flushMetadata()
            if child == .rtept && !pathBegun { emit(.routeBegin(path)); pathBegun = true }
            try beginPoint(child)
        case .rte, .trk:
            flushMetadata()
            path = PathInfo()
            pathBegun = false
        case .trkseg:
            if !pathBegun { emit(.trackBegin(path)); pathBegun = true }
            emit(.segmentBegin)
            segmentExtensions.removeAll()
        case .extensions:
            if parent == .gpx { flushMetadata() }
        case .link:
            link = GPXLink(href: try attribute("href") ?? "")
        case .author:
            if metadata.author == nil { metadata.author = GPXPerson() }
        case .copyright:
            metadata.copyright = GPXCopyright(author: try attribute("author") ?? "")
        case .raw:
            beginRaw(parent: parent)
            try rawStart()
        case .skip:
            if tag == .bounds && (parent == .metadata || parent == .gpx) { try readBounds(parent: parent) }
            if tag == .email && parent == .author, let id = try attribute("id"), let domain = try attribute("domain") {
                metadata.author?.email = "\(id)@\(domain)"
            }
        default:
            break
        }
        contexts.append(child)
    }

    /// What a `tag` element inside a `parent` element is.
    private func classify(_ tag: GPXTag, in parent: Context) -> Context {
        switch parent {
        case .gpx:
            switch tag {
            case .metadata: return .metadata
            case .wpt: return .wpt
            case .rte: return .rte
            case .trk: return .trk
            case .extensions: return .extensions
            case .name, .desc, .author, .email, .url, .urlname, .time, .keywords: return .leaf
            case .bounds: return .skip
            default: return .raw
            }
        case .metadata:
            switch tag {
            case .name, .desc, .time, .keywords: return .leaf
            case .author: return .author
            case .copyright: return .copyright
            case .link: return .link
            case .extensions: return .extensions
            default: return .skip
            }
        case .author:
            switch tag {
            case .name: return .leaf
            case .link: return .link
            default: return .skip
            }
        case .copyright:
            return tag == .year || tag == .license ? .leaf : .skip
        case .link:
            return tag == .text || tag == .type ? .leaf : .skip
        case .wpt, .rtept, .trkpt:
            switch tag {
            case .ele, .time, .magvar, .geoidheight, .name, .cmt, .desc, .src, .url, .urlname, .sym, .type,
                 .fix, .sat, .hdop, .vdop, .pdop, .ageofdgpsdata, .dgpsid, .speed, .course:
                return .leaf
            case .link: return .link
            case .extensions: return .extensions
            default: return .raw
            }
        case .rte, .trk:
            switch tag {
            case .rtept where parent == .rte: return .rtept
            case .trkseg where parent == .trk: return .trkseg
            case .name, .cmt, .desc, .src, .number, .type, .url, .urlname: return .leaf
            case .link: return .link
            case .extensions: return .extensions
            default: return .raw
            }
        case .trkseg:
            switch tag {
            case .trkpt: return .trkpt
            case .extensions: return .extensions
            default: return .raw
            }
        case .extensions:
            let owner = contexts.count >= 2 ? contexts[contexts.count - 2] : .gpx
            guard owner == .wpt || owner == .rtept || owner == .trkpt else { return .raw }
            switch tag {
            case .trackPointExtension: return .trackPointExtension
            case .power, .powerInWatts, .speed, .course: return .leaf
            default: return .raw
            }
        case .trackPointExtension:
            switch tag {
            case .hr, .cad, .atemp, .wtemp, .speed, .course: return .leaf
            default: return .raw
            }
        case .leaf, .skip, .raw:
            return .skip
        }
    }

    // MARK: end tags

    private func endElement() throws(GeoError) {
        let closed = contexts.removeLast()
        let depth = contexts.count
        while let last = namespaces.last, last.depth >= depth { namespaces.removeLast() }
        switch closed {
        case .leaf:
            let parent = contexts[depth - 1]
            switch leafMode {
            case 0:
                leafBytes = UnsafeBufferPointer(start: nil, count: 0)
                try finishLeaf(in: parent)
            case 1:
                leafBytes = UnsafeBufferPointer(start: tok.buf + (directStart - tok.base), count: directEnd - directStart)
                try finishLeaf(in: parent)
            default:
                try text.withUnsafeBufferPointer { (bytes) throws(GeoError) in
                    leafBytes = bytes
                    try finishLeaf(in: parent)
                }
            }
            leafBytes = UnsafeBufferPointer(start: nil, count: 0)
            tok.pinned = -1
        case .raw:
            try rawEnd()
        case .wpt, .rtept, .trkpt:
            finishPoint(closed)
        case .metadata:
            emit(.metadata(metadata))
        case .rte:
            if !pathBegun { emit(.routeBegin(path)) }
            emit(.routeEnd(path))
            pathBegun = false
        case .trk:
            if !pathBegun { emit(.trackBegin(path)) }
            emit(.trackEnd(path))
            pathBegun = false
        case .trkseg:
            emit(.segmentEnd(extensions: segmentExtensions))
        case .link:
            finishLink(in: contexts[depth - 1])
        case .gpx:
            flushMetadata()
            if !documentExtensions.isEmpty { emit(.extensions(documentExtensions)) }
        default:
            break
        }
    }

    func flushMetadata() {
        if metadataPending {
            emit(.metadata(metadata))
            metadataPending = false
        }
    }

    private func finishPoint(_ kind: Context) {
        inPoint = false
        if detailsTouched { point.details = pointDetails }
        if extensionsTouched { point.extensions = pointExtensions }
        if let issue = pointIssue {
            pointIssue = nil
            emit(.issue(GPXIssue(error: issue, skipped: "<\(kind)>")))
            return
        }
        if first == nil && events.isEmpty {
            pointReady = kind
            return
        }
        switch kind {
        case .wpt: emit(.waypoint(point))
        case .rtept: emit(.routePoint(point))
        default: emit(.trackPoint(point))
        }
    }

    private func finishLink(in owner: Context) {
        switch owner {
        case .wpt, .rtept, .trkpt: pointDetails.links.append(link); detailsTouched = true
        case .rte, .trk: path.links.append(link)
        case .metadata: metadata.links.append(link)
        case .author: metadata.author?.link = link
        default: break
        }
    }
}
