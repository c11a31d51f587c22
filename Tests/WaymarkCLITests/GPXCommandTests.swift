import ArgumentParser
import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkCLI

@Suite("waymark gpx commands")
struct GPXCommandTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("WaymarkGeoTests/Fixtures/corpus")
    static let ride = corpus.appendingPathComponent("gpxpy/korita-zbevnica.gpx").path

    func temporaryFile(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("waymark-cli-\(UUID())-\(name)").path
    }

    @Test("parses stats with --json")
    func parsesStats() throws {
        let command = try WaymarkCommand.parseAsRoot(["gpx", "stats", "ride.gpx", "--json"])
        let stats = try #require(command as? GPXStatsCommand)
        #expect(stats.file == "ride.gpx")
        #expect(stats.json)
    }

    @Test("simplify needs exactly one of --tolerance and --points", arguments: [
        [], ["--tolerance", "5", "--points", "10"], ["--tolerance", "-1"], ["--tolerance", "nan"], ["--points", "1"],
    ])
    func simplifyValidation(extra: [String]) async {
        #expect(await WaymarkCommand.run(["gpx", "simplify", Self.ride] + extra) == WaymarkExit.usage)
    }

    @Test("convert rejects an unknown format as a usage error")
    func convertUnknownFormat() async {
        #expect(await WaymarkCommand.run(["gpx", "convert", Self.ride, "--to", "kml"]) == WaymarkExit.usage)
    }

    @Test("stats sums every track and splits per track")
    func statsSummary() throws {
        let summary = try GPXStatsCommand.summarise(file: Self.ride, lenient: false)
        #expect(summary.total.points == 871)
        #expect(summary.tracks.count == 4)
        let perTrack = summary.tracks.reduce(0) { $0 + $1.statistics.length2d }
        #expect(abs(perTrack - summary.total.length2d) < 1e-6)
        #expect(summary.total.length2d > 14_000 && summary.total.length2d < 16_000)
    }

    @Test("the total and each track's figures are exactly those of accumulators fed track by track")
    func statsExact() throws {
        let summary = try GPXStatsCommand.summarise(file: Self.ride, lenient: false)
        let document = try GPXDocument(contentsOf: URL(fileURLWithPath: Self.ride))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var total = TrackStatisticsAccumulator()
        #expect(summary.tracks.count == document.tracks.count)
        for (track, reported) in zip(document.tracks, summary.tracks) {
            total.add(track)
            var single = TrackStatisticsAccumulator()
            single.add(track)
            #expect(try encoder.encode(StatisticsJSON(single.statistics)) == encoder.encode(reported.statistics))
        }
        #expect(try encoder.encode(StatisticsJSON(total.statistics)) == encoder.encode(summary.total))
    }

    @Test("an invalid file exits 1")
    func invalidInput() async throws {
        let path = temporaryFile("bad.gpx")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(#"<gpx version="1.1"><trk><trkseg><trkpt lat="95" lon="0"/></trkseg></trk></gpx>"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        #expect(await WaymarkCommand.run(["gpx", "stats", path]) == WaymarkExit.invalidInput)
        #expect(await WaymarkCommand.run(["gpx", "validate", path]) == WaymarkExit.invalidInput)
        #expect(await WaymarkCommand.run(["gpx", "stats", "/no/such/file.gpx"]) == WaymarkExit.invalidInput)
    }

    @Test("convert to GPX, GeoJSON and CSV keeps every track point", arguments: ["gpx", "geojson", "csv"])
    func convertKeepsPoints(format: String) async throws {
        let out = temporaryFile("out.\(format)")
        defer { try? FileManager.default.removeItem(atPath: out) }
        #expect(await WaymarkCommand.run(["gpx", "convert", Self.ride, "--to", format, "-o", out]) == WaymarkExit.success)
        let text = try String(contentsOfFile: out, encoding: .utf8)
        switch format {
        case "gpx":
            let summary = try GPXStatsCommand.summarise(file: out, lenient: false)
            #expect(summary.total.points == 871)
            #expect(summary.version == "1.1")
        case "csv":
            #expect(text.split(separator: "\n").count == 871 + 1)
        default:
            let json = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
            let features = try #require(json?["features"] as? [[String: Any]])
            let geometries = features.compactMap { $0["geometry"] as? [String: Any] }
            let lines = geometries.filter { ["LineString", "MultiLineString"].contains($0["type"] as? String) }
            #expect(lines.count == 3)   // four tracks, one of them without points
            #expect(geometries.filter { $0["type"] as? String == "Point" }.count == 2)
            let pointCount = lines.reduce(0) { total, g in
                let coordinates = g["coordinates"] as? [Any] ?? []
                if g["type"] as? String == "LineString" { return total + coordinates.count }
                return total + coordinates.reduce(0) { $0 + (($1 as? [Any])?.count ?? 0) }
            }
            #expect(pointCount == 871)
        }
    }

    @Test("a file with waypoints after tracks converts to GPX 1.1 in schema order")
    func convertReordersOutOfOrderFile() async throws {
        let input = temporaryFile("order.gpx"), out = temporaryFile("order-out.gpx")
        defer { for path in [input, out] { try? FileManager.default.removeItem(atPath: path) } }
        let gpx = """
        <gpx version="1.1" creator="t"><trk><trkseg><trkpt lat="1" lon="2"/></trkseg></trk>
        <wpt lat="3" lon="4"><name>late</name></wpt></gpx>
        """
        try Data(gpx.utf8).write(to: URL(fileURLWithPath: input))
        #expect(await WaymarkCommand.run(["gpx", "convert", input, "--to", "gpx", "-o", out]) == WaymarkExit.success)
        let text = try String(contentsOfFile: out, encoding: .utf8)
        let wpt = try #require(text.range(of: "<wpt")), trk = try #require(text.range(of: "<trk>"))
        #expect(wpt.lowerBound < trk.lowerBound)
    }

    @Test("simplify with a tolerance keeps fewer points and writes valid GPX")
    func simplifyWrites() async throws {
        let out = temporaryFile("simple.gpx")
        defer { try? FileManager.default.removeItem(atPath: out) }
        #expect(await WaymarkCommand.run(["gpx", "simplify", Self.ride, "--tolerance", "5", "-o", out]) == WaymarkExit.success)
        let summary = try GPXStatsCommand.summarise(file: out, lenient: false)
        #expect(summary.total.points < 871 && summary.total.points > 20)
        let original = try GPXStatsCommand.summarise(file: Self.ride, lenient: false)
        // A 5 m tolerance shortens the line by cutting corners, but only a little.
        #expect(summary.total.length2d <= original.total.length2d)
        #expect(summary.total.length2d > original.total.length2d * 0.97)
    }
}
