import Foundation
import HTTPTypes
import NIOCore
import Testing
import WaymarkEngine
import WaymarkGeo
import WaymarkServerTesting
@testable import WaymarkSync

/// The phone's copy of the server's fences (issue #31 item 3): fetched page by page from Waymark's own
/// router, conditionally (ETag), kept in the store for offline starts, re-checked at launch, when old
/// and when the phone moved far.
@Suite("FenceSync: the server's fences on the phone")
struct FenceSyncTests {
    /// Forwards `GET /api/fences` to the in-process router and counts requests and bytes.
    final class RouterFences: FenceListTransport, @unchecked Sendable {
        let server: TestTrackingServer
        let lock = NSLock()
        var requests = 0, bodyBytes = 0
        var offline = false

        init(server: TestTrackingServer) { self.server = server }

        func fetchFences(_ request: FenceListRequest) async -> FenceListResponse {
            if lock.withLock({ offline }) { return .failed("offline") }
            var headers = HTTPFields()
            if let tag = request.ifNoneMatch { headers[.ifNoneMatch] = tag }
            do {
                let reply = try await server.send(.get, "/api/fences?" + request.query, token: request.token, headers: headers)
                let body = Array(buffer: reply.body)
                lock.withLock { requests += 1; bodyBytes += body.count }
                return FenceListResponse(status: Int(reply.status.code), etag: reply.headers[.eTag], body: body)
            } catch {
                return .failed("\(error)")
            }
        }
    }

    static let t0 = Date(timeIntervalSince1970: 1_750_000_000)
    static let home = Coordinate(uncheckedLatitude: 46.05, longitude: 14.5)

    static func postFences(_ server: TestTrackingServer, count: Int, from first: Int = 0) async throws {
        let features = (first..<first + count).map { n in
            #"{"type":"Feature","id":"f\#(String(format: "%04d", n))","geometry":{"type":"Point","coordinates":[14.5,\#(46.0 + Double(n) * 0.001)]},"properties":{"name":"Fence \#(n)","radiusMeters":120\#(n % 3 == 0 ? #","dwellSeconds":300"# : "")}}"#
        }
        let reply = try await server.send(.post, "/api/fences", token: TestTrackingServer.adminToken,
                                          body: #"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#)
        #expect(reply.status == .created)
    }

    @Test("fetches every page, stores the copy, then costs one bodiless 304 while nothing changed")
    func fetchAndRevalidate() async throws {
        try await TestTrackingServer.run { server in
            try await Self.postFences(server, count: 25)
            let polygon = #"{"type":"Feature","id":"yard","geometry":{"type":"Polygon","coordinates":[[[14.5,46.1],[14.51,46.1],[14.51,46.11],[14.5,46.1]]]},"properties":{"name":"Yard"}}"#
            _ = try await server.send(.post, "/api/fences", token: TestTrackingServer.adminToken, body: polygon)
            let store = try RideStore.inMemory()
            let transport = RouterFences(server: server)
            let sync = FenceSync(store: store, transport: transport, credentials: DeviceCredentials(token: server.deviceToken),
                                 configuration: FenceSync.Configuration(pageLimit: 10))
            guard case .updated(let fences) = await sync.refresh(at: Self.t0, position: Self.home) else {
                Issue.record("the first fetch did not update the copy")
                return
            }
            #expect(fences.count == 26 && transport.requests == 3, "26 fences in pages of 10")
            let circle = try #require(fences.first { $0.id == "f0003" })
            #expect(circle.shape == .circle(center: Coordinate(uncheckedLatitude: 46.003, longitude: 14.5), radiusMeters: 120))
            #expect(circle.triggers.contains(.dwell) && circle.loiteringDelay == 300 && circle.userData["name"] == "Fence 3")
            let yard = try #require(fences.first { $0.id == "yard" })
            if case .polygon(let exterior, let holes) = yard.shape {
                #expect(exterior.count == 3 && holes.isEmpty, "the closing vertex is dropped")
            } else {
                Issue.record("the yard is not a polygon")
            }
            #expect(try await sync.storedFences() == fences)

            let before = (transport.requests, transport.bodyBytes)
            #expect(await sync.refresh(at: Self.t0.addingTimeInterval(60), position: nil) == .unchanged)
            #expect(transport.requests == before.0 + 1 && transport.bodyBytes == before.1, "one 304, no body")

            try await Self.postFences(server, count: 1, from: 100)
            guard case .updated(let more)? = await sync.refreshIfDue(at: Self.t0.addingTimeInterval(7 * 3600), position: nil) else {
                Issue.record("a copy older than the refresh interval was not re-checked")
                return
            }
            #expect(more.count == 27)
        }
    }

    @Test("a relaunched phone works from its stored copy offline, and re-checks at launch once online")
    func offlineFromCopy() async throws {
        try await TestTrackingServer.run { server in
            try await Self.postFences(server, count: 3)
            let path = TestFixes.temporaryStorePath()
            defer { TestFixes.removeStore(at: path) }
            let transport = RouterFences(server: server)
            let credentials = DeviceCredentials(token: server.deviceToken)
            let first = FenceSync(store: try RideStore(path: path), transport: transport, credentials: credentials)
            _ = await first.refresh(at: Self.t0, position: Self.home)

            transport.offline = true
            let next = FenceSync(store: try RideStore(path: path), transport: transport, credentials: credentials)
            #expect(try await next.storedFences().map(\.id) == ["f0000", "f0001", "f0002"])
            guard case .failed? = await next.handle(.launched(reason: .user), at: Self.t0.addingTimeInterval(30)) else {
                Issue.record("a launch did not try to re-check the copy")
                return
            }
            #expect(try await next.storedFences().count == 3, "a failed fetch keeps the copy")
            #expect(await next.handle(.willEnterForeground, at: Self.t0.addingTimeInterval(60)) == nil,
                    "no new try within the retry interval")
            transport.offline = false
            #expect(await next.handle(.networkReachability(online: true), at: Self.t0.addingTimeInterval(400)) == .unchanged)
        }
    }

    @Test("moving far from where the copy was fetched re-checks it; moving a little does not")
    func refetchOnMovement() async throws {
        try await TestTrackingServer.run { server in
            try await Self.postFences(server, count: 2)
            let transport = RouterFences(server: server)
            let sync = FenceSync(store: try RideStore.inMemory(), transport: transport,
                                 credentials: DeviceCredentials(token: server.deviceToken))
            _ = await sync.refresh(at: Self.t0, position: Self.home)
            let near = Fix(coordinate: Coordinate(uncheckedLatitude: 46.06, longitude: 14.5), timestamp: Self.t0.addingTimeInterval(600))
            #expect(await sync.handle(.locations([near]), at: Self.t0.addingTimeInterval(600)) == nil, "1.1 km is not far")
            let far = Fix(coordinate: Coordinate(uncheckedLatitude: 46.1, longitude: 14.5), timestamp: Self.t0.addingTimeInterval(900))
            #expect(await sync.handle(.significantChange(far), at: Self.t0.addingTimeInterval(900)) == .unchanged, "5.6 km is")
            #expect(transport.requests == 2)
        }
    }

    @Test("a page that is not a fence collection is an error naming the feature; the copy stays")
    func badPages() throws {
        #expect(throws: SyncError.self) { try FenceFeatures.page(Array(#"{"type":"Feature"}"#.utf8)) }
        do {
            _ = try FenceFeatures.page(Array(#"{"features":[{"id":"a","geometry":{"type":"Point","coordinates":[14.5,46]},"properties":{}}]}"#.utf8))
            Issue.record("a circle without a radius was read")
        } catch let error as SyncError {
            #expect("\(error)".contains("fence feature 0: a: a circle needs [longitude, latitude] and a positive radiusMeters"))
        }
    }
}
