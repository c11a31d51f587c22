import Foundation
import Testing
@testable import WaymarkGeo

@Suite("GPX writer")
struct GPXWriterTests {
    typealias SplitMix = GPXNumberParsingTests.SplitMix

    static func randomPoint(_ rng: inout SplitMix, rich: Bool) -> Waypoint {
        func maybe<T>(_ v: @autoclosure () -> T) -> T? { Bool.random(using: &rng) ? v() : nil }
        var p = Waypoint(coordinate: Coordinate(uncheckedLatitude: Double.random(in: -90...90, using: &rng),
                                                longitude: Double.random(in: -180..<180, using: &rng)))
        p.elevation = maybe(Double.random(in: -400...8000, using: &rng))
        p.time = maybe(Date(timeIntervalSince1970: Double.random(in: 0...2e9, using: &rng)))
        guard rich else { return p }
        p.speed = maybe(Double.random(in: 0...40, using: &rng))
        p.course = maybe(Double.random(in: 0..<360, using: &rng))
        p.fix = maybe(GPXFixType.allCases.randomElement(using: &rng)!)
        p.satellites = maybe(Int.random(in: 0...24, using: &rng))
        p.hdop = maybe(Double.random(in: 0...50, using: &rng))
        p.details = WaypointDetails(name: maybe("P <\(rng.next() % 100)> & \"q\""), comment: maybe("c\r\nd"),
                                    links: Bool.random(using: &rng) ? [GPXLink(href: "https://x.test/?a=1&b=2", text: "x", type: "text/html")] : [],
                                    symbol: maybe("Flag"), magneticVariation: maybe(1.25), dgpsID: maybe(7))
        p.extensions = PointExtensions(heartRate: maybe(Int.random(in: 40...200, using: &rng)), cadence: maybe(90),
                                       temperature: maybe(-3.5), power: maybe(Double(Int.random(in: 0...900, using: &rng))),
                                       raw: Bool.random(using: &rng) ? ["<x:y xmlns:x=\"urn:x\" a=\"1\">v</x:y>"] : [])
        return p
    }

    static func randomDocument(seed: UInt64) -> GPXDocument {
        var rng = SplitMix(state: seed)
        var doc = GPXDocument(creator: "gen & co")
        doc.metadata = GPXMetadata(name: "Doc \(seed)", description: "a < b", author: GPXPerson(name: "Ann", email: "ann@example.org"),
                                   copyright: GPXCopyright(author: "Ann", year: 2024, license: "CC0"),
                                   links: [GPXLink(href: "https://example.org")], time: Date(timeIntervalSince1970: 1_700_000_000.125),
                                   keywords: "k", bounds: BoundingBox(minLatitude: -1, minLongitude: -2, maxLatitude: 3, maxLongitude: 4),
                                   extensions: ["<m:x xmlns:m=\"urn:m\"/>"])
        doc.waypoints = (0..<Int.random(in: 0...5, using: &rng)).map { _ in randomPoint(&rng, rich: true) }
        doc.routes = (0..<Int.random(in: 0...2, using: &rng)).map { i in
            Route(info: PathInfo(name: "R\(i)", number: i), points: (0..<Int.random(in: 0...5, using: &rng)).map { _ in randomPoint(&rng, rich: true) })
        }
        doc.tracks = (0..<Int.random(in: 1...3, using: &rng)).map { i in
            Track(info: PathInfo(name: "T\(i)", type: "cycling", extensions: ["<t:c xmlns:t=\"urn:t\">red</t:c>"]),
                  segments: (0..<Int.random(in: 0...3, using: &rng)).map { _ in
                      TrackSegment(points: (0..<Int.random(in: 0...50, using: &rng)).map { _ in randomPoint(&rng, rich: Bool.random(using: &rng)) })
                  })
        }
        doc.extensions = ["<d:z xmlns:d=\"urn:d\">1</d:z>"]
        return doc
    }

    @Test("generated documents round-trip exactly through write and read", arguments: 0..<40)
    func generatedRoundTrip(seed: Int) throws {
        let doc = Self.randomDocument(seed: UInt64(seed))
        let back = try GPXDocument(data: doc.gpxData(), name: "generated-\(seed).gpx")
        #expect(back == doc)
    }

    @Test("writes GPX 1.1 with namespaces, schema order and escaping")
    func output() throws {
        var p = Waypoint(coordinate: try Coordinate(latitude: 46.05, longitude: 14.5), elevation: 295, time: Date(timeIntervalSince1970: 0))
        p.speed = 5.5
        p.details = WaypointDetails(name: "A & <B>")
        p.extensions = PointExtensions(heartRate: 120)
        let doc = GPXDocument(creator: "me", waypoints: [p])
        let text = String(decoding: doc.gpxData(), as: UTF8.self)
        #expect(text.contains("<gpx version=\"1.1\" creator=\"me\" xmlns=\"http://www.topografix.com/GPX/1/1\""))
        #expect(text.contains("xmlns:gpxtpx=\"http://www.garmin.com/xmlschemas/TrackPointExtension/v2\""))
        #expect(text.contains("<name>A &amp; &lt;B&gt;</name>"))
        #expect(text.contains("<gpxtpx:hr>120</gpxtpx:hr>"))
        #expect(text.contains("<gpxtpx:speed>5.5</gpxtpx:speed>"))
        let order = ["<ele>", "<time>", "<name>", "<extensions>"].map { text.range(of: $0)!.lowerBound }
        #expect(order == order.sorted())
    }

    @Test("omits the extension namespaces when no point needs them")
    func noExtensionNamespaces() {
        let doc = GPXDocument(waypoints: [Waypoint(coordinate: Coordinate(uncheckedLatitude: 1, longitude: 2))])
        #expect(!String(decoding: doc.gpxData(), as: UTF8.self).contains("gpxtpx"))
    }

    @Test("streams to a file handle and the file reads back the same")
    func fileStreaming() throws {
        let doc = Self.randomDocument(seed: 1234)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-writer-\(UUID().uuidString).gpx")
        defer { try? FileManager.default.removeItem(at: url) }
        try doc.write(to: url)
        #expect(try GPXDocument(contentsOf: url) == doc)
    }

    @Test("an extension element without a namespace is written in Waymark's namespace and reads back unchanged",
          arguments: ["<aaa>bbb</aaa>", "<hAcc>4.5</hAcc>", "<security level=\"a>b\"><ccc/></security>", "<e/>"])
    func unqualifiedExtension(fragment: String) throws {
        var p = Waypoint(coordinate: try Coordinate(latitude: 46.05, longitude: 14.5))
        p.extensions = PointExtensions(raw: [fragment])
        let doc = GPXDocument(waypoints: [p], extensions: [fragment])
        let text = String(decoding: doc.gpxData(), as: UTF8.self)
        let declared = "xmlns=\"\(GPXWriter.unqualifiedExtensionNamespace)\""
        #expect(text.components(separatedBy: declared).count - 1 == 2, "\(text)")
        let back = try GPXDocument(data: doc.gpxData(), name: "unqualified.gpx")
        #expect(back.waypoints.first?.extensions.raw == [fragment])
        #expect(back.extensions == [fragment])
    }

    @Test("extension elements with a prefix or their own default namespace are written as they are",
          arguments: ["<x:y xmlns:x=\"urn:x\">v</x:y>", "<y xmlns=\"urn:y\">v</y>", "<y a=\"1\" xmlns = 'urn:y'/>"])
    func qualifiedExtension(fragment: String) {
        #expect(GPXWriter.qualifiedExtension(fragment) == fragment)
    }
}
