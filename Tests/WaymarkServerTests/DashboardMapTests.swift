import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import WaymarkGeo
@testable import WaymarkServer

/// The dashboard an operator opens (issue #17 item 4, on Leaflet since issue #33): every device on the map,
/// the latest ride, named fences, fence events and the device's own records, a basemap from the configured
/// tile template, local times, durations and a replay, checked in the DOM headless Chromium leaves after
/// the page's scripts ran.
@Suite("Dashboard map")
struct DashboardMapTests {
    static let tiles = "http://127.0.0.1:9/{z}/{x}/{y}.png"

    @Test("opens on every device and the latest ride, fences named, tiles from the template, local times, a replay",
          .enabled(if: DashboardTests.chromium != nil, DashboardTests.skipMessage))
    func overview() async throws {
        let chromium = try #require(DashboardTests.chromium)
        try await LiveStreamTests.live(.sqlite, configure: { $0.tileURLTemplate = Self.tiles }) { server, port in
            // The phone: a 60-point ride north through the depot (5 s apart: 4 min 55 s), from 10:00 UTC.
            let start = Date(timeIntervalSince1970: 1_749_981_600)
            _ = try await server.send(.post, "/api/fences", token: TestServer.adminToken, body: WebhookTests.fence)
            let ride = (0..<60).map { i in
                #"{"type":"Feature","geometry":{"type":"Point","coordinates":[14.5,\#(46.047 + Double(i) * 0.0001)]},"properties":{"timestamp":"\#(TimestampParser.format(start.addingTimeInterval(Double(i) * 5)))"}}"#
            }
            let upload = try await server.send(.post, "/api/ingest", token: server.deviceToken,
                                               body: #"{"locations":[\#(ride.joined(separator: ","))]}"#)
            #expect(try upload.json()["stored"] as? Int == 60)
            // A second device parked nearby, heard from before the ride (so the ride is the latest).
            let (van, vanToken) = try await DeviceRegistry.register(name: "Van 7", in: server.store, at: TestServer.now)
            let parked = "/?id=\(vanToken)&lat=46.052&lon=14.51&timestamp=1749978000"
            #expect(try await server.send(.get, parked).status == .ok)
            // The phone's own records (OwnTracks transitions): one with a place during the ride, one without.
            for body in [#"{"_type":"transition","acc":12,"desc":"Home","event":"leave","lat":46.0475,"lon":14.5005,"t":"c","tid":"me","tst":1749981610,"wtst":1700000000}"#,
                         #"{"_type":"transition","acc":0,"desc":"Nowhere","event":"enter","lat":0,"lon":0,"t":"c","tid":"me","tst":1749981620,"wtst":1700000000}"#] {
                #expect(try await server.send(.post, "/pub", headers: ClientSemanticsTests.basic(server.deviceToken), body: body).status == .ok)
            }

            let page = try await server.send(.get, "/dashboard")
            #expect(page.headers[.contentSecurityPolicy]?.contains("img-src http://127.0.0.1:9;") == true)
            let (dom, console) = try await DashboardTests.dumpDOM(
                chromium, url: "http://127.0.0.1:\(port)/#token=\(TestServer.adminToken)&live=0", timeZone: "Asia/Tokyo")
            #expect(dom.contains(#"data-ready="1""#), "the page did not finish loading: \(dom.prefix(2000))")
            let violations = console.split(separator: "\n").filter { $0.contains("Content Security Policy") || $0.contains("Refused to") }
            #expect(violations.isEmpty, "CSP violations: \(violations.joined(separator: "\n"))")

            // Both devices on the map, named, and the ride of the first.
            #expect(dom.contains(#"<path class="device"#) && dom.contains(#"data-device="\#(server.device.id)""#))
            #expect(dom.contains(#"data-device="\#(van.id)""#) && dom.contains(">Van 7</div>"))
            let track = try #require(MapDOM.path(classed: "track", in: dom), "no ride on the map")
            #expect(track.vertices.count == 60)
            #expect(track.tag.contains(#"data-points="60""#))
            // The fence, drawn and named; the event list names it too.
            #expect(dom.contains(#"<path class="fence"#) && dom.contains(">Depot</div>"))
            #expect(MapDOM.text(of: #"<div class="leaflet-tooltip fence-label"#, in: dom) == "Depot")
            #expect(dom.contains("enter Depot (phone)"))
            // The server's enter event and the phone's own transition (sent with a place), drawn on the ride;
            // the transition with no known place (0, 0) only listed.
            #expect(dom.contains(#"data-source="fence" data-kind="enter""#), "no fence event on the map")
            #expect(dom.contains(#"data-source="device" data-kind="owntracks.transition""#), "no device event on the map")
            #expect(dom.components(separatedBy: #"data-source="device" data-kind="#).count - 1 == 1)
            #expect(dom.contains("owntracks.transition leave Home (phone)") && dom.contains("owntracks.transition enter Nowhere (phone)"))
            // Tiles of the template, and only of it, covering the map.
            let tiles = dom.components(separatedBy: #"src="http://127.0.0.1:9/"#).count - 1
            #expect((4...64).contains(tiles), "\(tiles) tiles")
            #expect(!dom.contains(#"src="data:"#))
            // Local times (Tokyo: 10:00 UTC is 19:00), the ride's duration and distance.
            #expect(dom.contains("7:00:00"), "no local time in \(dom.prefix(3000))")
            #expect(dom.contains("4 min 55 s") && dom.contains(" km</button>"))
            // The replay head starts on the ride's first point.
            let first = try #require(track.vertices.first)
            #expect(MapDOM.circleCentre(classed: "playhead", radius: 7, in: dom) == first)
            #expect(MapDOM.path(classed: "playhead", in: dom)?.tag.contains(#"data-index="0""#) == true)
            #expect(dom.contains(#"<input id="playback" type="range" min="0" max="59""#))
        }
    }

    @Test("a tile template must be an http(s) URL with {z}, {x} and {y}; its host becomes the page's only image source")
    func tileTemplates() throws {
        #expect(try DashboardPage.checkedTiles(Self.tiles) == Self.tiles)
        #expect(DashboardPage.tileSource("https://{s}.tile.example.org/{z}/{x}/{y}.png") == "https://*.tile.example.org")
        #expect(DashboardPage.tileSource("https://tiles.example.org:8443/osm/{z}/{x}/{y}.png") == "https://tiles.example.org:8443")
        for bad in ["https://tile.example.org/{z}/{x}.png", "ftp://tile.example.org/{z}/{x}/{y}.png", "/{z}/{x}/{y}.png",
                    "https://tile.example.org/{z}/{x}/{y}.png' 'unsafe-inline", "https://tile.example.org/{s}/{z}/{x}/{y}.png"] {
            #expect(throws: ServerError.self, "\(bad)") { try DashboardPage.checkedTiles(bad) }
            #expect(DashboardPage.tileSource(bad) == nil)
        }
        #expect(DashboardPage.contentSecurityPolicy(tiles: nil).contains("img-src 'none';"))
        #expect(DashboardPage.page(tiles: #"https://x.org/{z}/{x}/{y}.png?a="b"&c"#)
            .contains(#"content="https://x.org/{z}/{x}/{y}.png?a=&quot;b&quot;&amp;c""#))
        // The tiles' credit is text in an attribute (the page escapes it again for Leaflet), and only with tiles.
        #expect(DashboardPage.page(tiles: Self.tiles, attribution: #"© <b>"x"</b>"#)
            .contains(#"<meta name="waymark-tiles-attribution" content="© &lt;b&gt;&quot;x&quot;&lt;/b&gt;">"#))
        #expect(DashboardPage.page(tiles: nil, attribution: "© x").contains(#"<meta name="waymark-tiles-attribution" content="">"#))
    }

    /// The value of `name` in the first element whose text starts with `opening`.
    static func attribute(_ name: String, of opening: String, in dom: String) -> Substring? {
        guard let start = dom.range(of: opening) else { return nil }
        let element = dom[start.lowerBound...].prefix { $0 != ">" }
        return element.range(of: #"\#(name)=""#).map { element[$0.upperBound...].prefix { $0 != "\"" } }
    }
}
