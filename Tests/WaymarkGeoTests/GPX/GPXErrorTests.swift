import Foundation
import Testing
@testable import WaymarkGeo

@Suite("GPX errors and lenient mode")
struct GPXErrorTests {
    @Test("an invalid latitude names file, line, column and the expected range")
    func invalidLatitude() throws {
        let xml = "<gpx version=\"1.1\" creator=\"x\">\n<trk><trkseg>\n  <trkpt lat=\"91.5\" lon=\"2\"/>\n</trkseg></trk></gpx>"
        let error = try #require(GPXTestSupport.error(xml))
        #expect(error.code == .invalidCoordinate)
        #expect(error.location == SourceLocation(file: "test.gpx", line: 3, column: 15))
        #expect(error.description == "test.gpx:3:15: invalid latitude \"91.5\" on <trkpt>; expected a number in [-90, 90]")
    }

    @Test("malformed or non-GPX input gives the expected code and location", arguments: [
        ("<gpx version=\"1.1\"><wpt lat=\"1\" lon=\"2\"></trk></gpx>", "malformedXML", 1, 41, "found </trk>; expected </wpt>"),
        ("<kml/>", "invalidGPX", 1, 1, "root element is <kml>; expected <gpx>"),
        ("<gpx>\n<wpt lon=\"2\"/></gpx>", "invalidGPX", 2, 1, "missing lat attribute on <wpt>"),
        ("<gpx><wpt lat=\"1\" lon=\"2\"><ele>12,5</ele></wpt></gpx>", "invalidValue", 1, 32, "invalid <ele> \"12,5\" in <wpt>; expected a number"),
        ("<gpx><wpt lat=\"1\" lon=\"2\"><time>yesterday</time></wpt></gpx>", "invalidValue", 1, 33, "expected an ISO-8601 time"),
        ("<gpx><wpt lat=\"1\" lon=\"2\"><name>&nbsp;</name></wpt></gpx>", "malformedXML", 1, 33, "unknown entity &nbsp;"),
        ("<gpx><wpt lat=\"1\" lon=\"2\">", "malformedXML", 1, 27, "unexpected end of input; expected </wpt>"),
        ("<gpx lat=1/>", "malformedXML", 1, 10, "expected a quoted value"),
        ("<gpx/><gpx/>", "malformedXML", 1, 7, "a second root element"),
        ("", "invalidGPX", 1, 1, "no root element"),
    ])
    func errors(xml: String, code: String, line: Int, column: Int, fragment: String) throws {
        let error = try #require(GPXTestSupport.error(xml))
        #expect(error.code.description == code)
        #expect(error.location?.line == line)
        #expect(error.location?.column == column)
        #expect(error.message.contains(fragment), "\(error)")
    }

    @Test("lenient mode skips each bad point and reports it, keeping the good ones")
    func lenientSkips() throws {
        let xml = GPXTestSupport.track("""
        <trkpt lat="1" lon="1"/>
        <trkpt lat="x" lon="1"/>
        <trkpt lat="2" lon="2"><ele>high</ele></trkpt>
        <trkpt lon="3"/>
        <trkpt lat="4" lon="4"/>
        """)
        let (doc, issues) = try GPXDocument.read(data: Data(xml.utf8), name: "ride.gpx")
        #expect(doc.tracks.first?.points.map(\.coordinate.latitude) == [1, 4])
        #expect(issues.count == 3)
        #expect(issues.map(\.skipped) == ["<trkpt>", "<trkpt>", "<trkpt>"])
        #expect(issues.map { $0.location?.line } == [5, 6, 7])
        #expect(issues[0].error.code == .invalidCoordinate)
        #expect(issues[2].error.code == .invalidGPX)
    }

    @Test("lenient mode still throws on XML that is not well formed, after delivering what came before")
    func lenientMalformed() throws {
        let xml = GPXTestSupport.track("<trkpt lat=\"1\" lon=\"1\"/><trkpt lat=\"2\" lon=\"2\"></trkseg>")
        var reader = try GPXReader(data: Data(xml.utf8), options: GPXReadOptions(lenient: true))
        var points = 0
        do {
            while let e = try reader.next() { if case .trackPoint = e { points += 1 } }
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .malformedXML)
        }
        #expect(points == 1)
        #expect(throws: GeoError.self) { try GPXDocument.read(data: Data(xml.utf8)) }
    }

    @Test("a missing file is an I/O error naming the path")
    func missingFile() {
        do {
            _ = try GPXDocument(contentsOf: URL(fileURLWithPath: "/nonexistent/ride.gpx"))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .io)
            #expect(error.message.contains("/nonexistent/ride.gpx"))
        }
    }

    @Test("deep nesting and oversized tokens are refused, not followed without bound")
    func limits() {
        let deep = "<gpx>" + String(repeating: "<a>", count: 500) + String(repeating: "</a>", count: 500) + "</gpx>"
        #expect(throws: GeoError.self) { try GPXDocument(data: Data(deep.utf8)) }
        let long = "<gpx><!--" + String(repeating: "x", count: 100_000) + "--></gpx>"
        #expect(throws: GeoError.self) {
            try GPXDocument(data: Data(long.utf8), options: GPXReadOptions(chunkSize: 4096, maxTokenBytes: 16_384))
        }
        #expect(throws: Never.self) { try GPXDocument(data: Data(long.utf8), options: GPXReadOptions(chunkSize: 4096)) }
    }
}
