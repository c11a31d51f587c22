import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import WaymarkServer

@Suite("Authentication and authorisation")
struct AuthTests {
    static let point = #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[14.5,46.05]},"properties":{"timestamp":"2025-06-15T10:00:00Z"}}]}"#

    @Test("a device token writes only to its own device and reads only its own data", arguments: StoreKind.available)
    func deviceScope(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (other, otherToken) = try await DeviceRegistry.register(name: "other", in: server.store, at: TestServer.now)
            #expect(try await server.send(.post, "/api/ingest", token: otherToken, body: Self.point).status == .ok)
            // The point went to the token's device, not to the test device.
            #expect(try await server.storedPositions().isEmpty)
            #expect(try await server.store.lastPosition(deviceID: other.id) != nil)
            let own = try await server.send(.get, "/api/devices/\(other.id)/last", token: otherToken)
            #expect(own.status == .ok)
            let foreign = try await server.send(.get, "/api/devices/\(server.device.id)/positions", token: otherToken)
            #expect(foreign.status == .forbidden)
            let list = try await server.send(.get, "/api/devices", token: otherToken)
            #expect((try list.json()["devices"] as? [[String: Any]])?.map { $0["id"] as? String } == [other.id])
            let gpx = try await server.send(.post, "/api/devices/\(server.device.id)/gpx", token: otherToken, body: "<gpx/>")
            #expect(gpx.status == .forbidden)
        }
    }

    @Test("the admin token reads everything, manages devices, and cannot upload points", arguments: StoreKind.available)
    func admin(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let created = try await server.send(.post, "/api/devices", token: TestServer.adminToken, body: #"{"name":"Bike"}"#)
            #expect(created.status == .created)
            let reply = try created.json()
            let id = try #require(reply["id"] as? String)
            let token = try #require(reply["token"] as? String)
            #expect(try await server.send(.post, "/api/ingest", token: token, body: Self.point).status == .ok)
            let all = try await server.send(.get, "/api/devices", token: TestServer.adminToken)
            #expect((try all.json()["devices"] as? [[String: Any]])?.count == 2)
            #expect(try await server.send(.get, "/api/devices/\(id)/last", token: TestServer.adminToken).status == .ok)
            #expect(try await server.send(.post, "/api/ingest", token: TestServer.adminToken, body: Self.point).status == .forbidden)
            // A device cannot create devices.
            let byDevice = try await server.send(.post, "/api/devices", token: token, body: #"{"name":"x"}"#)
            #expect(byDevice.status == .forbidden)
            // Revoking stops the token at once.
            #expect(try await server.send(.delete, "/api/devices/\(id)", token: TestServer.adminToken).status == .noContent)
            #expect(try await server.send(.post, "/api/ingest", token: token, body: Self.point).status == .unauthorized)
            #expect(try await server.send(.delete, "/api/devices/d_none", token: TestServer.adminToken).status == .notFound)
        }
    }

    @Test("a device revoked in the database by another process cannot upload again, though its token was cached",
          arguments: StoreKind.available)
    func revokedBehindTheServersBack(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let ownTracks = #"{"_type":"location","lat":46.05,"lon":14.5,"tst":1750000000}"#
            let status = #"{"_type":"status","android":{"hib":1}}"#
            #expect(try await server.send(.post, "/api/ingest", token: server.deviceToken, body: Self.point).status == .ok)
            // As `waymark device revoke` does from another process: straight in the store, the server not told.
            #expect(try await server.store.revokeDevice(id: server.device.id, at: TestServer.now))
            // The cached token passes authentication; the store's transaction refuses the write.
            #expect(try await server.send(.post, "/pub", token: server.deviceToken, body: ownTracks).status == .unauthorized)
            #expect(try await server.send(.post, "/api/ingest", token: server.deviceToken, body: Self.point).status == .unauthorized)
            #expect(try await server.storedPositions().count == 1)
            // A message with nothing to store, from a cached token, is checked against the store too.
            let (other, otherToken) = try await DeviceRegistry.register(name: "other", in: server.store, at: TestServer.now)
            #expect(try await server.send(.post, "/pub", token: otherToken, body: ownTracks).status == .ok)
            #expect(try await server.store.revokeDevice(id: other.id, at: TestServer.now))
            #expect(try await server.send(.post, "/pub", token: otherToken, body: status).status == .unauthorized)
        }
    }

    @Test("the upload token cache is bounded and forgets a device's digests")
    func uploadCacheBounds() {
        let cache = DeviceTokenCache(capacity: 3)
        let devices = (0..<5).map { DeviceRecord(id: "d_\($0)", name: "p\($0)", createdAt: TestServer.now) }
        for (i, device) in devices.enumerated() { cache.remember(device, digest: "digest\(i)") }
        #expect(cache.count == 3)
        #expect(cache.device(digest: "digest4") == devices[4])
        cache.remember(devices[4], digest: "second-token-of-4")
        cache.forget(deviceID: "d_4")
        #expect(cache.device(digest: "digest4") == nil && cache.device(digest: "second-token-of-4") == nil)
        #expect(cache.count <= 2)
    }

    @Test("requests without or with unknown credentials get 401", arguments: StoreKind.available)
    func anonymous(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let missing = try await server.send(.get, "/api/devices")
            #expect(missing.status == .unauthorized)
            let unknown = try await server.send(.get, "/api/devices/\(server.device.id)/last", token: "wmd_forged")
            #expect(unknown.status == .unauthorized)
            let viaQuery = try await server.send(.post, "/api/ingest?token=\(server.deviceToken)", body: Self.point)
            #expect(viaQuery.status == .ok)
        }
    }

    @Test("tokens are long, random, stored only as digests and compared by digest")
    func tokens() {
        let a = TokenHasher.makeToken(prefix: "wmd"), b = TokenHasher.makeToken(prefix: "wmd")
        #expect(a != b)
        #expect(a.hasPrefix("wmd_") && a.count == 4 + 43)
        #expect(TokenHasher.digest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(TokenHasher.matches(a, digest: TokenHasher.digest(a)))
        #expect(!TokenHasher.matches(b, digest: TokenHasher.digest(a)))
        #expect(!TokenHasher.constantTimeEquals([1, 2, 3], [1, 2]))
        #expect(TokenHasher.constantTimeEquals([1, 2, 3], [1, 2, 3]))
    }

    @Test("credentials are read from Bearer and Basic headers with optional whitespace around the value")
    func credentialWhitespace() throws {
        func credential(_ header: String) -> String? {
            var headers = HTTPFields()
            headers[.authorization] = header
            let request = Request(head: HTTPRequest(method: .post, scheme: "http", authority: "x", path: "/pub", headerFields: headers),
                                  body: RequestBody(buffer: ByteBuffer()))
            return Authenticator.credential(in: request)?.token
        }
        #expect(credential("Bearer wmd_abc") == "wmd_abc")
        #expect(credential("Bearer \t wmd_abc \t") == "wmd_abc")
        #expect(credential("bearer   ") == nil)  // no token at all
        let basic = Data("ana:wmd_secret".utf8).base64EncodedString()
        #expect(credential("Basic  \(basic)\t") == "wmd_secret")
        #expect(credential("Basic \(basic)x") == nil)
        #expect(Authenticator.trimmingOptionalWhitespace(" \ta b\t ") == "a b")
        #expect(Authenticator.trimmingOptionalWhitespace("\u{00A0}x") == "\u{00A0}x")
    }
}
