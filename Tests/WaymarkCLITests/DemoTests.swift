import Foundation
import Testing
import WaymarkServer
@testable import WaymarkCLI

@Suite("waymark demo")
struct DemoTests {
    static let start = Date(timeIntervalSince1970: 1_790_000_000)

    @Test("end to end: the server stores exactly the points the phone recorded, through a tunnel, a kill and an offline window")
    func endToEnd() async throws {
        let server = try await DemoServer.start(port: 0)
        defer { server.stop() }
        var lines: [DemoTimelineEntry] = []
        var shares: [Double] = []
        let result = try await DemoRun(seed: 1, startTime: Self.start).run(server: server, progress: { shares.append($0) },
                                                                           line: { lines.append($0) })
        let summary = result.summary
        #expect(summary.pointsRecorded > 300)
        #expect(summary.pointsStoredOnServer == summary.pointsRecorded)
        #expect(summary.pointsUploaded == summary.pointsRecorded)
        #expect(summary.pointsLeftOnDevice == 0)
        // The offline window made at least one upload fail, and it was retried.
        #expect(summary.uploadFailures >= 1)
        #expect(result.timeline.contains { $0.kind == .network && $0.text.contains("offline") })
        // The tunnel and the kill leave gap markers; the kill and the background relaunch are on the timeline.
        #expect(summary.gaps >= 1)
        #expect(result.timeline.contains { $0.kind == .app && $0.text.contains("killed") })
        #expect(result.timeline.contains { $0.kind == .app && $0.text.contains("relaunched") })
        #expect(result.timeline.contains { $0.kind == .ride && $0.text.hasPrefix("auto-paused") })
        // The default policy spends well under always-best accuracy; the ride is the 15 km loop.
        #expect(summary.energyRatio > 0 && summary.energyRatio < 0.9)
        #expect(summary.distanceMeters > 12_000 && summary.distanceMeters < 20_000)
        // Lines were streamed as they happened, in time order, with progress up to the end.
        #expect(lines == result.timeline)
        #expect(zip(lines, lines.dropFirst()).allSatisfy { $0.t <= $1.t + DemoRun.step })
        #expect(shares.last == 1)
    }

    @Test("the summary table names every figure")
    func summaryTable() async throws {
        let server = try await DemoServer.start(port: 0)
        defer { server.stop() }
        let result = try await DemoRun(seed: 2, startTime: Self.start).run(server: server)
        let table = result.summary.table
        for label in ["distance", "duration", "energy vs always-best", "points recorded", "points uploaded",
                      "points stored on server", "fence events on device", "fence events on server"] {
            #expect(table.contains(label))
        }
        #expect(table.contains("(all of them)"))
    }

    @Test("options parse; a bad port is a usage error")
    func options() throws {
        let demo = try DemoCommand.parse(["--no-serve", "--port", "9999", "--seed", "3", "--json"])
        #expect(demo.noServe && demo.port == 9999 && demo.seed == 3 && demo.json)
        #expect(try DemoCommand.parse([]).port == 8080)
        #expect(throws: (any Error).self) { try DemoCommand.parse(["--port", "-1"]) }
    }

    @Test("a busy preferred port falls back to a free one")
    func portFallback() async throws {
        let first = try await DemoServer.start(port: 0)
        defer { first.stop() }
        let second = try await DemoServer.start(port: first.port)
        defer { second.stop() }
        #expect(second.port != first.port && second.port > 0)
    }
}
