import Foundation
import WaymarkEngine
import WaymarkGeo

/// Reads a page of `GET /api/fences`: a GeoJSON FeatureCollection of the server's fences, with `next`
/// when more follow.
///
/// A circle is a `Point` feature with `properties.radiusMeters`; a polygon a `Polygon` (exterior ring
/// first, then holes; the closing vertex may repeat the first). `properties.name` and
/// `properties.dwellSeconds` (a number, or null for none) are kept: the name in the fence's user data
/// (`name`), a dwell time as its loitering delay with the dwell trigger.
///
/// ``FenceSync`` reads every page it fetches with it; a tool that lists a server's fences once can too:
///
/// ```swift
/// let page = try FenceFeatures.page(body)   // body of GET /api/fences?limit=1000
/// print(page.fences.count, page.next ?? "last page")
/// ```
public enum FenceFeatures {
    /// One page: its fences in the server's order, and the `after` value of the next page.
    ///
    /// A `Sendable` value type.
    public struct Page: Hashable, Sendable {
        /// The page's fences.
        public var fences: [Fence]
        /// Pass it as `after` to read the next page; nil on the last one.
        public var next: String?
    }

    /// Reads a page, or throws a ``SyncError`` (`.configuration`) naming the feature and what is wrong.
    public static func page(_ body: [UInt8]) throws -> Page {
        guard let root = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
              let features = root["features"] as? [Any] else {
            throw SyncError(.configuration, #"the fence page is not a FeatureCollection {"features":[…]}"#)
        }
        var fences: [Fence] = []
        fences.reserveCapacity(features.count)
        for (index, item) in features.enumerated() {
            fences.append(try fence(item, index: index))
        }
        return Page(fences: fences, next: root["next"] as? String)
    }

    static func fence(_ item: Any, index: Int) throws -> Fence {
        func bad(_ what: String) -> SyncError { SyncError(.configuration, "fence feature \(index): \(what)") }
        guard let feature = item as? [String: Any], let id = feature["id"] as? String, !id.isEmpty else {
            throw bad("not a Feature with a string id")
        }
        let properties = feature["properties"] as? [String: Any] ?? [:]
        guard let geometry = feature["geometry"] as? [String: Any], let type = geometry["type"] as? String else {
            throw bad("\(id) has no geometry")
        }
        let shape: FenceShape
        switch type {
        case "Point":
            guard let point = geometry["coordinates"] as? [Any], let center = try coordinate(point),
                  let radius = number(properties["radiusMeters"]), radius > 0 else {
                throw bad("\(id): a circle needs [longitude, latitude] and a positive radiusMeters")
            }
            shape = .circle(center: center, radiusMeters: radius)
        case "Polygon":
            guard let rings = geometry["coordinates"] as? [[Any]], !rings.isEmpty else {
                throw bad("\(id): a polygon needs its rings")
            }
            var parsed: [[Coordinate]] = []
            for ring in rings {
                var points: [Coordinate] = []
                for vertex in ring {
                    guard let pair = vertex as? [Any], let c = try coordinate(pair) else { throw bad("\(id): a vertex is not [longitude, latitude]") }
                    points.append(c)
                }
                if points.count > 1, points.first == points.last { points.removeLast() }
                parsed.append(points)
            }
            shape = .polygon(exterior: parsed[0], holes: Array(parsed.dropFirst()))
        default:
            throw bad("\(id): geometry \(type) is neither Point nor Polygon")
        }
        var userData: [String: String] = [:]
        if let name = properties["name"] as? String { userData["name"] = name }
        if let dwell = number(properties["dwellSeconds"]), dwell > 0 {
            return Fence(id: id, shape: shape, triggers: [.enter, .exit, .dwell], loiteringDelay: dwell, userData: userData)
        }
        return Fence(id: id, shape: shape, userData: userData)
    }

    private static func coordinate(_ pair: [Any]) throws -> Coordinate? {
        guard pair.count >= 2, let longitude = number(pair[0]), let latitude = number(pair[1]) else { return nil }
        return try? Coordinate(latitude: latitude, longitude: longitude)
    }

    private static func number(_ value: Any?) -> Double? {
        guard let n = value as? NSNumber, String(cString: n.objCType) != "c", n.doubleValue.isFinite else { return nil }
        return n.doubleValue
    }
}
