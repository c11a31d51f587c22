import Foundation
import HTTPTypes
import NIOCore
import HummingbirdTesting
import Testing
import WaymarkGeo
@testable import WaymarkServer

/// H1, H2 and M2 of the second probe (shared/research/security-probe-2.md): the cost of evaluating a point
/// is bounded by the fences near its segment, an impossible jump is a gap, the events one request may cause
/// are capped, and polygons are capped and indexed. Each test names what the server did before.
@Suite("Hardening 2: fence evaluation cost and event caps")
struct FenceCostTests {
    static let t0 = TestServer.now.addingTimeInterval(-3 * 86_400)

    static func at(_ second: Double, _ lat: Double, _ lon: Double) -> Position {
        Position(deviceID: "d", fix: Fix(coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon),
                                          timestamp: t0.addingTimeInterval(second)))
    }

    static func feature(_ lon: Double, _ lat: Double, _ time: Date) -> String {
        #"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]},"properties":{"timestamp":"\#(TimestampParser.format(time))"}}"#
    }

    @Test("H1: a segment 2° long costs a few index lookups, not one per grid cell of its box")
    func segmentCostIsBoundedByFences() {
        // Before: the box of (14, 46)–(15.98, 47.98) at 0.002° cells was walked cell by cell: 990 × 990
        // ≈ 980,000 dictionary probes per point (13 ms of CPU each in the probe's release build).
        let depot = ServerFence(id: "depot", name: "", shape: .circle(center: Coordinate(uncheckedLatitude: 46.5, longitude: 14.5),
                                                                      radiusMeters: 100))
        let grid = ServerFenceGrid(fences: [depot])
        var result: [Int32] = []
        // The diagonal passes 46.5° at 14.5°, through the depot.
        let work = grid.candidates(Coordinate(uncheckedLatitude: 46, longitude: 14), Coordinate(uncheckedLatitude: 47.98, longitude: 15.98),
                                   into: &result)
        #expect(result == [0])
        #expect(work <= 6, "examined \(work) rows and cells")
        // One that passes 46.5° at 14.1° finds nothing, at the same small cost.
        let miss = grid.candidates(Coordinate(uncheckedLatitude: 46, longitude: 14), Coordinate(uncheckedLatitude: 47, longitude: 14.2),
                                   into: &result)
        #expect(result.isEmpty)
        #expect(miss <= 6, "examined \(miss) rows and cells")
    }

    @Test("H1: a jump faster than any vehicle is a gap (no crossing); the same jump at a plausible speed crosses")
    func implausibleJumpIsAGap() {
        let circle = ServerFence(id: "c", name: "", shape: .circle(center: Coordinate(uncheckedLatitude: 46.5, longitude: 14.99),
                                                                   radiusMeters: 500))
        let engine = FenceEngine(fences: [circle])
        // 2° of longitude (about 153 km) in one second: before, this emitted an interpolated enter and exit.
        var fast = DeviceFenceState()
        #expect(engine.evaluate([Self.at(0, 46.5, 14), Self.at(1, 46.5, 15.98)], state: &fast).isEmpty)
        #expect(fast.lastCoordinate == Coordinate(uncheckedLatitude: 46.5, longitude: 15.98))
        // The same step in an hour (42 m/s) is a real segment through the fence.
        var slow = DeviceFenceState()
        #expect(engine.evaluate([Self.at(0, 46.5, 14), Self.at(3_600, 46.5, 15.98)], state: &slow).map(\.kind) == [.enter, .exit])
        // Landing inside after a jump is still an enter, at the point.
        var landed = DeviceFenceState()
        #expect(engine.evaluate([Self.at(0, 46.5, 14), Self.at(1, 46.5, 14.99)], state: &landed).map(\.kind) == [.enter])
        #expect(FenceEngine.isPlausibleStep(from: Coordinate(uncheckedLatitude: 0, longitude: 0), at: Self.t0,
                                            to: Coordinate(uncheckedLatitude: 0, longitude: 0.008), at: Self.t0))   // 890 m of jitter
    }

    @Test("H1: a 3,000-point zig-zag between places 2° apart is stored quickly and causes no event", arguments: StoreKind.available)
    func zigZagUpload(kind: StoreKind) async throws {
        // Before: 45.8 s for this body in the probe's release build, holding the write lock throughout.
        // The body (~400 KB) would be a heavy request, run at `nice` 10 behind every other test of a full run;
        // this test times the fence evaluation, so it runs on the shared threads like a small request.
        try await TestServer.run(kind, configure: { $0.heavyDecodeThresholdBytes = 16 << 20 }) { server in
            let fence = try await server.send(.post, "/api/fences", token: TestServer.adminToken,
                                              body: #"{"name":"depot","lat":46.5,"lon":14.5,"radius":100}"#)
            #expect(fence.status == .created)
            let points = (0..<3_000).map { i in
                i % 2 == 0 ? Self.feature(14.0, 46.0, Self.t0.addingTimeInterval(Double(i)))
                           : Self.feature(15.98, 47.98, Self.t0.addingTimeInterval(Double(i)))
            }
            let started = ContinuousClock.now
            let reply = try await server.send(.post, "/api/ingest", token: server.deviceToken,
                                              body: #"{"locations":[\#(points.joined(separator: ","))]}"#)
            let elapsed = ContinuousClock.now - started
            #expect(reply.status == .ok)
            let json = try reply.json()
            #expect(json["stored"] as? Int == 3_000)
            #expect((json["events"] as? [Any])?.isEmpty == true)
            // Generous for a debug build on a busy machine; the old scan took minutes here.
            #expect(elapsed < .seconds(10), "took \(elapsed)")
        }
    }

    /// 50 circles of 60 m along latitude 46.5, 0.002° apart from 14.0° east, and a body of `count` points that
    /// zig-zags across all of them at a plausible speed (10 minutes per 78 km leg).
    static func fenceRow(_ server: TestServer) async throws {
        let features = (0..<50).map { k in
            #"{"type":"Feature","id":"f_\#(k)","properties":{"name":"f\#(k)","radiusMeters":60},"geometry":{"type":"Point","coordinates":[\#(14.0 + Double(k) * 0.002),46.5]}}"#
        }
        let reply = try await server.send(.post, "/api/fences", token: TestServer.adminToken,
                                          body: #"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#)
        #expect(reply.status == .created)
    }

    static func zigZag(_ count: Int) -> String {
        let points = (0..<count).map { i in Self.feature(i % 2 == 0 ? 13.99 : 14.11, 46.5, Self.t0.addingTimeInterval(Double(i) * 600)) }
        return #"{"locations":[\#(points.joined(separator: ","))]}"#
    }

    @Test("H2: a request past the fence-event limit is refused whole with 413 naming it; nothing is stored", arguments: StoreKind.available)
    func eventsPerRequest(kind: StoreKind) async throws {
        // Before: no cap: 1,000 such points across 500 fences gave 999,000 events, 3 million outbox rows and a 150 MB reply.
        try await TestServer.run(kind, configure: { $0.maxFenceEventsPerRequest = 250 }) { server in
            try await Self.fenceRow(server)
            let refused = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: Self.zigZag(4))
            #expect(refused.status == .contentTooLarge)
            #expect(refused.text.contains("more than 250 fence events, the limit per request"), "\(refused.text)")
            #expect(try await server.storedPositions().isEmpty)
            #expect(try await server.store.fenceEvents(deviceID: nil, afterID: 0, limit: 10).isEmpty)
            // Three points (two legs of 100 events each) fit, and are stored with their events.
            let accepted = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: Self.zigZag(3))
            #expect(accepted.status == .ok)
            #expect((try accepted.json()["events"] as? [Any])?.count == 200)
        }
    }

    @Test("H2: one point causing more events than the per-point limit is refused with 413 naming it", arguments: StoreKind.available)
    func eventsPerPoint(kind: StoreKind) async throws {
        try await TestServer.run(kind, configure: { $0.maxFenceEventsPerPoint = 60 }) { server in
            try await Self.fenceRow(server)
            let refused = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: Self.zigZag(2))
            #expect(refused.status == .contentTooLarge)
            #expect(refused.text.contains("causes 100 fence events, more than the limit of 60 per point"), "\(refused.text)")
            #expect(try await server.storedPositions().isEmpty)
        }
    }

    @Test("H2: the default limits hold 10,000 events per request and 200 per point")
    func defaults() {
        let configuration = ServerConfiguration(adminTokenDigest: "x")
        #expect(configuration.maxFenceEventsPerRequest == 10_000)
        #expect(configuration.maxFenceEventsPerPoint == 200)
    }
}
