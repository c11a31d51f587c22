import Foundation

/// Walks parsed GeoJSON and collects a ``GPXDocument`` (internal engine of ``GeoJSONReader``).
struct GeoJSONDocumentBuilder {
    var document = GPXDocument()

    mutating func read(root: JSONValue) throws(GeoError) {
        let type = try Self.typeName(of: root, at: "")
        switch type {
        case "FeatureCollection":
            guard case .array(let features)? = root["features"] else {
                throw Self.error("features", "expected an array of features")
            }
            for (i, feature) in features.enumerated() { try readFeature(feature, at: "features[\(i)]") }
        case "Feature":
            try readFeature(root, at: "")
        default:
            try readGeometry(root, properties: [:], at: "", propertiesPath: "properties")
        }
    }

    mutating func readFeature(_ feature: JSONValue, at path: String) throws(GeoError) {
        let type = try Self.typeName(of: feature, at: path)
        guard type == "Feature" else {
            throw Self.error(Self.join(path, "type"), "expected \"Feature\", found \"\(type)\"")
        }
        var properties: [String: JSONValue] = [:]
        switch feature["properties"] {
        case .object(let p)?: properties = p
        case .null?, nil: break
        case let other?: throw Self.error(Self.join(path, "properties"), "expected an object, found \(other.typeName)")
        }
        switch feature["geometry"] {
        case .null?, nil: return
        case let geometry?: try readGeometry(geometry, properties: properties, at: Self.join(path, "geometry"),
                                        propertiesPath: Self.join(path, "properties"))
        }
    }

    private mutating func readGeometry(_ geometry: JSONValue, properties: [String: JSONValue],
                                       at path: String, propertiesPath: String) throws(GeoError) {
        let type = try Self.typeName(of: geometry, at: path)
        let coordinatesPath = Self.join(path, "coordinates")
        guard let coordinates = geometry["coordinates"] else {
            throw Self.error(coordinatesPath, "missing; a \(type) needs coordinates")
        }
        // `coordTimes` (older togeojson, our writer) or `coordinateProperties.times` (newer togeojson).
        var times = properties["coordTimes"]
        var timesPath = Self.join(propertiesPath, "coordTimes")
        if times == nil, let modern = properties["coordinateProperties"]?["times"] {
            times = modern
            timesPath = Self.join(propertiesPath, "coordinateProperties.times")
        }
        switch type {
        case "Point":
            var point = try Self.position(coordinates, at: coordinatesPath)
            try Self.applyPointProperties(properties, to: &point, at: propertiesPath)
            document.waypoints.append(point)
        case "MultiPoint":
            for (i, item) in try Self.array(coordinates, at: coordinatesPath).enumerated() {
                var point = try Self.position(item, at: "\(coordinatesPath)[\(i)]")
                try Self.applyPointProperties(properties, to: &point, at: propertiesPath)
                document.waypoints.append(point)
            }
        case "LineString":
            let points = try Self.line(coordinates, times: times, at: coordinatesPath, timesPath: timesPath)
            let info = try Self.pathInfo(properties)
            if properties["kind"]?.string == "route" {
                document.routes.append(Route(info: info, points: points))
            } else {
                document.tracks.append(Track(info: info, segments: [TrackSegment(points: points)]))
            }
        case "MultiLineString":
            let lines = try Self.array(coordinates, at: coordinatesPath)
            var timeLines: [JSONValue]?
            switch times {
            case nil, .null?: break
            case .array(let t)? where t.count == lines.count: timeLines = t
            default: throw Self.error(timesPath, "expected \(lines.count) arrays of times, one per line")
            }
            var segments: [TrackSegment] = []
            for (i, line) in lines.enumerated() {
                let points = try Self.line(line, times: timeLines?[i], at: "\(coordinatesPath)[\(i)]",
                                           timesPath: "\(timesPath)[\(i)]")
                segments.append(TrackSegment(points: points))
            }
            document.tracks.append(Track(info: try Self.pathInfo(properties), segments: segments))
        default:
            throw Self.error(Self.join(path, "type"),
                             "unsupported geometry \"\(type)\"; expected Point, MultiPoint, LineString or MultiLineString")
        }
    }
}
