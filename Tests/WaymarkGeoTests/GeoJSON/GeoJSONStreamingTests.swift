import Foundation
import Testing
@testable import WaymarkGeo

@Suite("GeoJSON streaming reader")
struct GeoJSONStreamingTests {
    /// A FeatureCollection of `count` Point features, one per line, with a name each.
    static func collection(_ count: Int, trailingType: Bool = false) -> String {
        var lines: [String] = [trailingType ? "{\"features\": [" : "{\"type\": \"FeatureCollection\", \"features\": ["]
        for i in 0..<count {
            let comma = i + 1 < count ? "," : ""
            lines.append("  {\"type\":\"Feature\",\"properties\":{\"name\":\"p\(i)\"},\"geometry\":{\"type\":\"Point\",\"coordinates\":[14.\(i),46.5,\(i)]}}\(comma)")
        }
        lines.append(trailingType ? "], \"type\": \"FeatureCollection\"}" : "]}")
        return lines.joined(separator: "\n")
    }

    static func items(_ text: String, chunkSize: Int = 4096) throws(GeoError) -> [GeoJSONItem] {
        var reader = try GeoJSONFeatureReader(data: Data(text.utf8), name: "test.geojson", chunkSize: chunkSize)
        var out: [GeoJSONItem] = []
        while let item = try reader.next() { out.append(item) }
        return out
    }

    @Test("a large collection is delivered feature by feature long before the end is parsed")
    func deliversIncrementally() throws {
        let text = Self.collection(20_000)
        let total = text.utf8.count
        var reader = try GeoJSONFeatureReader(data: Data(text.utf8), chunkSize: 4096)
        var count = 0
        var readAtFirst = 0, readAtHalf = 0
        while let item = try reader.next() {
            count += 1
            if count == 1 { readAtFirst = reader.bytesRead }
            if count == 10_000 { readAtHalf = reader.bytesRead }
            guard case .waypoint(let point) = item else { Issue.record("expected a waypoint"); return }
            #expect(point.details.name == "p\(count - 1)")
        }
        #expect(count == 20_000)
        #expect(readAtFirst < 300, "the first feature arrives after parsing only its own bytes (\(readAtFirst) of \(total))")
        #expect(readAtHalf < total / 2 + 200 && readAtHalf > total / 2 - 200_000)
        #expect(reader.bytesRead == total)
    }

    @Test("streamed items equal the whole-document reader's, for any chunk size", arguments: [16, 4096, 1 << 20])
    func matchesWholeDocument(chunkSize: Int) throws {
        var document = GPXDocument()
        document.waypoints = [Waypoint(coordinate: try Coordinate(latitude: 46.05, longitude: 14.5), elevation: 295)]
        var track = Track()
        track.info.name = "Ride \"ü\" \u{1F6B2}"
        track.segments = [TrackSegment(points: [
            Waypoint(coordinate: try Coordinate(latitude: 46.0, longitude: 14.0)),
            Waypoint(coordinate: try Coordinate(latitude: 46.1, longitude: 14.1)),
        ])]
        document.tracks = [track]
        let text = GeoJSONWriter.string(for: document)
        let whole = try GeoJSONReader.document(from: Data(text.utf8))
        let streamed = try Self.items(text, chunkSize: chunkSize)
        #expect(streamed == whole.waypoints.map(GeoJSONItem.waypoint) + whole.tracks.map(GeoJSONItem.track))
    }

    @Test("the type member may follow the features; a single Feature and a bare geometry also read")
    func otherShapes() throws {
        #expect(try Self.items(Self.collection(3, trailingType: true)).count == 3)
        let feature = try Self.items(#"{"type":"Feature","properties":{"name":"Hut"},"geometry":{"type":"Point","coordinates":[10,50]}}"#)
        guard case .waypoint(let hut)? = feature.first else { Issue.record("expected a waypoint"); return }
        #expect(hut.details.name == "Hut")
        let bare = try Self.items(#"{"type":"LineString","coordinates":[[10,50],[10.1,50.1]]}"#)
        guard case .track(let line)? = bare.first else { Issue.record("expected a track"); return }
        #expect(line.segments.first?.points.count == 2)
        #expect(try Self.items(#"{"type":"FeatureCollection","features":[]}"#).isEmpty)
    }

    @Test("malformed input is an error naming line and column", arguments: [
        ("{\"type\":\"FeatureCollection\",\n\"features\":[\n{\"type\":\"Feature\" \"geometry\":null}]}", 3, 19, "expected ',' or '}'"),
        ("{\"type\":\"FeatureCollection\",\"features\":[\n  {\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,2]}},\n  tru]}", 3, 3, "invalid literal; expected true"),
        ("{\"features\":[{\"type\":\"Feature\",\"geometry\":null}],\n \"type\":\"Feature\"}", 2, 19, "expected \"FeatureCollection\""),
        ("{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,02]}}]}", 1, 103, "invalid number \"02\""),
        ("{\"type\":\"FeatureCollection\",\"features\":[\n\n   {\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,95]}}]}", 3, 4, "features[0].geometry.coordinates: latitude 95.0 is out of range"),
        ("{\"type\":\"FeatureCollection\",\"features\":[]} x", 1, 44, "after the GeoJSON object"),
        ("{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\n\"properties\":{\"name\":\"a\u{01}\"}", 2, 24, "control character"),
        ("[1, 2]", 1, 1, "expected a GeoJSON object"),
        ("{\"type\":\"FeatureCollection\",\"features\":[", 1, 41, "unexpected end of input"),
    ] as [(String, Int, Int, String)])
    func errors(input: String, line: Int, column: Int, fragment: String) {
        do {
            _ = try Self.items(input, chunkSize: 16)
            Issue.record("expected an error for \(input)")
        } catch {
            #expect(error.code == .invalidGeoJSON)
            #expect(error.location?.file == "test.geojson")
            #expect(error.location?.line == line, "\(error)")
            #expect(error.location?.column == column, "\(error)")
            #expect(error.message.contains(fragment), "\(error)")
        }
    }

    @Test("features before a fault are delivered, and the reader keeps failing afterwards")
    func deliversBeforeFault() throws {
        let text = "{\"type\":\"FeatureCollection\",\"features\":[" +
            "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,2]}},{\"type\":\"Feature\",\"geometry\":{"
        var reader = try GeoJSONFeatureReader(data: Data(text.utf8))
        #expect(try reader.next() != nil)
        #expect(throws: GeoError.self) { try reader.next() }
        #expect(throws: GeoError.self) { try reader.next() }
    }
}
