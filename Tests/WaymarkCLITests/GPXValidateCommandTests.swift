import Foundation
import Testing
import ArgumentParser
import WaymarkGeo
@testable import WaymarkCLI

@Suite("gpx validate command")
struct GPXValidateCommandTests {
    @Test("parses the file argument and the --json and --lenient flags")
    func parsesFlags() throws {
        let command = try GPXValidateCommand.parse(["ride.gpx", "--json", "--lenient"])
        #expect(command.file == "ride.gpx")
        #expect(command.json)
        #expect(command.lenient)
    }

    @Test("rejects a missing file argument as a usage error")
    func missingFile() {
        #expect(throws: (any Error).self) { try GPXValidateCommand.parse([]) }
    }
}

@Suite("gpx validate behaviour")
struct GPXValidateBehaviourTests {
    func temporaryFile(_ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("validate-\(UUID().uuidString).gpx")
        try Data(text.utf8).write(to: url)
        return url
    }

    @Test("exits 0 for a valid file and 1 (ExitCode) for an invalid one; --lenient accepts bad points")
    func exitStatus() async throws {
        let good = try temporaryFile("<gpx version=\"1.1\" creator=\"t\"><trk><trkseg><trkpt lat=\"1\" lon=\"2\"/></trkseg></trk></gpx>")
        let bad = try temporaryFile("<gpx version=\"1.1\" creator=\"t\"><trk><trkseg><trkpt lat=\"91\" lon=\"2\"/></trkseg></trk></gpx>")
        defer { try? FileManager.default.removeItem(at: good); try? FileManager.default.removeItem(at: bad) }
        let ok = try GPXValidateCommand.parse([good.path])
        try await ok.run()
        let failing = try GPXValidateCommand.parse([bad.path])
        await #expect(throws: ExitCode(1)) { try await failing.run() }
        let lenient = try GPXValidateCommand.parse([bad.path, "--lenient"])
        try await lenient.run()
    }

    @Test("counts every kind of GPX content from the event stream")
    func counts() throws {
        let xml = """
        <gpx version="1.0" creator="t"><wpt lat="0" lon="0"/><rte><rtept lat="1" lon="1"/><rtept lat="2" lon="2"/></rte>
        <trk><trkseg><trkpt lat="3" lon="3"/></trkseg><trkseg/></trk></gpx>
        """
        var reader = try GPXReader(data: Data(xml.utf8))
        var counts = GPXCounts()
        while let e = try reader.next() { counts.add(e) }
        #expect(counts == GPXCounts(version: "1.0", waypoints: 1, routes: 1, routePoints: 2, tracks: 1, segments: 2, trackPoints: 1))
    }
}
