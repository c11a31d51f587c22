import Foundation

extension GPXParser {
    /// Reads the `<gpx>` root: checks its name, takes version and creator, emits `.document`.
    func startDocument() throws(GeoError) {
        guard GPXTag.match(tok.buf, tok.nameStart, tok.nameEnd) == .gpx else {
            throw GeoError(.invalidGPX, "root element is <\(tok.excerpt(tok.nameStart, tok.nameEnd))>; expected <gpx>",
                           at: tok.location(at: tok.tokenStart))
        }
        var declared: String?
        var namespace: String?
        var creator: String?
        for a in tok.attributes {
            if tok.nameEquals(a.nameStart, a.nameEnd, "version") { declared = try tok.value(of: a) }
            else if tok.nameEquals(a.nameStart, a.nameEnd, "creator") { creator = try tok.value(of: a) }
            else if tok.nameEquals(a.nameStart, a.nameEnd, "xmlns") { namespace = try tok.value(of: a) }
        }
        if let declared, !declared.isEmpty {
            version = declared
        } else if let namespace, namespace.hasSuffix("GPX/1/0") {
            version = "1.0"
        }
        emit(.document(version: version, creator: creator))
    }

    func declareNamespace(_ a: XMLTokenizer.Attribute, depth: Int) throws(GeoError) {
        let name = tok.string(a.nameStart, a.nameEnd)
        guard name.hasPrefix("xmlns:") else { return }
        namespaces.append((prefix: String(name.dropFirst(6)), uri: try tok.value(of: a), depth: depth))
    }

    /// The value of the unprefixed attribute `name` of the current start tag.
    func attribute(_ name: StaticString) throws(GeoError) -> String? {
        for a in tok.attributes where tok.nameEquals(a.nameStart, a.nameEnd, name) { return try tok.value(of: a) }
        return nil
    }

    /// Parses a number attribute; nil when missing.
    private func numberAttribute(_ name: StaticString) -> (XMLTokenizer.Attribute, Double?)? {
        for a in tok.attributes where tok.nameEquals(a.nameStart, a.nameEnd, name) {
            if a.hasEntity {
                var bytes: [UInt8] = []
                guard (try? tok.appendValue(of: a, to: &bytes)) != nil else { return (a, nil) }
                return (a, bytes.withUnsafeBufferPointer { GPXNumberParsing.parseDouble($0.baseAddress!, $0.count) })
            }
            return (a, GPXNumberParsing.parseDouble(tok.buf + a.valueStart, a.valueEnd - a.valueStart))
        }
        return nil
    }

    /// Starts a `<wpt>`, `<rtept>` or `<trkpt>` from its `lat` and `lon` attributes.
    func beginPoint(_ kind: Context) throws(GeoError) {
        pointCount += 1
        if let maxPoints, pointCount > maxPoints {
            throw GeoError(.malformedXML, "<\(kind)> is point \(pointCount); the document may have at most \(maxPoints) "
                           + "(<wpt>, <rtept> and <trkpt> together; the limit, GPXReadOptions.maxPoints)",
                           at: tok.location(at: tok.tokenStart))
        }
        inPoint = true
        pointIssue = nil
        var lat = 0.0, lon = 0.0
        if let (a, value) = numberAttribute("lat") {
            if let value, value >= -90, value <= 90 { lat = value } else {
                try invalid(GeoError(.invalidCoordinate,
                                     "invalid latitude \"\(tok.excerpt(a.valueStart, a.valueEnd))\" on <\(kind)>; expected a number in [-90, 90]",
                                     at: tok.location(at: a.valueStart)), skipping: "<\(kind)>")
            }
        } else {
            try invalid(GeoError(.invalidGPX, "missing lat attribute on <\(kind)>; expected lat=\"…\" in [-90, 90]",
                                 at: tok.location(at: tok.tokenStart)), skipping: "<\(kind)>")
        }
        if let (a, value) = numberAttribute("lon") {
            if let value, value >= -180, value <= 180 { lon = Coordinate.normalizedLongitude(value) } else {
                try invalid(GeoError(.invalidCoordinate,
                                     "invalid longitude \"\(tok.excerpt(a.valueStart, a.valueEnd))\" on <\(kind)>; expected a number in [-180, 180]",
                                     at: tok.location(at: a.valueStart)), skipping: "<\(kind)>")
            }
        } else {
            try invalid(GeoError(.invalidGPX, "missing lon attribute on <\(kind)>; expected lon=\"…\" in [-180, 180]",
                                 at: tok.location(at: tok.tokenStart)), skipping: "<\(kind)>")
        }
        point = Waypoint(coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon))
        if detailsTouched { pointDetails = WaypointDetails(); detailsTouched = false }
        if extensionsTouched { pointExtensions = PointExtensions(); extensionsTouched = false }
    }

    /// Reads `<bounds minlat= minlon= maxlat= maxlon=>` into the metadata.
    func readBounds(parent: Context) throws(GeoError) {
        var values: [Double] = []
        for name: StaticString in ["minlat", "minlon", "maxlat", "maxlon"] {
            guard let (_, value) = numberAttribute(name), let value else {
                try invalid(GeoError(.invalidValue, "<bounds> needs numeric minlat, minlon, maxlat and maxlon attributes",
                                     at: tok.location(at: tok.tokenStart)), skipping: "<bounds>")
                return
            }
            values.append(value)
        }
        metadata.bounds = BoundingBox(minLatitude: values[0], minLongitude: values[1],
                                      maxLatitude: values[2], maxLongitude: values[3])
        if parent == .gpx { metadataPending = true }
    }

    // MARK: leaf values

    private var leafName: String { "\(leafTag)" }

    private func textString() -> String? {
        leafBytes.isEmpty ? nil : String(decoding: leafBytes, as: UTF8.self)
    }

    private var leafText: String { String(decoding: leafBytes, as: UTF8.self) }

    /// The leaf's text for an error message, cut to ``XMLTokenizer/maxEchoedBytes``.
    private var leafExcerpt: String { XMLTokenizer.excerpt(leafBytes) }

    private func isBlank() -> Bool { leafBytes.allSatisfy(XMLTokenizer.isSpace) }

    private func owner(_ parent: Context) -> String {
        switch parent {
        case .extensions, .trackPointExtension: return "extensions"
        default: return "\(parent)"
        }
    }

    /// The leaf's text as a number; nil when empty; an issue when unparsable.
    private func number(in parent: Context) throws(GeoError) -> Double? {
        let value = leafBytes.isEmpty ? nil : GPXNumberParsing.parseDouble(leafBytes.baseAddress!, leafBytes.count)
        if value == nil && !isBlank() {
            try invalid(GeoError(.invalidValue, "invalid <\(leafName)> \"\(leafExcerpt)\" in <\(owner(parent))>; expected a number",
                                 at: tok.location(absolute: leafValueOffset)), skipping: "<\(leafName)>")
        }
        return value
    }

    private func integer(in parent: Context, range: ClosedRange<Int> = Int.min...Int.max) throws(GeoError) -> Int? {
        guard let v = try number(in: parent) else { return nil }
        guard v == v.rounded(), abs(v) < 1e15, range.contains(Int(v)) else {
            let expected = range == Int.min...Int.max ? "an integer" : "an integer in \(range.lowerBound)...\(range.upperBound)"
            try invalid(GeoError(.invalidValue, "invalid <\(leafName)> \"\(leafExcerpt)\" in <\(owner(parent))>; expected \(expected)",
                                 at: tok.location(absolute: leafValueOffset)), skipping: "<\(leafName)>")
            return nil
        }
        return Int(v)
    }

    private func time(in parent: Context) throws(GeoError) -> Date? {
        if isBlank() { return nil }
        let value = GPXTime.parse(leafBytes.baseAddress!, leafBytes.count)
        if value == nil {
            try invalid(GeoError(.invalidValue, "invalid <time> \"\(leafExcerpt)\" in <\(owner(parent))>; expected an ISO-8601 time such as 2024-05-01T10:00:00Z",
                                 at: tok.location(absolute: leafValueOffset)), skipping: "<time>")
        }
        return value
    }

    /// Stores the text of the leaf element that just ended into the field it names.
    func finishLeaf(in parent: Context) throws(GeoError) {
        switch parent {
        case .wpt, .rtept, .trkpt: try finishPointLeaf(in: parent)
        case .extensions, .trackPointExtension:
            extensionsTouched = true
            switch leafTag {
            case .hr: pointExtensions.heartRate = try integer(in: parent, range: 0...1000)
            case .cad: pointExtensions.cadence = try integer(in: parent, range: 0...10_000)
            case .atemp: pointExtensions.temperature = try number(in: parent)
            case .wtemp: pointExtensions.waterTemperature = try number(in: parent)
            case .power, .powerInWatts: pointExtensions.power = try number(in: parent)
            case .speed: point.speed = try number(in: parent)
            case .course: point.course = try number(in: parent)
            default: break
            }
        case .rte, .trk:
            switch leafTag {
            case .name: path.name = textString()
            case .cmt: path.comment = textString()
            case .desc: path.description = textString()
            case .src: path.source = textString()
            case .type: path.type = textString()
            case .number: path.number = try integer(in: parent, range: 0...Int.max)
            case .url: path.links.append(GPXLink(href: textString() ?? ""))
            case .urlname: setURLName(&path.links)
            default: break
            }
        case .gpx, .metadata:
            if parent == .gpx { metadataPending = true }
            switch leafTag {
            case .name: metadata.name = textString()
            case .desc: metadata.description = textString()
            case .keywords: metadata.keywords = textString()
            case .time: metadata.time = try time(in: parent)
            case .author: metadata.author = GPXPerson(name: textString(), email: metadata.author?.email, link: metadata.author?.link)
            case .email:
                var person = metadata.author ?? GPXPerson()
                person.email = textString()
                metadata.author = person
            case .url: metadata.links.append(GPXLink(href: textString() ?? ""))
            case .urlname: setURLName(&metadata.links)
            default: break
            }
        case .author:
            if leafTag == .name { metadata.author?.name = textString() }
        case .copyright:
            if leafTag == .year { metadata.copyright?.year = try integer(in: parent) }
            if leafTag == .license { metadata.copyright?.license = textString() }
        case .link:
            if leafTag == .text { link.text = textString() }
            if leafTag == .type { link.type = textString() }
        default:
            break
        }
    }

    /// GPX 1.0 `<urlname>`: names the last `<url>` link, or makes a link without address.
    private func setURLName(_ links: inout [GPXLink]) {
        if let last = links.indices.last, links[last].text == nil { links[last].text = textString() }
        else { links.append(GPXLink(href: "", text: textString())) }
    }

    private func finishPointLeaf(in parent: Context) throws(GeoError) {
        switch leafTag {
        case .ele, .time, .fix, .sat, .hdop, .vdop, .pdop, .speed, .course: break
        default: detailsTouched = true
        }
        switch leafTag {
        case .ele: point.elevation = try number(in: parent)
        case .time: point.time = try time(in: parent)
        case .magvar: pointDetails.magneticVariation = try number(in: parent)
        case .geoidheight: pointDetails.geoidHeight = try number(in: parent)
        case .name: pointDetails.name = textString()
        case .cmt: pointDetails.comment = textString()
        case .desc: pointDetails.description = textString()
        case .src: pointDetails.source = textString()
        case .sym: pointDetails.symbol = textString()
        case .type: pointDetails.type = textString()
        case .url: pointDetails.links.append(GPXLink(href: textString() ?? ""))
        case .urlname: setURLName(&pointDetails.links)
        case .fix:
            if isBlank() { break }
            let value = leafText.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            if let fix = GPXFixType(rawValue: value) { point.fix = fix } else {
                try invalid(GeoError(.invalidValue, "invalid <fix> \"\(XMLTokenizer.excerpt(value))\" in <\(parent)>; expected none, 2d, 3d, dgps or pps",
                                     at: tok.location(absolute: leafValueOffset)), skipping: "<fix>")
            }
        case .sat: point.satellites = try integer(in: parent, range: 0...Int.max)
        case .hdop: point.hdop = try number(in: parent)
        case .vdop: point.vdop = try number(in: parent)
        case .pdop: point.pdop = try number(in: parent)
        case .ageofdgpsdata: pointDetails.ageOfDGPSData = try number(in: parent)
        case .dgpsid: pointDetails.dgpsID = try integer(in: parent, range: 0...1023)
        case .speed: point.speed = try number(in: parent)
        case .course: point.course = try number(in: parent)
        default: break
        }
    }
}
