import Foundation
import Testing
@testable import WaymarkGeo

@Suite("CSV track writer")
struct CSVTrackWriterTests {
    @Test("writes a header and one row per point with every column in place")
    func rows() throws {
        var full = Waypoint(coordinate: try Coordinate(latitude: 46.05, longitude: 14.5), elevation: 295.5,
                            time: Date(timeIntervalSince1970: 1_700_000_000.25), speed: 3.5, course: 270,
                            fix: .threeD, satellites: 9, hdop: 0.8, vdop: 1.1, pdop: 1.4)
        full.extensions = PointExtensions(heartRate: 142, cadence: 88, temperature: 21.5, power: 250)
        let bare = Waypoint(coordinate: try Coordinate(latitude: -33.9, longitude: 151.2))
        let document = GPXDocument(tracks: [
            Track(segments: [TrackSegment(points: [full])]),
            Track(segments: [TrackSegment(), TrackSegment(points: [bare, bare])]),
        ])
        let lines = CSVTrackWriter.string(for: document).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 5)
        #expect(lines[0] == "track,segment,latitude,longitude,elevation,time,speed,course,hdop,vdop,pdop,satellites,fix,heart_rate,cadence,temperature,power")
        #expect(lines[1] == "0,0,46.05,14.5,295.5,2023-11-14T22:13:20.250Z,3.5,270,0.8,1.1,1.4,9,3d,142,88,21.5,250")
        #expect(lines[2] == "1,1,-33.9,151.2,,,,,,,,,,,,,")
        #expect(lines[3] == lines[2])
        #expect(lines[4] == "")
        let columns = lines[0].split(separator: ",").count
        #expect(lines[1...3].allSatisfy { $0.split(separator: ",", omittingEmptySubsequences: false).count == columns })
    }

    @Test("streams into any text output, row by row")
    func streaming() throws {
        struct Counter: TextOutputStream {
            var writes = 0
            var text = ""
            mutating func write(_ string: String) { writes += 1; text += string }
        }
        var writer = CSVTrackWriter(output: Counter())
        let p = Waypoint(coordinate: try Coordinate(latitude: 1, longitude: 2))
        for i in 0..<10 { writer.write(p, track: 0, segment: i) }
        #expect(writer.output.writes == 11)
        #expect(writer.output.text.hasSuffix("0,9,1,2,,,,,,,,,,,,,\n"))
    }
}
