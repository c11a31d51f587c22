import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkSimulator

@Suite("Scenario routes from GPX files")
struct GPXRouteTests {
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("WaymarkGeoTests/Fixtures/corpus/gpxpy")

    @Test("a GPX route replays the file's timed track points from second 0")
    func replaysTrack() throws {
        let file = Self.corpus.appendingPathComponent("korita-zbevnica.gpx")
        let document = try GPXDocument(contentsOf: file)
        let points = document.tracks.flatMap(\.points).filter { $0.time != nil }
        let json = #"{"version": 1, "route": {"gpx": "\#(file.path)"}}"#
        let scenario = try Scenario.decode(from: Data(json.utf8))
        let trajectory = try scenario.makeTrajectory()
        let first = try #require(points.first), last = try #require(points.last)
        #expect(trajectory.state(at: 0).coordinate == first.coordinate)
        let span = last.time!.timeIntervalSince(first.time!)
        #expect(trajectory.state(at: span + 10).coordinate == last.coordinate)
        // Midway, the true position lies on the recorded line: within a few metres of some point's segment.
        let mid = trajectory.state(at: span / 2).coordinate
        let nearest = points.map { Geodesy.haversineDistance($0.coordinate, mid) }.min() ?? .infinity
        #expect(nearest < 500)
    }

    @Test("a relative GPX path is resolved against the scenario file's folder")
    func relativePath() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-gpx-route-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(at: Self.corpus.appendingPathComponent("korita-zbevnica.gpx"),
                                         to: dir.appendingPathComponent("ride.gpx"))
        let scenarioURL = dir.appendingPathComponent("s.json")
        try Data(#"{"version": 1, "route": {"gpx": "ride.gpx"}}"#.utf8).write(to: scenarioURL)
        let scenario = try Scenario.load(contentsOf: scenarioURL)
        #expect(scenario.route?.gpx == dir.appendingPathComponent("ride.gpx").path)
        _ = try scenario.makeTrajectory()
    }

    @Test("a GPX file without times is rejected naming route.gpx")
    func untimedRejected() throws {
        let file = Self.corpus.appendingPathComponent("route.gpx")
        let scenario = try Scenario.decode(from: Data(#"{"version": 1, "route": {"gpx": "\#(file.path)"}}"#.utf8))
        #expect {
            _ = try scenario.makeTrajectory()
        } throws: { error in
            String(describing: error).contains("route.gpx")
        }
    }
}
