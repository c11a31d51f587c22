import Foundation
import Testing
@testable import WaymarkGeo

private let t0 = Date(timeIntervalSince1970: 1_700_000_000)   // 2023-11-14T22:13:20Z

private func point(_ lat: Double, _ lon: Double, ele: Double? = nil, t: Double? = nil) throws -> Waypoint {
    Waypoint(coordinate: try Coordinate(latitude: lat, longitude: lon), elevation: ele,
             time: t.map { t0.addingTimeInterval($0) })
}

private func sampleDocument() throws -> GPXDocument {
    var summit = try point(46.378, 13.836, ele: 2864, t: 0)
    summit.details.name = "Triglav \"summit\"\nwith a newline"
    summit.details.symbol = "Summit"
    let route = Route(info: PathInfo(name: "Plan"), points: [try point(46.0, 14.0), try point(46.1, 14.1)])
    let oneSegment = Track(info: PathInfo(name: "Morning", type: "hiking"), segments: [TrackSegment(points: [
        try point(46.05, 14.5, ele: 295.5, t: 0), try point(46.051, 14.501, ele: 296, t: 1.25),
        try point(46.052, 14.502, ele: 297, t: 2.5),
    ])])
    let twoSegments = Track(info: PathInfo(name: "Split", number: 2), segments: [
        TrackSegment(points: [try point(1, 2, t: 10), try point(1.001, 2.001)]),
        TrackSegment(),
        TrackSegment(points: [try point(1.01, 2.01, t: 100), try point(1.02, 2.02, t: 101)]),
    ])
    return GPXDocument(waypoints: [summit], routes: [route], tracks: [oneSegment, twoSegments])
}

private func json(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
}

@Suite("GeoJSON")
struct GeoJSONTests {
    @Test("writes a FeatureCollection with longitude first and altitude third")
    func writesShape() throws {
        let root = try json(GeoJSONWriter.string(for: try sampleDocument()))
        #expect(root["type"] as? String == "FeatureCollection")
        let features = try #require(root["features"] as? [[String: Any]])
        #expect(features.count == 4)
        let geometries = features.map { $0["geometry"] as? [String: Any] }
        #expect(geometries.map { $0?["type"] as? String } == ["Point", "LineString", "LineString", "MultiLineString"])
        let summit = try #require(geometries[0]?["coordinates"] as? [Double])
        #expect(summit == [13.836, 46.378, 2864])
        let line = try #require(geometries[2]?["coordinates"] as? [[Double]])
        #expect(line[0] == [14.5, 46.05, 295.5])
        let multi = try #require(geometries[3]?["coordinates"] as? [[[Double]]])
        #expect(multi.count == 2, "the empty segment is left out")
        #expect(multi[0][0] == [2, 1], "no altitude when points lack elevation")
    }

    @Test("writes properties and coordTimes as ISO-8601 UTC")
    func writesProperties() throws {
        let root = try json(GeoJSONWriter.string(for: try sampleDocument()))
        let features = try #require(root["features"] as? [[String: Any]])
        let props = features.map { $0["properties"] as? [String: Any] ?? [:] }
        #expect(props.map { $0["kind"] as? String } == ["waypoint", "route", "track", "track"])
        #expect(props[0]["time"] as? String == "2023-11-14T22:13:20Z")
        #expect(props[0]["sym"] as? String == "Summit")
        #expect(props[2]["type"] as? String == "hiking")
        #expect(props[2]["coordTimes"] as? [String] ==
                ["2023-11-14T22:13:20Z", "2023-11-14T22:13:21.250Z", "2023-11-14T22:13:22.500Z"])
        let multiTimes = try #require(props[3]["coordTimes"] as? [[Any]])
        #expect(multiTimes[0].first as? String == "2023-11-14T22:13:30Z")
        #expect(multiTimes[0].last is NSNull)
        #expect(props[1]["coordTimes"] == nil, "an untimed route has no coordTimes")
    }

    @Test("reading what was written gives the same waypoints, routes and tracks")
    func roundTrip() throws {
        let original = try sampleDocument()
        let read = try GeoJSONReader.document(from: Data(GeoJSONWriter.string(for: original).utf8))
        #expect(read.waypoints == original.waypoints)
        #expect(read.routes == original.routes)
        var expectedTracks = original.tracks
        expectedTracks[1].segments.removeAll { $0.points.isEmpty }
        #expect(read.tracks == expectedTracks)
    }

    @Test("an empty collection is valid GeoJSON and reads back empty")
    func empty() throws {
        let text = GeoJSONWriter.string(for: GPXDocument())
        #expect((try json(text)["features"] as? [Any])?.isEmpty == true)
        #expect(try GeoJSONReader.document(from: Data(text.utf8)) == GPXDocument())
    }

    @Test("reads a bare geometry, a single feature, MultiPoint and null geometries")
    func readsVariants() throws {
        let bare = try GeoJSONReader.document(from: Data(#"{"type":"LineString","coordinates":[[10,50],[10.1,50.1,7]]}"#.utf8))
        #expect(bare.tracks.first?.segments.first?.points.map(\.coordinate.longitude) == [10, 10.1])
        #expect(bare.tracks.first?.segments.first?.points.last?.elevation == 7)
        let feature = try GeoJSONReader.document(from: Data(
            #"{"type":"Feature","properties":{"name":"Hut","time":"2024-02-29T12:00:00+01:00"},"geometry":{"type":"Point","coordinates":[190,45]}}"#.utf8))
        let hut = try #require(feature.waypoints.first)
        #expect(hut.details.name == "Hut")
        #expect(hut.coordinate.longitude == -170)
        #expect(hut.time.map(ISO8601UTC.string) == "2024-02-29T11:00:00Z")
        let mixed = try GeoJSONReader.document(from: Data(#"""
            {"type":"FeatureCollection","features":[
              {"type":"Feature","properties":null,"geometry":null},
              {"type":"Feature","properties":{},"geometry":{"type":"MultiPoint","coordinates":[[1,2],[3,4]]}}]}
            """#.utf8))
        #expect(mixed.waypoints.map(\.coordinate.latitude) == [2, 4])
    }

    @Test("reads point times from togeojson's coordinateProperties.times")
    func coordinateProperties() throws {
        let document = try GeoJSONReader.document(from: Data(#"""
            {"type":"Feature","properties":{"coordinateProperties":{"times":["2024-05-01T10:00:00Z","2024-05-01T10:00:05.5Z"]}},
             "geometry":{"type":"LineString","coordinates":[[14.5,46.05],[14.5001,46.0501]]}}
            """#.utf8))
        let points = try #require(document.tracks.first?.segments.first?.points)
        #expect(points.compactMap(\.time).map(ISO8601UTC.string) == ["2024-05-01T10:00:00Z", "2024-05-01T10:00:05.500Z"])
    }

    @Test("errors name the JSON path and what was expected", arguments: [
        (#"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]}},{"type":"Feature","geometry":{"type":"LineString","coordinates":[[1,2],[3,4],[5]]}}]}"#,
         "features[1].geometry.coordinates[2]: expected [longitude, latitude]"),
        (#"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,95]}}"#,
         "geometry.coordinates: latitude 95.0 is out of range"),
        (#"{"type":"Feature","geometry":{"type":"Polygon","coordinates":[]}}"#,
         "geometry.type: unsupported geometry \"Polygon\""),
        (#"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"coordTimes":["2024-01-01T00:00:00Z","yesterday"]},"geometry":{"type":"LineString","coordinates":[[1,2],[3,4]]}}]}"#,
         "features[0].properties.coordTimes[1]: \"yesterday\" is not an ISO-8601"),
        (#"{"type":"FeatureCollection","features":{}}"#, "features: expected an array"),
        (#"{"type":"Feature","geometry":{"type":"Point","coordinates":["1",2]}}"#,
         "geometry.coordinates: expected [longitude, latitude]"),
        (#"{"type":"FeatureCollection","features":[{"type":"Feature""#, "not valid JSON"),
    ])
    func errorPaths(input: String, expectedPrefix: String) {
        do {
            _ = try GeoJSONReader.document(from: Data(input.utf8))
            Issue.record("expected an error for \(input)")
        } catch {
            #expect(error.code == .invalidGeoJSON)
            #expect(error.message.hasPrefix(expectedPrefix), "\(error.message)")
        }
    }

    @Test("formats UTC timestamps across leap days, before 1970 and with milliseconds", arguments: [
        (1_709_208_000.0, "2024-02-29T12:00:00Z"), (-0.5, "1969-12-31T23:59:59.500Z"),
        (0.0, "1970-01-01T00:00:00Z"), (951_782_400.001, "2000-02-29T00:00:00.001Z"),
        (4_102_444_799.0, "2099-12-31T23:59:59Z"),
    ])
    func isoTimes(seconds: Double, expected: String) {
        let date = Date(timeIntervalSince1970: seconds)
        #expect(ISO8601UTC.string(date) == expected)
        #expect(ISO8601UTC.date(from: expected).map { abs($0.timeIntervalSince(date)) < 0.001 } == true)
    }
}
