// Baseline: stream a GPX file through Foundation's XMLParser (FoundationXML on Linux),
// parsing lat/lon/ele/time of every <trkpt> and summing a haversine length, the same
// work as the Waymark reader plus statistics. Prints points, length and MB/s.
//
// Usage: xmlparser-baseline FILE
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

final class Collector: NSObject, XMLParserDelegate {
    var points = 0
    var length = 0.0
    var lastLat = Double.nan, lastLon = Double.nan
    var text = ""
    var collecting = false
    var elevations = 0
    var times = 0
    let iso = ISO8601DateFormatter()

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        if name == "trkpt", let lat = attributes["lat"].flatMap(Double.init), let lon = attributes["lon"].flatMap(Double.init) {
            if !lastLat.isNaN {
                let p1 = lastLat * .pi / 180, p2 = lat * .pi / 180
                let dp = p2 - p1, dl = (lon - lastLon) * .pi / 180
                let h = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
                length += 2 * 6_371_008.8 * asin(min(1, h.squareRoot()))
            }
            lastLat = lat
            lastLon = lon
            points += 1
        } else if name == "ele" || name == "time" {
            collecting = true
            text = ""
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if collecting { text += string }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "ele", Double(text) != nil { elevations += 1 }
        if name == "time", iso.date(from: text) != nil { times += 1 }
        collecting = false
    }
}

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: xmlparser-baseline FILE\n".utf8))
    exit(2)
}
let url = URL(fileURLWithPath: CommandLine.arguments[1])
let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
guard let stream = InputStream(url: url) else { exit(1) }
let parser = XMLParser(stream: stream)
let collector = Collector()
parser.delegate = collector
let start = Date()
let ok = parser.parse()
let seconds = Date().timeIntervalSince(start)
print("ok=\(ok) points=\(collector.points) ele=\(collector.elevations) time=\(collector.times) length=\(Int(collector.length)) m "
      + "seconds=\(String(format: "%.2f", seconds)) MB/s=\(String(format: "%.1f", Double(size) / 1e6 / seconds))")
