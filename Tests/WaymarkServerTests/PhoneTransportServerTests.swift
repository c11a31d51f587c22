import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import WaymarkGeo
import WaymarkTransport
@testable import WaymarkServer

/// The phone's upload path against the real server (issue #13, item 6): `URLSessionUploadTransport`
/// (WaymarkTransport, which compiles for iOS and holds the request and reply handling the
/// background transport shares) posts the native batch format to `waymark serve`'s router on a
/// socket. The rule the queue relies on: a point leaves the phone only after an acknowledgement,
/// and resending an acknowledged batch stores nothing twice.
@Suite("The phone's URLSession transport against the real server")
struct PhoneTransportServerTests {
    static func fixes(_ count: Int) -> [Fix] {
        (0..<count).map { i in
            Fix(coordinate: Coordinate(uncheckedLatitude: 46.05 + Double(i) * 1e-4, longitude: 14.5), altitude: 300,
                horizontalAccuracy: 5, speed: 5, course: 0, timestamp: TestServer.now.addingTimeInterval(Double(i - count)),
                source: .gnss)
        }
    }

    @Test("a batch is acknowledged and stored; the same key again is acknowledged without a second copy; a wrong token is refused")
    func uploads() async throws {
        try await LiveStreamTests.live(.sqlite) { server, port in
            let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
            let transport = try URLSessionUploadTransport(server: url, timeout: .seconds(60))
            let body = NativeBatchFormat().body(for: Self.fixes(5))
            let request = UploadRequest(key: UUID().uuidString, body: body, token: server.deviceToken)

            let first = await transport.send(request)
            #expect(first.isAcknowledgement, "\(first)")
            let stored = try await server.storedPositions()
            #expect(stored.count == 5)
            #expect(stored.map(\.fix.timestamp) == Self.fixes(5).map(\.timestamp))

            let again = await transport.send(request)
            #expect(again.isAcknowledgement, "\(again)")
            #expect(try await server.storedPositions().count == 5, "the resend stored nothing twice")

            let refused = await transport.send(UploadRequest(key: UUID().uuidString, body: body, token: "wmd_not-a-token"))
            guard case .status(401, _) = refused else { Issue.record("expected 401, got \(refused)"); return }
            #expect(!refused.isAcknowledgement)
        }
    }
}
