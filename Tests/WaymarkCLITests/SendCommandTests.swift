import Foundation
import Testing
import WaymarkServer
@testable import WaymarkCLI
import ArgumentParser
import WaymarkGeo

@Suite("waymark send")
struct SendCommandTests {
    /// A 20-point ride in GPX 1.0 with speed (m/s) and course, one point every 5 s.
    static func rideFile() throws -> String {
        var points = ""
        for i in 0..<20 {
            let time = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: 1_750_000_000 + Double(i * 5)))
            points += """
            <trkpt lat="\(String(format: "%.6f", 46.05 + Double(i) * 0.0002))" lon="14.500000"><ele>\(300 + i)</ele>\
            <time>\(time)</time><course>0</course><speed>\(4.0 + Double(i) * 0.1)</speed></trkpt>\n
            """
        }
        let gpx = """
        <?xml version="1.0"?>
        <gpx version="1.0" creator="test" xmlns="http://www.topografix.com/GPX/1/0"><trk><trkseg>
        \(points)</trkseg></trk></gpx>
        """
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("send-\(UUID().uuidString).gpx")
        try gpx.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    @Test("each format is stored with the ride's coordinates, times and speed", arguments: SendFormat.allCases)
    func storesEachFormat(format: SendFormat) async throws {
        let server = try await DemoServer.start(port: 0)
        defer { server.stop() }
        let file = try Self.rideFile()
        defer { try? FileManager.default.removeItem(atPath: file) }
        let command = try SendCommand.parse([file, "--server", server.baseURL.absoluteString, "--token", server.deviceToken,
                                             "--format", format.rawValue, "--speedup", "0", "--original-times", "--batch", "7"])
        let report = try await command.replay()
        #expect(report.pointsSent == 20 && report.pointsAcknowledged == 20 && report.failures == 0)
        #expect(report.requests == (format == .native ? 3 : 20))
        let stored = try await server.store.positions(PositionQuery(deviceID: server.deviceID, limit: 100))
        #expect(stored.count == 20)
        let last = try #require(stored.last)
        #expect(abs(last.fix.coordinate.latitude - (46.05 + 19 * 0.0002)) < 1e-6)
        #expect(last.fix.timestamp == Date(timeIntervalSince1970: 1_750_000_095))
        // OwnTracks sends whole km/h, so its speed is within 0.5 km/h; the others keep m/s or knots exactly enough.
        let speed = try #require(last.fix.speed)
        #expect(abs(speed - 5.9) < (format == .owntracks ? 0.14 : 0.01))
    }

    @Test("--devices N registers N devices with the admin token and reports throughput and latency")
    func loadGenerator() async throws {
        let server = try await DemoServer.start(port: 0)
        defer { server.stop() }
        let file = try Self.rideFile()
        defer { try? FileManager.default.removeItem(atPath: file) }
        let command = try SendCommand.parse([file, "--server", server.baseURL.absoluteString, "--token", server.adminToken,
                                             "--devices", "4", "--speedup", "0", "--batch", "10"])
        let report = try await command.replay()
        #expect(report.devices == 4 && report.pointsAcknowledged == 80 && report.requests == 8)
        #expect(report.pointsPerSecond > 0 && report.latencyP99Milliseconds >= report.latencyP50Milliseconds)
        let devices = try await server.store.listDevices().filter { $0.name.hasPrefix("send-") }
        #expect(devices.count == 4)
        for device in devices {
            #expect(try await server.store.positions(PositionQuery(deviceID: device.id, limit: 100)).count == 20)
        }
    }

    @Test("a wrong token is reported as failed requests and a non-zero exit")
    func wrongToken() async throws {
        let server = try await DemoServer.start(port: 0)
        defer { server.stop() }
        let file = try Self.rideFile()
        defer { try? FileManager.default.removeItem(atPath: file) }
        let command = try SendCommand.parse([file, "--server", server.baseURL.absoluteString,
                                             "--token", "wmd_nope", "--speedup", "0"])
        let report = try await command.replay()
        #expect(report.pointsAcknowledged == 0 && report.failures == 1)
        #expect(report.firstError?.contains("401") == true)
        await #expect(throws: (any Error).self) { try await command.run() }
    }

    @Test("bad options are usage errors", arguments: [["--format", "gpx"], ["--speedup", "-1"], ["--devices", "0"]])
    func badOptions(extra: [String]) {
        #expect(throws: (any Error).self) {
            try SendCommand.parse(["ride.gpx", "--server", "http://127.0.0.1:1", "--token", "t"] + extra)
        }
    }
}
