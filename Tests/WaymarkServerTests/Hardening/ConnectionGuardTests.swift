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
            // Connections with a complete exchange each (so the server has counted them), kept open, until
            // one is refused. The live test client keeps a connection of its own from some moment on, so
            // the refusal comes after one or two accepted connections.
            var open: [RawConnection] = []
            var refused: (text: String, closed: Bool, elapsed: Double)?
            while refused == nil, open.count < 3 {
                let connection = try RawConnection(port: port)
                connection.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
                let head = await connection.readUntilClosed(seconds: 30, orUntil: "\r\n\r\n")
                if head.text.hasPrefix("HTTP/1.1 200") {
                    open.append(connection)
                } else {
                    let rest = await connection.readUntilClosed(seconds: 30)
                    refused = (head.text + rest.text, head.closed || rest.closed, head.elapsed + rest.elapsed)
                }
            }
            let answer = try #require(refused, "no connection was refused after \(open.count)")
            #expect((1...2).contains(open.count), "accepted \(open.count) before the refusal")
            #expect(answer.text.hasPrefix("HTTP/1.1 503"), "\(answer.text.prefix(60))")
            #expect(answer.text.lowercased().contains("retry-after: 1"))
            #expect(answer.closed)
            #expect(metrics.exposition().contains(#"reason="connections""#))
            withExtendedLifetime(open) {}
        }
    }
}
