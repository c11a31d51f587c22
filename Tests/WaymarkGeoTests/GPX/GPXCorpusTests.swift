import Foundation
import Testing
@testable import WaymarkGeo

@Suite("GPX corpus")
struct GPXCorpusTests {
    struct Counts: Decodable, Equatable {
        var waypoints: Int, routes: Int, routePoints: Int, tracks: Int, segments: Int, trackPoints: Int
    }

    struct Fixture: Decodable {
        var generator: String
        var files: [String: Counts]
    }

    static let gpxpy: Fixture = {
        let url = GPXTestSupport.fixtures.appendingPathComponent("gpxpy-counts.json")
        // The fixture is written by Scripts/check_corpus.py --write-fixture.
        return try! JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
    }()

    static func counts(_ doc: GPXDocument) -> Counts {
        Counts(waypoints: doc.waypoints.count, routes: doc.routes.count,
               routePoints: doc.routes.reduce(0) { $0 + $1.points.count }, tracks: doc.tracks.count,
               segments: doc.tracks.reduce(0) { $0 + $1.segments.count },
               trackPoints: doc.tracks.reduce(0) { $0 + $1.points.count })
    }

    @Test("the fixture covers every corpus file")
    func fixtureCoversCorpus() {
        let names = Set(GPXTestSupport.corpusFiles.map(GPXTestSupport.corpusName))
        #expect(names.count >= 40)
        #expect(names == Set(Self.gpxpy.files.keys))
    }

    @Test("reads every corpus file with gpxpy's counts", arguments: GPXTestSupport.corpusFiles)
    func readsWithGpxpyCounts(file: URL) throws {
        let doc = try GPXDocument(contentsOf: file)
        let expected = try #require(Self.gpxpy.files[GPXTestSupport.corpusName(file)])
        #expect(Self.counts(doc) == expected)
    }

    @Test("streaming in small chunks gives the same document", arguments: GPXTestSupport.corpusFiles)
    func smallChunks(file: URL) throws {
        let whole = try GPXDocument(contentsOf: file)
        let chunked = try GPXDocument(contentsOf: file, options: GPXReadOptions(chunkSize: 4096))
        #expect(whole == chunked)
    }

    @Test("read → write → read gives equal values", arguments: GPXTestSupport.corpusFiles)
    func roundTrips(file: URL) throws {
        let first = try GPXDocument(contentsOf: file)
        let written = first.gpxData()
        let second = try GPXDocument(data: written, name: "rewritten.gpx")
        var expected = first
        expected.version = "1.1"
        expected.creator = first.creator ?? "Waymark"
        #expect(second == expected)
        // And the rewritten file is itself stable.
        #expect(second.gpxData() == written)
    }
}
