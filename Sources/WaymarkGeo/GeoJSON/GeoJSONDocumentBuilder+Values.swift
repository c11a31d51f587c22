import Foundation

extension GeoJSONDocumentBuilder {
    static func error(_ path: String, _ message: String) -> GeoError {
        GeoError(.invalidGeoJSON, path.isEmpty ? message : "\(path): \(message)")
    }

    static func join(_ path: String, _ key: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }

    static func typeName(of value: JSONValue, at path: String) throws(GeoError) -> String {
        guard case .object = value else {
            throw error(path, "expected a GeoJSON object, found \(value.typeName)")
        }
        guard let type = value["type"]?.string else {
            throw error(join(path, "type"), "expected a string naming the GeoJSON type")
        }
        return type
    }

    static func array(_ value: JSONValue, at path: String) throws(GeoError) -> [JSONValue] {
        guard case .array(let items) = value else { throw error(path, "expected an array, found \(value.typeName)") }
        return items
    }

    /// A `[longitude, latitude(, elevation)]` position as a waypoint.
    static func position(_ value: JSONValue, at path: String) throws(GeoError) -> Waypoint {
        guard case .array(let items) = value, items.count >= 2,
              let longitude = items[0].number, let latitude = items[1].number else {
            throw error(path, "expected [longitude, latitude]")
        }
        let coordinate: Coordinate
        do {
            coordinate = try Coordinate(latitude: latitude, longitude: longitude)
        } catch {
            throw Self.error(path, error.message)
        }
        var elevation: Double?
        if items.count >= 3 {
            guard let e = items[2].number else { throw error("\(path)[2]", "expected an elevation in metres") }
            elevation = e
        }
        return Waypoint(coordinate: coordinate, elevation: elevation)
    }

    /// The positions of a line, with times from the parallel `coordTimes` array when present.
    static func line(_ value: JSONValue, times: JSONValue?, at path: String,
                     timesPath: String) throws(GeoError) -> [Waypoint] {
        let items = try array(value, at: path)
        var timeItems: [JSONValue]?
        switch times {
        case nil, .null?: break
        case .array(let t)? where t.count == items.count: timeItems = t
        default: throw error(timesPath, "expected an array of \(items.count) times, one per position")
        }
        var points: [Waypoint] = []
        points.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            var point = try position(item, at: "\(path)[\(i)]")
            if let timeItems { point.time = try time(timeItems[i], at: "\(timesPath)[\(i)]") }
            points.append(point)
        }
        return points
    }

    static func time(_ value: JSONValue, at path: String) throws(GeoError) -> Date? {
        switch value {
        case .null: return nil
        case .string(let s):
            guard let date = ISO8601UTC.date(from: s) else {
                throw error(path, "\"\(s)\" is not an ISO-8601 date-time such as 2024-05-01T10:00:00Z")
            }
            return date
        default: throw error(path, "expected an ISO-8601 time string, found \(value.typeName)")
        }
    }

    static func pathInfo(_ properties: [String: JSONValue]) throws(GeoError) -> PathInfo {
        var info = PathInfo()
        info.name = properties["name"]?.string
        info.comment = properties["cmt"]?.string
        info.description = properties["desc"]?.string
        info.source = properties["src"]?.string
        info.type = properties["type"]?.string
        info.number = properties["number"]?.number.flatMap { Int(exactly: $0) }
        return info
    }

    static func applyPointProperties(_ properties: [String: JSONValue], to point: inout Waypoint,
                                     at propertiesPath: String) throws(GeoError) {
        point.details.name = properties["name"]?.string
        point.details.comment = properties["cmt"]?.string
        point.details.description = properties["desc"]?.string
        point.details.source = properties["src"]?.string
        point.details.symbol = properties["sym"]?.string
        point.details.type = properties["type"]?.string
        if let time = properties["time"] { point.time = try Self.time(time, at: join(propertiesPath, "time")) }
    }
}
