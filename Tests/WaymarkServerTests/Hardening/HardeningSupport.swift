import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import WaymarkServer

/// A server on a real 127.0.0.1 socket with the production HTTP pipeline (``TrackingServer/httpServer``:
/// connection cap and timeouts), for the hardening tests that need real connections.
enum HardenedServer {
    static func run<T: Sendable>(_ kind: StoreKind = .sqlite, configure: @Sendable (inout ServerConfiguration) -> Void = { _ in },
                                 feed: LiveFeed? = nil,
                                 _ body: @Sendable (TestServer, Int, ServerMetrics) async throws -> T) async throws -> T {
        try await kind.withStore { store in
            var configuration = ServerConfiguration(adminTokenDigest: TokenHasher.digest(TestServer.adminToken))
            configuration.clock = { TestServer.now }
            configure(&configuration)
            let (device, token) = try await DeviceRegistry.register(name: "phone", in: store, at: TestServer.now)
            let metrics = ServerMetrics()
            let app = Application(router: TrackingServer.makeRouter(configuration: configuration, store: store, metrics: metrics,
                                                                                feed: feed),
                                  server: TrackingServer.httpServer(configuration: configuration, metrics: metrics),
                                  configuration: .init(address: .hostname("127.0.0.1", port: 0)))
            return try await app.test(.live) { client in
                let server = TestServer(store: store, client: client, device: device, deviceToken: token)
                return try await body(server, try #require(client.port), metrics)
            }
        }
    }
}

/// Bodies from the security probe (shared/research/security-probe.md), scaled where a test needs less.
enum ProbeBodies {
    /// `{"locations":[0,0,…]}` with `count` entries (H1).
    static func zeros(_ count: Int) -> String {
        "{\"locations\":[" + Array(repeating: "0", count: count).joined(separator: ",") + "]}"
    }

    /// `{"locations":[{},{},…]}` with `count` entries (H1).
    static func emptyFeatures(_ count: Int) -> String {
        "{\"locations\":[" + Array(repeating: "{}", count: count).joined(separator: ",") + "]}"
    }

    /// A native batch of one valid point (at `minute` after the test clock's day start) and `invalid` bad ones.
    static func mixed(valid minute: Int, invalid: Int) -> String {
        let time = TimestampParser.format(TestServer.now.addingTimeInterval(Double(-3600 + minute * 60)))
        let good = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[14.5,46.05]},"properties":{"timestamp":"\#(time)"}}"#
        let bad = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[14.5,95]},"properties":{"timestamp":"\#(time)"}}"#
        return "{\"locations\":[" + ([good] + Array(repeating: bad, count: invalid)).joined(separator: ",") + "]}"
    }

    /// One native point with `activity`, at `second` after an hour before the test clock.
    static func point(activity: String, second: Int = 0) -> String {
        let time = TimestampParser.format(TestServer.now.addingTimeInterval(Double(-3600 + second)))
        let escaped = String(data: try! JSONSerialization.data(withJSONObject: [activity], options: []), encoding: .utf8)!
        return #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[14.5,46.05]},"properties":{"timestamp":"\#(time)","activity":\#(escaped.dropFirst().dropLast())}}]}"#
    }

    /// `"a"` followed by `count` combining acute accents: one grapheme cluster of `2 × count + 1` bytes (M1).
    static func oneCluster(_ count: Int) -> String { "a" + String(repeating: "\u{301}", count: count) }
}
