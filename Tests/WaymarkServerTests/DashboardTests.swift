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

    @Test("GET / serves the dashboard, its map library comes from this server; OsmAnd uploads to / still work")
    func servesPage() async throws {
        try await TestServer.run(.sqlite) { server in
            let page = try await server.send(.get, "/")
            #expect(page.status == .ok)
            #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(page.text.contains("<div id=\"map\""))
            // No external assets: nothing loaded from another origin; the map library from this one, with its integrity.
            #expect(!page.text.contains("src=\"http") && !page.text.contains("href=\"http"))
            #expect(page.text.contains(#"<script src="/dashboard/leaflet-1.9.4/leaflet.js" integrity="sha384-"#))
            #expect(page.text.contains(#"<link rel="stylesheet" href="/dashboard/leaflet-1.9.4/leaflet.css" integrity="sha384-"#))
            // The served library is Leaflet 1.9.4 byte for byte: the SHA-256 that Leaflet publishes for its release
            // files, and the files vendored in the repository (with the licence beside them).
            let vendored = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../Sources/WaymarkServer/Dashboard/Leaflet").standardized
            for (name, type, published) in [("leaflet.js", "text/javascript", "'sha256-20nQCchB9co0qIjJZRGuk2/Z9VM+kNiyxNV1lvTlZBo='"),
                                            ("leaflet.css", "text/css", "'sha256-p4NxAoJBhIIN+hmNHrzRCf9tD/miZyoHS5obTRR9BMY='"),
                                            ("LICENSE.txt", "text/plain", nil)] {
                let asset = try await server.send(.get, "/dashboard/leaflet-1.9.4/\(name)")
                #expect(asset.status == .ok, "\(name)")
                #expect(asset.headers[.contentType]?.hasPrefix(type) == true, "\(name)")
                #expect(asset.headers[.cacheControl] == "public, max-age=31536000, immutable", "\(name)")
                #expect(asset.headers[.xContentTypeOptions] == "nosniff", "\(name)")
                if let published { #expect(Self.hashSource(asset.text) == published, "\(name) is not Leaflet 1.9.4's") }
                let file = try Data(contentsOf: vendored.appendingPathComponent(name == "LICENSE.txt" ? "LICENSE" : name))
                #expect(Data(asset.body.readableBytesView) == file, "\(name) differs from the vendored file")
            }
            #expect(try await server.send(.get, "/dashboard/leaflet-1.9.4/leaflet.js").text.hasPrefix("/* @preserve\n * Leaflet 1.9.4,"))
            #expect(try await server.send(.get, "/dashboard/leaflet-1.9.4/LICENSE.txt").text.contains("BSD 2-Clause License"))
            let upload = try await server.send(.get, "/?id=\(server.deviceToken)&timestamp=1750000000&lat=46.05&lon=14.5")
            #expect(upload.status == .ok)
            #expect(try await server.storedPositions().count == 1)
        }
    }

    @Test("the dashboard (at /dashboard and at /) carries a strict CSP and the other security headers")
    func securityHeaders() async throws {
        try await TestServer.run(.sqlite) { server in
            for path in ["/dashboard", "/"] {
                let page = try await server.send(.get, path)
                #expect(page.status == .ok)
                #expect(page.headers[.xContentTypeOptions] == "nosniff", "\(path)")
                #expect(page.headers[HTTPField.Name("X-Frame-Options")!] == "DENY", "\(path)")
                #expect(page.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer", "\(path)")
                #expect(page.headers[.cacheControl] == "no-cache", "\(path)")
                let csp = try #require(page.headers[.contentSecurityPolicy], "\(path) has no Content-Security-Policy")
                let directives = Dictionary(csp.split(separator: ";").map { part -> (String, [String]) in
                    let words = part.split(separator: " ").map(String.init)
                    return (words[0], Array(words.dropFirst()))
                }, uniquingKeysWith: { first, _ in first })
                // The page's one inline script and one inline style, hashed again here from the served bytes; the
                // map library's script and stylesheet from this origin only.
                let scripts = Self.inlineTexts("script", in: page.text), styles = Self.inlineTexts("style", in: page.text)
                #expect(scripts.count == 1 && styles.count == 1)
                #expect(directives["script-src"] == ["'self'"] + scripts.map(Self.hashSource), "\(csp)")
                #expect(directives["style-src"] == ["'self'"] + styles.map(Self.hashSource), "\(csp)")
                #expect(directives["default-src"] == ["'none'"])
                #expect(directives["connect-src"] == ["'self'"])
                #expect(directives["img-src"] == ["'none'"])
                #expect(directives["base-uri"] == ["'none'"])
                #expect(directives["form-action"] == ["'none'"])
                #expect(directives["frame-ancestors"] == ["'none'"])
                #expect(!csp.contains("unsafe"), "no 'unsafe-inline' or 'unsafe-eval'")
                // Nothing the CSP would block: no inline event-handler or style attributes, no external URLs.
                #expect(!page.text.contains(" style=\"") && !page.text.contains(" onclick=") && !page.text.contains(" onload="))
            }
            // JSON and OsmAnd replies at / are not the dashboard and carry no page policy.
            let upload = try await server.send(.get, "/?id=\(server.deviceToken)&timestamp=1750000000&lat=46.05&lon=14.5")
            #expect(upload.status == .ok && upload.headers[.contentSecurityPolicy] == nil)
        }
    }

    /// The text of each attribute-less `<tag>…</tag>` in `html`.
    static func inlineTexts(_ tag: String, in html: String) -> [String] {
        html.components(separatedBy: "<\(tag)>").dropFirst().compactMap { $0.components(separatedBy: "</\(tag)>").first }
    }

    /// The CSP hash source of `text`: `'sha256-` + base64 of the SHA-256 of its UTF-8 bytes + `'`, computed
    /// from ``TokenHasher/digest(_:)``'s hex (not the page's own hashing code).
    static func hashSource(_ text: String) -> String {
        let hex = Array(TokenHasher.digest(text).utf8)
        let bytes = stride(from: 0, to: hex.count, by: 2).map { UInt8(String(decoding: hex[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
        return "'sha256-\(Data(bytes).base64EncodedString())'"
    }

    @Test("headless Chromium draws the latest ride, the fences (two pages of them) and a scale bar, with no CSP violation",
          .enabled(if: chromium != nil, skipMessage))
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
            // 10,000 far-away fences whose ids sort before f_depot, so the page must follow `next` to draw it.
            try await server.store.upsertFences((0..<10_000).map { n in
                ServerFence(id: String(format: "a_%05d", n), name: "far \(n)",
                      shape: .circle(center: Coordinate(uncheckedLatitude: -40 + Double(n % 100) * 0.1, longitude: Double(n / 100) * 0.1),
                                     radiusMeters: 50),
                      dwellSeconds: nil)
            }, at: TestServer.now)
            let (dom, console) = try await Self.dumpDOM(chromium, url: "http://127.0.0.1:\(port)/#token=\(TestServer.adminToken)&live=0")
            #expect(dom.contains(#"data-ready="1""#), "the page did not finish loading: \(dom.prefix(2000))")
            // Chromium reports a blocked script, style, fetch or image as a console message naming the policy.
            let violations = console.split(separator: "\n").filter { $0.contains("Content Security Policy") || $0.contains("Refused to") }
            #expect(violations.isEmpty, "CSP violations: \(violations.joined(separator: "\n"))")
            let track = try #require(MapDOM.path(classed: "track", in: dom), "no ride on the map: \(dom.prefix(3000))")
            #expect(track.vertices.count == 120, "the latest ride has 120 points")
            // Every vertex lies inside the visible map (the SVG reaches a tenth of the map beyond each edge).
            #expect(track.vertices.allSatisfy { track.visible.contains($0) }, "\(track.vertices) outside \(track.visible)")
            // The ride fills the view (fitted with 30 px of margin) and north is up: it goes north, so the
            // last point is higher (smaller y) than the first.
            let ys = track.vertices.map(\.y)
            #expect((ys.max() ?? 0) - (ys.min() ?? 0) > track.visible.height / 2)
            #expect((track.vertices.last?.y ?? 0) < (track.vertices.first?.y ?? 0))
            // A metric scale bar.
            let scale = try #require(MapDOM.text(of: #"<div class="leaflet-control-scale-line""#, in: dom))
            #expect(scale.hasSuffix(" m") || scale.hasSuffix(" km"), "\(scale)")
            // The depot (on the fences' second page) drawn, with its name; the 10,000 far-away fences are out of view.
            #expect(dom.contains(#"<path class="fence"#) && dom.contains(#"data-id="f_depot""#))
            #expect(DashboardMapTests.attribute("data-fences", of: #"<div id="map""#, in: dom) == "1")
            #expect(dom.contains("120 points from"))
        }
    }

    @Test("Chromium's log shows a CSP violation, so the dashboard's check for none is not vacuous",
          .enabled(if: chromium != nil, skipMessage))
    func violationsAreLogged() async throws {
        let chromium = try #require(Self.chromium)
        let page = #"<meta http-equiv="Content-Security-Policy" content="script-src 'sha256-AAAA'"><script>document.title="ran"</script>"#
        let (dom, console) = try await Self.dumpDOM(chromium, url: "data:text/html," + (page.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? page))
        #expect(!dom.contains("<title>ran</title>"))
        #expect(console.contains("Content Security Policy"), "\(console.suffix(2000))")
    }

    /// Runs headless Chromium on `url` and returns the DOM after scripts ran, and Chromium's log (its
    /// stderr with `--enable-logging=stderr`, where the page's console messages and CSP violations appear
    /// as `INFO:CONSOLE` lines).
    static func dumpDOM(_ chromium: String, url: String, timeZone: String? = nil) async throws -> (dom: String, console: String) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-dom-\(UUID().uuidString).html")
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-chromium-\(UUID().uuidString).log")
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-chromium-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: output)
            try? FileManager.default.removeItem(at: log)
            try? FileManager.default.removeItem(at: profile)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: chromium)
        process.arguments = ["--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--disable-extensions",
                             "--user-data-dir=\(profile.path)", "--enable-logging=stderr", "--v=0",
                             "--window-size=1280,800", "--virtual-time-budget=15000", "--dump-dom", url]
        if let timeZone {
            var environment = ProcessInfo.processInfo.environment
            environment["TZ"] = timeZone
            process.environment = environment
        }
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: log)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            process.terminationHandler = { _ in continuation.resume() }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        return (try String(contentsOf: output, encoding: .utf8), (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }
}
