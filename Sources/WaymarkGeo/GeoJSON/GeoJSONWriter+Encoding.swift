extension GeoJSONWriter {
    /// `[lon,lat]` or `[lon,lat,ele]`.
    static func position(_ p: Waypoint, withElevation: Bool) -> String {
        var s = "[" + JSONText.number(p.coordinate.longitude) + "," + JSONText.number(p.coordinate.latitude)
        if withElevation, let e = p.elevation { s += "," + JSONText.number(e) }
        return s + "]"
    }

    /// The positions of `points` as a JSON array.
    static func positions(_ points: [Waypoint], _ withElevation: Bool) -> String {
        "[" + points.map { position($0, withElevation: withElevation) }.joined(separator: ",") + "]"
    }

    /// The times of `points` as a JSON array of ISO-8601 strings and nulls; nil when no point has a time.
    static func times(_ points: [Waypoint]) -> String? {
        guard points.contains(where: { $0.time != nil }) else { return nil }
        let items = points.map { $0.time.map { JSONText.quoted(ISO8601UTC.string($0)) } ?? "null" }
        return "[" + items.joined(separator: ",") + "]"
    }

    static func nullTimes(_ count: Int) -> String {
        "[" + Array(repeating: "null", count: count).joined(separator: ",") + "]"
    }

    static func pathProperties(kind: String, _ info: PathInfo) -> [(String, String)] {
        var properties: [(String, String)] = [("kind", JSONText.quoted(kind))]
        add(&properties, "name", info.name)
        add(&properties, "cmt", info.comment)
        add(&properties, "desc", info.description)
        add(&properties, "src", info.source)
        add(&properties, "type", info.type)
        if let number = info.number { properties.append(("number", String(number))) }
        return properties
    }

    static func add(_ properties: inout [(String, String)], _ key: String, _ value: String?) {
        if let value { properties.append((key, JSONText.quoted(value))) }
    }
}
