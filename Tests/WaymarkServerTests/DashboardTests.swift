import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import WaymarkGeo
@testable import WaymarkServer

@Suite("Dashboard")
struct DashboardTests {
    /// The Chromium binary (Debian's `chromium`), or nil when it is not installed.
    static let chromium: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }
    static let skipMessage: Comment = "chromium is not installed: the headless dashboard test is skipped (apt-get install -y chromium)"

    @Test("GET / serves the self-contained dashboard; OsmAnd uploads to / still work")
    func servesPage() async throws {
        try await TestServer.run(.sqlite) { server in
            let page = try await server.send(.get, "/")
            #expect(page.status == .ok)
            #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(page.text.contains("<svg id=\"map\""))
            // No external assets: nothing loaded from another origin.
            #expect(!page.text.contains("src=\"http") && !page.text.contains("href=\"http"))
            let upload = try await server.send(.get, "/?id=\(server.deviceToken)&timestamp=1750000000&lat=46.05&lon=14.5")
            #expect(upload.status == .ok)
            #expect(try await server.storedPositions().count == 1)
        }
    }

    @Test("headless Chromium draws the latest ride, the fences and a scale bar", .enabled(if: chromium != nil, skipMessage))
    func drawsRide() async throws {
        let chromium = try #require(Self.chromium)
        try await LiveStreamTests.live(.sqlite) { server, port in
            // An earlier ride (3 points) and, after a two-hour gap, the latest ride of 120 points.
            let start = Date(timeIntervalSince1970: 1_749_981_600)
            var points: [(Date, Double, Double)] = []
            for i in 0..<3 {
                let d = Double(i)
                points.append((start.addingTimeInterval(d * 10), 46.0, 14.4 + d * 0.001))
            }
            let second = start.addingTimeInterval(7200)
            for i in 0..<120 {
                let d = Double(i)
                let lon: Double = 14.5 + sin(d / 10) * 0.002
                points.append((second.addingTimeInterval(d * 5), 46.05 + d * 0.0002, lon))
            }
            let features = points.map { p in
                #"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(p.2),\#(p.1)]},"properties":{"timestamp":"\#(TimestampParser.format(p.0))"}}"#
            }
            let upload = try await server.send(.post, "/api/ingest", token: server.deviceToken,
                                               body: #"{"locations":[\#(features.joined(separator: ","))]}"#)
            #expect(upload.status == .ok)
            _ = try await server.send(.post, "/api/fences", token: TestServer.adminToken, body: WebhookTests.fence)
            let dom = try await Self.dumpDOM(chromium, url: "http://127.0.0.1:\(port)/#token=\(TestServer.adminToken)&live=0")
            #expect(dom.contains(#"data-ready="1""#), "the page did not finish loading: \(dom.prefix(2000))")
            let polyline = try #require(dom.range(of: #"<polyline id="track""#).map { dom[$0.lowerBound...].prefix { $0 != ">" } })
            let pointsAttribute = try #require(polyline.range(of: #"points=""#).map { polyline[$0.upperBound...].prefix { $0 != "\"" } })
            let drawn = pointsAttribute.split(separator: " ")
            #expect(drawn.count == 120, "the latest ride has 120 points")
            // Every vertex lies inside the 800×600 map.
            let xy = drawn.map { $0.split(separator: ",").compactMap { Double($0) } }
            #expect(xy.allSatisfy { $0.count == 2 && (0...800).contains($0[0]) && (0...600).contains($0[1]) })
            // North is up: the ride goes north, so the last point is higher (smaller y) than the first.
            #expect((xy.last?[1] ?? 0) < (xy.first?[1] ?? 0))
            #expect(dom.contains(#"id="scale-bar""#))
            #expect(dom.contains(#"class="fence""#) && dom.contains(#"data-id="f_depot""#))
            #expect(dom.contains("120 points from"))
        }
    }

    /// Runs headless Chromium on `url` and returns the DOM after scripts ran.
    static func dumpDOM(_ chromium: String, url: String) async throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-dom-\(UUID().uuidString).html")
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-chromium-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: output.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: output)
            try? FileManager.default.removeItem(at: profile)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: chromium)
        process.arguments = ["--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--disable-extensions",
                             "--user-data-dir=\(profile.path)", "--virtual-time-budget=15000", "--dump-dom", url]
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            process.terminationHandler = { _ in continuation.resume() }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        return try String(contentsOf: output, encoding: .utf8)
    }
}
