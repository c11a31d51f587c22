import Foundation
import WaymarkGeo

/// Reads fences from GeoJSON and writes them back, for the API, the store and `waymark fence import`.
///
/// A circle is a GeoJSON `Point` feature with a `radiusMeters` property; a polygon is a
/// `Polygon` feature (first ring the exterior, the others holes). Properties: `name`,
/// optional `id` and `dwellSeconds`. A shorthand `{"name","latitude","longitude","radiusMeters"}`
/// is accepted for circles. Pure functions, thread-safe.
///
/// ```swift
/// let fences = try FenceCodec.fences(fromJSON: #"{"type":"FeatureCollection","features":[…]}"#.data(using: .utf8)!)
/// ```
public enum FenceCodec {
    /// The fences in a JSON document: a FeatureCollection, one Feature, an array of either, or the circle shorthand.
    ///
    /// Fences without an `id` get a new random one.
    /// - throws: ``ServerError`` ``ServerError/Code/malformedBody`` naming the feature and field at fault.
    public static func fences(fromJSON data: Data) throws -> [ServerFence] {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw ServerError(.malformedBody, "the fence document is not valid JSON: \((error as NSError).userInfo[NSDebugDescriptionErrorKey] ?? error)")
        }
        return try fences(from: object)
    }

    /// The fences in an already parsed JSON value (see ``fences(fromJSON:)``).
    static func fences(from object: Any) throws -> [ServerFence] {
        if let list = object as? [Any] {
            return try list.enumerated().flatMap { i, item in try fences(from: item, label: "item \(i)") }
        }
        return try fences(from: object, label: "fence")
    }

    private static func fences(from object: Any, label: String) throws -> [ServerFence] {
        guard let dictionary = object as? [String: Any] else {
            throw ServerError(.malformedBody, "\(label): expected a GeoJSON Feature or FeatureCollection object")
        }
        switch dictionary["type"] as? String {
        case "FeatureCollection":
            guard let features = dictionary["features"] as? [Any] else {
                throw ServerError(.malformedBody, "\(label): a FeatureCollection needs a 'features' array")
            }
            return try features.enumerated().map { i, f in try fence(feature: f, label: "feature \(i)") }
        case "Feature":
            return [try fence(feature: dictionary, label: label)]
        default:
            return [try shorthandCircle(dictionary, label: label)]
        }
    }

    private static func fence(feature object: Any, label: String) throws -> ServerFence {
        guard let feature = object as? [String: Any], let geometry = feature["geometry"] as? [String: Any] else {
            throw ServerError(.malformedBody, "\(label): expected a Feature with a 'geometry' object")
        }
        let properties = feature["properties"] as? [String: Any] ?? [:]
        let shape = try self.shape(geometry: geometry, radius: properties["radiusMeters"] ?? properties["radius"], label: label)
        return try make(id: (feature["id"] as? String) ?? (properties["id"] as? String), name: properties["name"],
                        shape: shape, dwell: properties["dwellSeconds"], label: label)
    }

    private static func shorthandCircle(_ object: [String: Any], label: String) throws -> ServerFence {
        guard let lat = JSONBody.double(object["latitude"] ?? object["lat"]),
              let lon = JSONBody.double(object["longitude"] ?? object["lon"]) else {
            throw ServerError(.malformedBody,
                              #"\#(label): expected a GeoJSON Feature or {"name","latitude","longitude","radiusMeters"}"#)
        }
        let shape = try circle(lat: lat, lon: lon, radius: object["radiusMeters"] ?? object["radius"], label: label)
        return try make(id: object["id"] as? String, name: object["name"], shape: shape, dwell: object["dwellSeconds"], label: label)
    }

    /// The shape of a GeoJSON geometry object (`Point` needs `radius`).
    static func shape(geometry: [String: Any], radius: Any?, label: String) throws -> ServerFence.Shape {
        switch geometry["type"] as? String {
        case "Point":
            guard let c = geometry["coordinates"] as? [Any], c.count >= 2,
                  let lon = JSONBody.double(c[0]), let lat = JSONBody.double(c[1]) else {
                throw ServerError(.malformedBody, "\(label): a Point needs coordinates [longitude, latitude]")
            }
            return try circle(lat: lat, lon: lon, radius: radius, label: label)
        case "Polygon":
            guard let rings = geometry["coordinates"] as? [Any], !rings.isEmpty else {
                throw ServerError(.malformedBody, "\(label): a Polygon needs coordinates [[[longitude, latitude], …]]")
            }
            let parsed = try rings.enumerated().map { i, ring in try self.ring(ring, label: "\(label) ring \(i)") }
            do {
                return .polygon(try Polygon(exterior: parsed[0], holes: Array(parsed.dropFirst())))
            } catch {
                throw ServerError(.malformedBody, "\(label): \(error.message)")
            }
        case let other:
            throw ServerError(.malformedBody, "\(label): geometry type '\(other ?? "none")' is not a fence; use Point (with radiusMeters) or Polygon")
        }
    }

    private static func ring(_ value: Any, label: String) throws -> [Coordinate] {
        guard let points = value as? [Any] else { throw ServerError(.malformedBody, "\(label): expected an array of positions") }
        return try points.enumerated().map { i, point in
            guard let pair = point as? [Any], pair.count >= 2, let lon = JSONBody.double(pair[0]), let lat = JSONBody.double(pair[1]),
                  let coordinate = try? Coordinate(latitude: lat, longitude: lon) else {
                throw ServerError(.malformedBody, "\(label) position \(i): expected [longitude, latitude] in range")
            }
            return coordinate
        }
    }

    private static func circle(lat: Double, lon: Double, radius: Any?, label: String) throws -> ServerFence.Shape {
        guard let center = try? Coordinate(latitude: lat, longitude: lon) else {
            throw ServerError(.malformedBody, "\(label): centre \(lat), \(lon) is out of range")
        }
        guard let r = JSONBody.double(radius), r.isFinite, r > 0, r <= ServerFence.maximumRadiusMeters else {
            throw ServerError(.malformedBody, "\(label): a circle needs radiusMeters, a number of metres in (0, 20000000]")
        }
        return .circle(center: center, radiusMeters: r)
    }

    private static func make(id: String?, name: Any?, shape: ServerFence.Shape, dwell: Any?, label: String) throws -> ServerFence {
        let dwellSeconds: Double?
        if dwell == nil || dwell is NSNull {
            dwellSeconds = nil
        } else if let d = JSONBody.double(dwell) {
            dwellSeconds = d   // its range is one of the fence rules checked below
        } else {
            throw ServerError(.malformedBody, "\(label): dwellSeconds must be a non-negative number")
        }
        let fence = ServerFence(id: id ?? TokenHasher.makeIdentifier(prefix: "f"), name: (name as? String) ?? "", shape: shape,
                          dwellSeconds: dwellSeconds)
        // The rules every stored fence follows (id and name length, radius, dwell).
        if let problem = fence.problem { throw ServerError(.malformedBody, "\(label): \(problem)") }
        return fence
    }
}

extension FenceCodec {
    /// The fences as a GeoJSON FeatureCollection (pretty, keys sorted), the form
    /// ``fences(fromJSON:)`` reads back: circles as `Point` features with `radiusMeters`. Thread-safe.
    ///
    /// ```swift
    /// let data = try FenceCodec.featureCollectionJSON(try await store.listFences())
    /// ```
    public static func featureCollectionJSON(_ fences: [ServerFence]) throws -> Data {
        try JSONSerialization.data(withJSONObject: ["type": "FeatureCollection", "features": fences.map(feature)],
                                   options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }

    /// The fence as a GeoJSON Feature object (`id`, `properties.name`, `radiusMeters`, `dwellSeconds`).
    static func feature(_ fence: ServerFence) -> [String: Any] {
        var properties: [String: Any] = ["name": fence.name, "dwellSeconds": JSONReply.value(fence.dwellSeconds)]
        if case .circle(_, let r) = fence.shape { properties["radiusMeters"] = r }
        return ["type": "Feature", "id": fence.id, "properties": properties, "geometry": geometry(fence.shape)]
    }

    /// The shape as a GeoJSON geometry object (a circle as its centre Point).
    static func geometry(_ shape: ServerFence.Shape) -> [String: Any] {
        switch shape {
        case .circle(let c, _):
            return ["type": "Point", "coordinates": [c.longitude, c.latitude]]
        case .polygon(let p):
            let rings = ([p.exterior] + p.holes).map { ring in (ring + [ring[0]]).map { [$0.longitude, $0.latitude] } }
            return ["type": "Polygon", "coordinates": rings]
        }
    }

    /// The geometry as compact JSON text, for the store's `geometry` column.
    static func geometryText(_ shape: ServerFence.Shape) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: geometry(shape), options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// A fence read back from the store's columns.
    static func fence(id: String, name: String, geometryText: String, radiusMeters: Double?, dwellSeconds: Double?) throws -> ServerFence {
        if radiusMeters != nil, let (lon, lat) = storedPoint(geometryText) {
            // The form `geometryText` writes for every circle, read without a JSON object tree
            // (loading 100,000 fences went from 0.5 s to a fraction of that).
            return ServerFence(id: id, name: name, shape: try circle(lat: lat, lon: lon, radius: radiusMeters, label: "fence \(id)"),
                         dwellSeconds: dwellSeconds)
        }
        guard let geometry = try? JSONSerialization.jsonObject(with: Data(geometryText.utf8)) as? [String: Any] else {
            throw ServerError(.storage, "fence \(id) has an unreadable geometry")
        }
        return ServerFence(id: id, name: name, shape: try shape(geometry: geometry, radius: radiusMeters, label: "fence \(id)"),
                     dwellSeconds: dwellSeconds)
    }

    /// The longitude and latitude of exactly `{"coordinates":[LON,LAT],"type":"Point"}` (what
    /// ``geometryText(_:)`` writes for a circle), or nil for any other text.
    static func storedPoint(_ text: String) -> (longitude: Double, latitude: Double)? {
        let prefix = #"{"coordinates":["#, suffix = #"],"type":"Point"}"#
        guard text.hasPrefix(prefix), text.hasSuffix(suffix), text.utf8.count > prefix.utf8.count + suffix.utf8.count else {
            return nil
        }
        let inner = text.utf8.dropFirst(prefix.utf8.count).dropLast(suffix.utf8.count)
        guard let comma = inner.firstIndex(of: UInt8(ascii: ",")),
              let lon = Double(Substring(inner[..<comma])), let lat = Double(Substring(inner[inner.index(after: comma)...])),
              lon.isFinite, lat.isFinite else { return nil }
        return (lon, lat)
    }
}
