import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import WaymarkGeo

/// Foundation's XMLParser (libxml2 on Linux) as an independent oracle for the byte-level reader.
@Suite("GPX reader against XMLParser")
struct GPXXMLParserOracleTests {
    final class Oracle: NSObject, XMLParserDelegate {
        var counts: [String: Int] = [:]
        var coordinates: [Double] = []
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            let local = name.split(separator: ":").last.map(String.init) ?? name
            counts[local, default: 0] += 1
            if local == "trkpt" || local == "rtept" || local == "wpt" {
                coordinates.append(Double(attributes["lat"] ?? "") ?? .nan)
                coordinates.append(Double(attributes["lon"] ?? "") ?? .nan)
            }
        }
    }

    @Test("points and their coordinates agree with XMLParser on every corpus file", arguments: GPXTestSupport.corpusFiles)
    func agrees(file: URL) throws {
        let oracle = Oracle()
        let parser = try #require(XMLParser(contentsOf: file))
        parser.delegate = oracle
        #expect(parser.parse())
        let doc = try GPXDocument(contentsOf: file)
        #expect(doc.waypoints.count == oracle.counts["wpt", default: 0])
        #expect(doc.routes.reduce(0) { $0 + $1.points.count } == oracle.counts["rtept", default: 0])
        #expect(doc.tracks.reduce(0) { $0 + $1.points.count } == oracle.counts["trkpt", default: 0])
        #expect(doc.tracks.reduce(0) { $0 + $1.segments.count } == oracle.counts["trkseg", default: 0])
        let ours = (doc.waypoints + doc.routes.flatMap(\.points) + doc.tracks.flatMap(\.points))
            .flatMap { [$0.coordinate.latitude, $0.coordinate.longitude] }
        // Same multiset of values (order differs: the oracle sees file order, the document groups by kind).
        let theirs = oracle.coordinates.map { $0 >= 180 ? $0 - 360 : $0 }
        #expect(ours.sorted() == theirs.sorted())
    }
}
