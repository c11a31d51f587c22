import Foundation

/// Reads what Leaflet drew from the dashboard's serialized DOM: the vertices of an SVG path and the
/// part of its SVG that is on screen, the centre of a circle marker, an element's text.
///
/// Leaflet draws each pane's vectors in one `<svg>` whose `viewBox` spans the map plus a tenth of its
/// size beyond each edge, in layer pixels (equal to the map's own pixels until the map is dragged).
enum MapDOM {
    struct Point: Equatable, CustomStringConvertible {
        var x: Double, y: Double
        var description: String { "(\(x), \(y))" }
    }

    struct Area: CustomStringConvertible {
        var minX: Double, minY: Double, width: Double, height: Double
        func contains(_ p: Point) -> Bool { p.x >= minX && p.x <= minX + width && p.y >= minY && p.y <= minY + height }
        var description: String { "[\(minX)…\(minX + width)] × [\(minY)…\(minY + height)]" }
    }

    struct Path {
        /// The `M`/`L` vertices of the path's `d`.
        var vertices: [Point]
        /// The visible map in the same coordinates: the SVG's `viewBox` without its margins.
        var visible: Area
        /// The element's opening tag.
        var tag: Substring
    }

    /// The first `<path class="CLASS…">` and its SVG.
    static func path(classed className: String, in dom: String) -> Path? {
        guard let start = dom.range(of: #"<path class="\#(className)"#) else { return nil }
        let tag = dom[start.lowerBound...].prefix { $0 != ">" }
        guard let d = value("d", in: tag), let svg = dom[..<start.lowerBound].range(of: "<svg", options: .backwards),
              let box = value("viewBox", in: dom[svg.lowerBound...].prefix { $0 != ">" }) else { return nil }
        let numbers = box.split(separator: " ").compactMap { Double($0) }
        guard numbers.count == 4 else { return nil }
        // viewBox = map size × 1.2, starting a tenth of the map before its first pixel.
        let width = numbers[2] / 1.2, height = numbers[3] / 1.2
        let visible = Area(minX: numbers[0] + width * 0.1, minY: numbers[1] + height * 0.1, width: width, height: height)
        let vertices = d.split(whereSeparator: { $0 == "M" || $0 == "L" }).compactMap { pair -> Point? in
            let xy = pair.split(whereSeparator: { $0 == " " || $0 == "," }).compactMap { Double($0) }
            return xy.count == 2 ? Point(x: xy[0], y: xy[1]) : nil
        }
        return Path(vertices: vertices, visible: visible, tag: tag)
    }

    /// The centre of the first circle marker `<path class="CLASS…">` of radius `radius` (Leaflet draws
    /// one as `M(x−r),y a…`).
    static func circleCentre(classed className: String, radius: Double, in dom: String) -> Point? {
        guard let start = dom.range(of: #"<path class="\#(className)"#),
              let d = value("d", in: dom[start.lowerBound...].prefix { $0 != ">" }),
              let move = d.split(separator: "a").first?.dropFirst() else { return nil }
        let xy = move.split(separator: ",").compactMap { Double($0) }
        return xy.count == 2 ? Point(x: xy[0] + radius, y: xy[1]) : nil
    }

    /// The text of the first element whose opening tag starts with `opening` (up to its next tag).
    static func text(of opening: String, in dom: String) -> String? {
        guard let start = dom.range(of: opening), let close = dom[start.upperBound...].firstIndex(of: ">") else { return nil }
        return String(dom[dom.index(after: close)...].prefix { $0 != "<" })
    }

    /// The value of attribute `name` in a tag's text.
    static func value(_ name: String, in tag: Substring) -> Substring? {
        tag.range(of: #" \#(name)=""#).map { tag[$0.upperBound...].prefix { $0 != "\"" } }
    }
}
