import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkServer

@Suite("Fence engine")
struct FenceEngineTests {
    static let t0 = Date(timeIntervalSince1970: 1_750_000_000)
    static let center = Coordinate(uncheckedLatitude: 46.05, longitude: 14.5)

    static func at(_ second: Double, _ lat: Double, _ lon: Double) -> Position {
        Position(deviceID: "d", fix: Fix(coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon),
                                          timestamp: t0.addingTimeInterval(second)))
    }

    static let circle = ServerFence(id: "c", name: "circle", shape: .circle(center: center, radiusMeters: 100), dwellSeconds: 60)

    @Test("enters and exits a circle on consecutive points")
    func enterExit() {
        var state = DeviceFenceState()
        let engine = FenceEngine(fences: [Self.circle])
        let events = engine.evaluate([Self.at(0, 46.06, 14.5), Self.at(10, 46.0501, 14.5), Self.at(20, 46.06, 14.5)], state: &state)
        #expect(events.map(\.kind) == [.enter, .exit])
        #expect(events.map(\.timestamp) == [Self.t0.addingTimeInterval(10), Self.t0.addingTimeInterval(20)])
        #expect(state.inside.isEmpty)
    }

    @Test("a jump across a circle between two points enters and exits at interpolated times")
    func jumpAcrossCircle() throws {
        var state = DeviceFenceState()
        // 0.01° of latitude ≈ 1112 m each side of the centre; the 200 m diameter is crossed mid-way.
        let events = FenceEngine(fences: [Self.circle])
            .evaluate([Self.at(0, 46.04, 14.5), Self.at(100, 46.06, 14.5)], state: &state)
        #expect(events.map(\.kind) == [.enter, .exit])
        let enter = try #require(events.first).timestamp.timeIntervalSince(Self.t0)
        let exit = try #require(events.last).timestamp.timeIntervalSince(Self.t0)
        // 100 m of 2224 m at constant speed: about 4.5 s before and after the midpoint.
        #expect(abs(enter - 45.5) < 0.2 && abs(exit - 54.5) < 0.2)
        #expect(state.inside.isEmpty)
    }

    @Test("a jump across a polygon (and across the antimeridian) still crosses it")
    func jumpAcrossPolygon() throws {
        let square = try Polygon(exterior: [
            Coordinate(latitude: -1, longitude: 179), Coordinate(latitude: -1, longitude: -179),
            Coordinate(latitude: 1, longitude: -179), Coordinate(latitude: 1, longitude: 179),
        ])
        let engine = FenceEngine(fences: [ServerFence(id: "p", name: "dateline", shape: .polygon(square))])
        var state = DeviceFenceState()
        // 4° of longitude (445 km) in 4,000 s: a plane's speed, so a segment (faster would be a gap).
        let events = engine.evaluate([Self.at(0, 0, 178), Self.at(4_000, 0, -178)], state: &state)
        #expect(events.map(\.kind) == [.enter, .exit])
        #expect(events.map { $0.timestamp.timeIntervalSince(Self.t0) } == [1_000, 3_000])
        var stay = DeviceFenceState()
        #expect(engine.evaluate([Self.at(0, 0, 178), Self.at(4_000, 0.5, 179.9)], state: &stay).map(\.kind) == [.enter])
    }

    @Test("out-of-order points give the same events as ordered ones; older late points are ignored")
    func outOfOrder() {
        let points = [Self.at(0, 46.06, 14.5), Self.at(10, 46.0501, 14.5), Self.at(20, 46.06, 14.5), Self.at(30, 46.05, 14.5)]
        let engine = FenceEngine(fences: [Self.circle])
        var ordered = DeviceFenceState(), shuffled = DeviceFenceState()
        let a = engine.evaluate(points, state: &ordered)
        let b = engine.evaluate([points[2], points[0], points[3], points[1]], state: &shuffled)
        #expect(a == b && ordered == shuffled)
        #expect(engine.evaluate([Self.at(5, 46.0, 14.0)], state: &shuffled).isEmpty)
    }

    @Test("emits dwell once per stay after the fence's dwell time")
    func dwell() {
        var state = DeviceFenceState()
        let engine = FenceEngine(fences: [Self.circle])
        let inside = (0...5).map { Self.at(Double($0) * 20, 46.05, 14.5) }  // 0 … 100 s inside
        let kinds = engine.evaluate(inside, state: &state).map(\.kind)
        #expect(kinds == [.enter, .dwell])
        let again = engine.evaluate([Self.at(200, 46.07, 14.5), Self.at(210, 46.05, 14.5), Self.at(290, 46.05, 14.5)], state: &state)
        #expect(again.map(\.kind) == [.exit, .enter, .dwell])
    }

    @Test("the spatial index finds exactly what checking every fence finds", arguments: [7, 11])
    func indexMatchesBruteForce(seed: Int) {
        var rng = SplitMix64(seed: UInt64(seed))
        let fences = (0..<1500).map { i -> ServerFence in
            let c = Coordinate(uncheckedLatitude: Double.random(in: 45.9...46.2, using: &rng),
                               longitude: Double.random(in: 14.3...14.7, using: &rng))
            return ServerFence(id: "f\(i)", name: "", shape: .circle(center: c, radiusMeters: Double.random(in: 20...3000, using: &rng)))
        }
        var walk: [Position] = []
        var lat = 46.05, lon = 14.5
        for s in 0..<250 {
            lat += Double.random(in: -0.004...0.004, using: &rng)
            lon += Double.random(in: -0.004...0.004, using: &rng)
            walk.append(Self.at(Double(s) * 5, lat, lon))
        }
        var indexed = DeviceFenceState()
        let events = FenceEngine(fences: fences).evaluate(walk, state: &indexed)
        // Reference: every fence checked on every segment, no index.
        var expected: [ServerFenceEvent] = []
        for fence in fences {
            var state = DeviceFenceState()
            expected += FenceEngine(fences: [fence]).evaluate(walk, state: &state)
        }
        let key = { (e: ServerFenceEvent) in "\(e.timestamp.timeIntervalSince1970)|\(e.fenceID)|\(e.kind)" }
        #expect(!events.isEmpty)
        #expect(events.map(key).sorted() == expected.map(key).sorted())
    }
}
