import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import WaymarkGeo
@testable import WaymarkServer

/// The dashboard's map used as an operator uses it (issue #33 item 1): wheel and drag sent as real input
/// through the DevTools protocol, Play pressed, positions arriving live, with and without a basemap,
/// and nothing refused by the page's CSP. Set `WAYMARK_SCREENSHOTS=DIR` to keep the screenshots.
@Suite("Dashboard interaction", .serialized)   // one Chromium at a time: each is several processes, and CI runs the whole test target at once
struct DashboardInteractionTests {
    /// The phone's ride north through the depot (60 points, 5 s apart, from 2025-06-15 10:00 UTC), the
    /// depot, a yard 2.2 km east of the view (out of it until the map zooms out), and a van parked nearby.
    static func seed(_ server: TestServer) async throws {
        let start = Date(timeIntervalSince1970: 1_749_981_600)
        _ = try await server.send(.post, "/api/fences", token: TestServer.adminToken, body: WebhookTests.fence)
        _ = try await server.send(.post, "/api/fences", token: TestServer.adminToken,
                                  body: #"{"id":"f_yard","name":"Yard","latitude":46.05,"longitude":14.5335,"radiusMeters":100}"#)
        let ride = (0..<60).map { i in
            #"{"type":"Feature","geometry":{"type":"Point","coordinates":[14.5,\#(46.047 + Double(i) * 0.0001)]},"properties":{"timestamp":"\#(TimestampParser.format(start.addingTimeInterval(Double(i) * 5)))"}}"#
        }
        let upload = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: #"{"locations":[\#(ride.joined(separator: ","))]}"#)
        #expect(try upload.json()["stored"] as? Int == 60)
        let (_, vanToken) = try await DeviceRegistry.register(name: "Van 7", in: server.store, at: TestServer.now)
        #expect(try await server.send(.get, "/?id=\(vanToken)&lat=46.052&lon=14.51&timestamp=1749978000").status == .ok)
    }

    /// Opens the dashboard in a 1280×800 window and waits until it has loaded (and, with a basemap, until
    /// its tiles have).
    static func open(_ browser: HeadlessChromium, port: Int, live: Bool = false) async throws {
        try await browser.open(width: 1280, height: 800)
        try await browser.navigate("http://127.0.0.1:\(port)/#token=\(TestServer.adminToken)" + (live ? "" : "&live=0"),
                                   readyWhen: "document.body.dataset.ready === '1'")
        try await settle(browser)
    }

    /// Waits for the map to be still: no move under way, every tile of the current zoom finished (loaded or
    /// failed) and faded in, the previous zoom's tiles gone.
    static func settle(_ browser: HeadlessChromium) async throws {
        try await browser.waitUntil("""
            !map._animatingZoom && !document.querySelector(".leaflet-zoom-anim")
              && [...document.querySelectorAll("img.leaflet-tile")].every((t) => t.complete && t.classList.contains("leaflet-tile-loaded")
                   && (t.style.opacity === "" || t.style.opacity === "1") && Number(new URL(t.src).pathname.split("/")[1]) === map.getZoom())
            """)
    }

    /// What the test compares before and after an input: the view, what is drawn, what is on screen.
    struct View: Equatable {
        var zoom: Double, lat: Double, lon: Double
        var pane: String, track: String, fences: Int, tileZooms: Set<Int>
    }

    static func view(_ browser: HeadlessChromium) async throws -> View {
        let json = try #require(try await browser.evaluate("""
            JSON.stringify({ zoom: map.getZoom(), lat: map.getCenter().lat, lon: map.getCenter().lng,
              pane: document.querySelector(".leaflet-map-pane").style.transform,
              track: document.querySelector("path.track").getAttribute("d"),
              fences: Number(document.getElementById("map").dataset.fences),
              tileZooms: [...document.querySelectorAll("img.leaflet-tile")].map((t) => Number(new URL(t.src).pathname.split("/")[1])) })
            """) as? String)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let number = { (key: String) in (object[key] as? NSNumber)?.doubleValue ?? .nan }
        return View(zoom: number("zoom"), lat: number("lat"), lon: number("lon"),
                    pane: object["pane"] as? String ?? "", track: object["track"] as? String ?? "",
                    fences: object["fences"] as? Int ?? -1, tileZooms: Set(object["tileZooms"] as? [Int] ?? []))
    }

    /// Runs `input`, then waits for the map's `moveend` and for the map to settle.
    static func afterMove(_ browser: HeadlessChromium, _ input: () async throws -> Void) async throws {
        _ = try await browser.evaluate("window.__moved = new Promise((resolve) => map.once('moveend', () => resolve(true))); true")
        try await input()
        let moved = try await browser.evaluate("Promise.race([window.__moved, new Promise((r) => setTimeout(() => r(false), 10000))])")
        #expect(moved as? Bool == true, "the map did not move")
        try await settle(browser)
    }

    /// The centre of an element of the page, in window pixels.
    static func centre(of selector: String, in browser: HeadlessChromium) async throws -> (x: Double, y: Double) {
        let box = numbers(try await browser.evaluate("""
            (() => { const r = document.querySelector('\(selector)').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()
            """))
        try #require(box.count == 2, "no \(selector) on the page")
        return (box[0], box[1])
    }

    /// A JSON array of numbers as doubles (whole numbers included).
    static func numbers(_ value: Any?) -> [Double] {
        (value as? [Any] ?? []).compactMap { ($0 as? NSNumber)?.doubleValue }
    }

    /// Every problem the page reported (console errors, exceptions, CSP violations), but the browser's own
    /// favicon request, which the server answers 404.
    static func problems(_ browser: HeadlessChromium) -> [String] {
        browser.problems().filter { !$0.contains("favicon.ico") }
    }

    static func keep(_ png: Data, _ name: String) {
        guard let directory = ProcessInfo.processInfo.environment["WAYMARK_SCREENSHOTS"] else { return }
        try? png.write(to: URL(fileURLWithPath: directory).appendingPathComponent(name))
    }

    @Test("the DevTools session reports a CSP violation and a blocked image, so the checks for none are not vacuous",
          .enabled(if: DashboardTests.chromium != nil, DashboardTests.skipMessage))
    func problemsAreReported() async throws {
        let chromium = try #require(DashboardTests.chromium)
        let browser = try HeadlessChromium(executable: chromium)
        defer { browser.close() }
        try await browser.open(width: 400, height: 300)
        let page = #"<meta http-equiv="Content-Security-Policy" content="script-src 'sha256-AAAA'; img-src 'none'"><script>document.title="ran"</script><img src="data:image/gif;base64,R0lGODlhAQABAAD/ACwAAAAAAQABAAACADs=">"#
        try await browser.navigate("data:text/html," + (page.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? page))
        try await browser.waitUntil("document.readyState === 'complete'")
        #expect(try await browser.evaluate("document.title") as? String == "")
        let problems = browser.problems()
        #expect(problems.contains { $0.contains("CSP violation: script-src") }, "\(problems)")
        #expect(problems.contains { $0.contains("CSP violation: img-src") }, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("log (security)") }, "\(problems)")
    }

    @Test("the wheel zooms the map out and a drag pans it; each redraws the ride, the fences in view, the tiles and the screen",
          .enabled(if: DashboardTests.chromium != nil, DashboardTests.skipMessage))
    func zoomAndPan() async throws {
        let chromium = try #require(DashboardTests.chromium)
        try await TileServer.run { tiles in
            try await LiveStreamTests.live(.sqlite, configure: {
                $0.tileURLTemplate = tiles.template
                $0.tileAttribution = "© Test tiles <b>&</b>"
            }) { server, port in
                try await Self.seed(server)
                let page = try await server.send(.get, "/")
                let tileOrigin = tiles.template.replacingOccurrences(of: "/{z}/{x}/{y}.png", with: "")
                #expect(page.headers[.contentSecurityPolicy]?.contains("img-src \(tileOrigin);") == true)

                let browser = try HeadlessChromium(executable: chromium)
                defer { browser.close() }
                try await Self.open(browser, port: port)
                let opened = try await Self.view(browser)
                let first = try await browser.screenshot()
                Self.keep(first, "dashboard-tiles-1-opened.png")
                // Opened on the ride and the van, close in, over tiles of that zoom from the tile server; the yard
                // is out of view.
                #expect(opened.zoom >= 15 && opened.tileZooms == [Int(opened.zoom)], "\(opened)")
                #expect(opened.fences == 1, "only the depot is in view: \(opened)")
                #expect(tiles.requests.contains { $0.hasPrefix("/\(Int(opened.zoom))/") })
                // The tiles' credit, as the text the operator gave (not as markup).
                let credit = try await browser.evaluate("document.querySelector('.leaflet-control-attribution').textContent") as? String
                #expect(credit?.contains("© Test tiles <b>&</b>") == true, "\(credit ?? "no attribution")")

                // Wheel down over the middle of the map: Leaflet zooms out around the cursor.
                let middle = try await Self.centre(of: "#map", in: browser)
                try await Self.afterMove(browser) { try await browser.wheel(x: middle.x, y: middle.y, deltaY: 300) }
                let zoomed = try await Self.view(browser)
                let second = try await browser.screenshot()
                Self.keep(second, "dashboard-tiles-2-zoomed-out.png")
                #expect(zoomed.zoom <= opened.zoom - 1, "the wheel did not zoom out: \(opened.zoom) → \(zoomed.zoom)")
                #expect(zoomed.track != opened.track, "the ride was not redrawn at the new zoom")
                #expect(zoomed.fences == 2, "the yard came into view and was drawn: \(zoomed)")
                #expect(zoomed.tileZooms == [Int(zoomed.zoom)], "tiles of the new zoom replaced the old: \(zoomed.tileZooms)")
                #expect(tiles.requests.contains { $0.hasPrefix("/\(Int(zoomed.zoom))/") })
                #expect(second != first, "the screen did not change")

                // Drag the map 300 px to the left and 40 px down: the view moves east and north, the layers with the map pane.
                try await Self.afterMove(browser) {
                    try await browser.drag(from: middle, to: (middle.x - 300, middle.y + 40), steps: 12)
                }
                let panned = try await Self.view(browser)
                let third = try await browser.screenshot()
                Self.keep(third, "dashboard-tiles-3-panned.png")
                #expect(panned.zoom == zoomed.zoom)
                #expect(panned.lon > zoomed.lon && panned.lat > zoomed.lat, "the drag (left and down) did not pan east and north: \(zoomed) → \(panned)")
                // translate3d(x, y, 0): at least the drag (Leaflet's inertia may carry it further the same way).
                let offset = panned.pane.split(separator: "(").last?.split(separator: ",").compactMap { Double($0.filter { "-0123456789.".contains($0) }) } ?? []
                #expect(offset.count == 3 && offset[0] <= -300 && offset[1] >= 40, "the map pane did not move with the drag: \(panned.pane)")
                #expect(third != second, "the screen did not change")

                let problems = Self.problems(browser)
                #expect(problems.isEmpty, "the page reported: \(problems.joined(separator: "\n"))")
            }
        }
    }

    @Test("without a basemap the map is a plain background, loads no image, still zooms, and Play walks the ride",
          .enabled(if: DashboardTests.chromium != nil, DashboardTests.skipMessage))
    func plainMapAndReplay() async throws {
        let chromium = try #require(DashboardTests.chromium)
        try await LiveStreamTests.live(.sqlite) { server, port in
            try await Self.seed(server)
            let browser = try HeadlessChromium(executable: chromium)
            defer { browser.close() }
            try await Self.open(browser, port: port)
            Self.keep(try await browser.screenshot(), "dashboard-plain-1-opened.png")
            #expect((try await browser.evaluate("document.querySelectorAll('img').length") as? NSNumber)?.intValue == 0)
            #expect(try await browser.evaluate("getComputedStyle(document.getElementById('map')).backgroundColor") as? String
                    == "rgb(238, 241, 244)")
            // The map fills the window beside the lists: from the side list's edge to the window's right edge,
            // from under the header to above the player.
            let box = Self.numbers(try await browser.evaluate("""
                (() => { const m = document.getElementById('map').getBoundingClientRect(), a = document.querySelector('aside').getBoundingClientRect();
                         return [m.left - a.right, innerWidth - m.right, m.height / innerHeight]; })()
                """))
            try #require(box.count == 3)
            #expect(box[0] >= 0 && box[0] < 2 && box[1] == 0 && box[2] > 0.85, "\(box)")

            // The zoom-in button, clicked.
            let before = try await Self.view(browser)
            let plus = try await Self.centre(of: ".leaflet-control-zoom-in", in: browser)
            try await Self.afterMove(browser) { try await browser.click(at: plus) }
            let after = try await Self.view(browser)
            #expect(after.zoom == before.zoom + 1 && after.track != before.track, "\(before) → \(after)")

            // Play walks the head to the ride's last point.
            try await browser.click(at: try await Self.centre(of: "#play", in: browser))
            try await browser.waitUntil("document.querySelector('path.playhead').getAttribute('data-index') === '59'")
            let dom = try #require(try await browser.evaluate("document.documentElement.outerHTML") as? String)
            let last = try #require(MapDOM.path(classed: "track", in: dom)?.vertices.last)
            #expect(MapDOM.circleCentre(classed: "playhead", radius: 7, in: dom) == last)
            Self.keep(try await browser.screenshot(), "dashboard-plain-2-replayed.png")
            #expect(try await browser.evaluate("document.getElementById('play').textContent") as? String == "Play")
            let problems = Self.problems(browser)
            #expect(problems.isEmpty, "the page reported: \(problems.joined(separator: "\n"))")
        }
    }

    @Test("live: a position sent while the page is open moves the device and extends the ride, without moving the view",
          .enabled(if: DashboardTests.chromium != nil, DashboardTests.skipMessage))
    func liveUpdates() async throws {
        let chromium = try #require(DashboardTests.chromium)
        try await LiveStreamTests.live(.sqlite) { server, port in
            try await Self.seed(server)
            let browser = try HeadlessChromium(executable: chromium)
            defer { browser.close() }
            try await Self.open(browser, port: port, live: true)
            try await browser.waitUntil("document.getElementById('status').textContent === 'live'")
            let before = try await Self.view(browser)
            let phone = server.device.id
            let marker = "document.querySelector('path.device[data-device=\"\(phone)\"]').getAttribute('d')"
            let markerBefore = try await browser.evaluate(marker) as? String
            // Five more points north, 5 s after the ride's last.
            let start = Date(timeIntervalSince1970: 1_749_981_600 + 300)
            let more = (0..<5).map { i in
                #"{"type":"Feature","geometry":{"type":"Point","coordinates":[14.5,\#(46.053 + Double(i) * 0.00005)]},"properties":{"timestamp":"\#(TimestampParser.format(start.addingTimeInterval(Double(i) * 5)))"}}"#
            }
            let upload = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: #"{"locations":[\#(more.joined(separator: ","))]}"#)
            #expect(try upload.json()["stored"] as? Int == 5)
            try await browser.waitUntil("document.querySelector('path.track').getAttribute('data-points') === '65'")
            let after = try await Self.view(browser)
            #expect(after.track.split(separator: "L").count == 65, "the ride on the map has the 5 new points")
            #expect(after.zoom == before.zoom && after.lat == before.lat && after.lon == before.lon, "live updates moved the view")
            #expect(try await browser.evaluate(marker) as? String != markerBefore, "the phone's marker did not move")
            #expect(try await browser.evaluate("document.getElementById('playback').max") as? String == "64")
            let problems = Self.problems(browser)
            #expect(problems.isEmpty, "the page reported: \(problems.joined(separator: "\n"))")
        }
    }
}
