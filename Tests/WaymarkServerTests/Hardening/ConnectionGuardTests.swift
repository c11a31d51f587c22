import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import WaymarkServer

/// M4 of the security probe, on real sockets: the server's pipeline has the connection guard. The timeouts
/// and the cap themselves are checked to the nanosecond on virtual time in `ConnectionGuardTimingTests`;
/// these tests wait for no timeout to pass.
@Suite("Hardening: connection timeouts and cap")
struct ConnectionGuardTests {
    @Test("M4: the server closes a connection that sends nothing, with 408 (a zero header timeout fires at once)")
    func timeouts() async throws {
        // Before: no connection was ever closed (a header held for 240 s stayed open).
        try await HardenedServer.run(configure: { $0.headerTimeoutSeconds = 0 }) { _, port, metrics in
            let idle = try RawConnection(port: port)
            // The bound only keeps a broken build from hanging; the server answers at once.
            let result = await idle.readUntilClosed(seconds: 30)
            #expect(result.closed)
            #expect(result.text.hasPrefix("HTTP/1.1 408"), "\(result.text.prefix(60))")
            #expect(metrics.exposition().contains(#"waymark_refused_total{reason="timeout"}"#))
        }
    }

    @Test("M4: past maxConnections a new connection gets 503 with Retry-After")
    func connectionCap() async throws {
        try await HardenedServer.run(configure: { $0.maxConnections = 2 }) { _, port, metrics in
            let first = try RawConnection(port: port)
            let second = try RawConnection(port: port)
            // A complete exchange on each shows the server has counted both; they stay open (keep-alive).
            for connection in [first, second] {
                connection.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
                let head = await connection.readUntilClosed(seconds: 30, orUntil: "\r\n\r\n")
                #expect(head.text.hasPrefix("HTTP/1.1 200") && !head.closed)
            }
            let third = try RawConnection(port: port)
            let refused = await third.readUntilClosed(seconds: 30)
            #expect(refused.text.hasPrefix("HTTP/1.1 503"), "\(refused.text.prefix(60))")
            #expect(refused.text.lowercased().contains("retry-after: 1"))
            #expect(refused.closed)
            #expect(metrics.exposition().contains(#"reason="connections""#))
            withExtendedLifetime((first, second)) {}
        }
    }
}
