import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import WaymarkServer

/// M4 of the security probe: connections that send nothing, trickle headers, or never finish a body are
/// closed after the configured timeouts, and past the connection cap new connections get 503.
@Suite("Hardening: connection timeouts and cap")
struct ConnectionGuardTests {
    @Test("M4: a trickled header, an idle connection and an unfinished body are all closed within the timeouts")
    func timeouts() async throws {
        // Before: no connection was ever closed (a header held for 240 s stayed open).
        try await HardenedServer.run(configure: { $0.headerTimeoutSeconds = 0.5; $0.bodyTimeoutSeconds = 0.5 }) { server, port, metrics in
            let idle = try RawConnection(port: port)
            let trickle = try RawConnection(port: port)
            trickle.send("GET /metrics HTTP/1.1\r\nHost: x\r\n")          // never finished
            let body = try RawConnection(port: port)
            body.send("POST /api/ingest HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(server.deviceToken)\r\n"
                      + "Content-Length: 1000\r\n\r\n{\"locations\":[")   // 986 bytes never follow
            // A 0.5 s timeout, checked within 30 s so that a loaded CI machine cannot make it flaky; before the
            // fix none of these connections was ever closed.
            async let a = idle.readUntilClosed(seconds: 30)
            async let b = trickle.readUntilClosed(seconds: 30)
            async let c = body.readUntilClosed(seconds: 30)
            let (first, second, third) = await (a, b, c)
            for (name, result) in [("idle", first), ("trickled header", second), ("unfinished body", third)] {
                #expect(result.closed, "\(name) still open after \(result.elapsed) s")
                #expect(result.elapsed < 30, "\(name) closed after \(result.elapsed) s")
            }
            #expect(first.text.hasPrefix("HTTP/1.1 408"))
            #expect(metrics.exposition().contains(#"waymark_refused_total{reason="timeout"}"#))
        }
    }

    @Test("M4: a kept-alive connection serves requests, then closes when idle past the header timeout")
    func keepAliveThenIdle() async throws {
        try await HardenedServer.run(configure: { $0.headerTimeoutSeconds = 0.5 }) { _, port, _ in
            let connection = try RawConnection(port: port)
            connection.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            let result = await connection.readUntilClosed(seconds: 30)
            #expect(result.text.hasPrefix("HTTP/1.1 200"))
            #expect(result.closed && result.elapsed < 30)
        }
    }

    @Test("M4: past maxConnections a new connection gets 503 with Retry-After; a freed place is reused")
    func connectionCap() async throws {
        try await HardenedServer.run(configure: { $0.maxConnections = 2 }) { _, port, metrics in
            let first = try RawConnection(port: port)
            let second = try RawConnection(port: port)
            first.send("GET /metrics HTTP/1.1\r\nHost: x\r\n")   // both held open, mid-header
            second.send("GET /metrics HTTP/1.1\r\nHost: x\r\n")
            try await Task.sleep(for: .milliseconds(200))
            let third = try RawConnection(port: port)
            let refused = await third.readUntilClosed(seconds: 30)
            #expect(refused.text.hasPrefix("HTTP/1.1 503"), "\(refused.text.prefix(60))")
            #expect(refused.text.lowercased().contains("retry-after: 1"))
            #expect(refused.closed)
            #expect(metrics.exposition().contains(#"reason="connections""#))
            first.shutdown()                                        // a place is freed…
            // …and taken by a later connection, once the server has seen the close (polled: a loaded machine
            // may take a while; a leaked place would answer 503 on every attempt).
            var served = ""
            for _ in 0..<100 where !served.hasPrefix("HTTP/1.1 200") {
                let next = try RawConnection(port: port)
                next.send("GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                served = await next.readUntilClosed(seconds: 30).text
                if !served.hasPrefix("HTTP/1.1 200") { try await Task.sleep(for: .milliseconds(200)) }
            }
            #expect(served.hasPrefix("HTTP/1.1 200"), "\(served.prefix(60))")
            withExtendedLifetime(second) {}                         // held open throughout
        }
    }
}
