import Foundation
import Testing
@testable import WaymarkGeo

/// The reader's fast paths (leaf text and end tag read in one step, SIMD line counting) must
/// give the same values and the same error locations as the general path, wherever the
/// buffer boundaries fall.
@Suite("GPX reader fast paths")
struct GPXFastPathTests {
    /// A track of `count` points, one per line, each with elevation and time.
    static func longTrack(_ count: Int) -> String {
        var lines = ["<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>"]
        for i in 0..<count {
            lines.append("  <trkpt lat=\"46.\(1000 + i)\" lon=\"14.5\"><ele>\(i).5</ele><time>2024-05-01T08:\(String(format: "%02d", i / 60 % 60)):\(String(format: "%02d", i % 60))Z</time></trkpt>")
        }
        return lines.joined(separator: "\n")
    }

    @Test("an invalid value deep in a file read in small chunks names its exact line and column",
          arguments: [4096, 5000, 65_536, 512 * 1024])
    func deepErrorLocation(chunkSize: Int) throws {
        // Line 2001 is the 2000th point; its <ele> value starts at column 40, after `  <trkpt lat="46.2999" lon="14.5"><ele>`.
        var xml = Self.longTrack(2000) + "\n</trkseg></trk></gpx>"
        xml = xml.replacingOccurrences(of: "<ele>1999.5</ele>", with: "<ele>19x9.5</ele>")
        let options = GPXReadOptions(chunkSize: chunkSize)
        let error = try #require(throws: GeoError.self) {
            try GPXDocument(data: Data(xml.utf8), name: "deep.gpx", options: options)
        }
        #expect(error.location == SourceLocation(file: "deep.gpx", line: 2001, column: 40))
        #expect(error.message.contains("invalid <ele> \"19x9.5\""), "\(error)")
    }

    @Test("a mismatched end tag after leaf text is still an error at the end tag")
    func mismatchedLeafEnd() throws {
        let xml = "<gpx>\n<wpt lat=\"1\" lon=\"2\"><ele>12</elf></wpt></gpx>"
        let error = try #require(GPXTestSupport.error(xml))
        #expect(error.code == .malformedXML)
        #expect(error.location?.line == 2)
        #expect(error.location?.column == 29)
        #expect(error.message.contains("found </elf>; expected </ele>"), "\(error)")
    }

    @Test("leaf values are the same whether read in one step or token by token", arguments: [
        "<ele>12.5</ele>",                        // fast path
        "<ele>12.5</ele   >",                     // whitespace before '>' of the end tag
        "<ele>1&#50;.5</ele>",                    // a character reference: general path
        "<ele><![CDATA[12.5]]></ele>",            // CDATA: general path
        "<ele>12<!-- c -->.5</ele>",              // a comment splits the text: general path
        "<ele> 12.5 </ele>",                      // surrounding whitespace
    ])
    func leafForms(_ ele: String) throws {
        let doc = try GPXTestSupport.document("<gpx><wpt lat=\"1\" lon=\"2\">\(ele)<name>a &amp; b</name></wpt></gpx>")
        #expect(doc.waypoints.first?.elevation == 12.5)
        #expect(doc.waypoints.first?.details.name == "a & b")
    }

    @Test("an empty leaf element reads as absent, in both spellings", arguments: ["<ele></ele>", "<ele/>"])
    func emptyLeaf(_ ele: String) throws {
        let doc = try GPXTestSupport.document("<gpx><wpt lat=\"1\" lon=\"2\">\(ele)</wpt></gpx>")
        #expect(doc.waypoints.count == 1)
        #expect(doc.waypoints.first?.elevation == nil)
    }

    @Test("every point of a long file is read the same with any chunk size", arguments: [4096, 4099, 70_000])
    func chunkBoundaries(chunkSize: Int) throws {
        let xml = Self.longTrack(3000) + "\n</trkseg></trk></gpx>"
        let whole = try GPXDocument(data: Data(xml.utf8))
        let chunked = try GPXDocument(data: Data(xml.utf8), options: GPXReadOptions(chunkSize: chunkSize))
        #expect(chunked == whole)
        let points = try #require(whole.tracks.first?.segments.first?.points)
        #expect(points.count == 3000)
        #expect(points[2999].elevation == 2999.5)
        #expect(points[2999].time == Date(timeIntervalSince1970: 1_714_550_400 + 2999))
    }

    @Test("newlines are counted exactly across 16-byte blocks and the 255-block flush", arguments: [0, 1, 15, 16, 17, 4079, 4080, 4081, 9000])
    func newlineCount(length: Int) {
        var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: length)
        var expected = 0
        for i in stride(from: 0, to: length, by: 3) where i % 7 != 0 {
            bytes[i] = 0x0A
            expected += 1
        }
        let counted = bytes.withUnsafeBufferPointer { XMLTokenizer.countNewlines($0.baseAddress ?? UnsafePointer(bitPattern: 1)!, length) }
        #expect(counted == expected)
    }
}
