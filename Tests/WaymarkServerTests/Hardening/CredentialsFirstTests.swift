import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
@testable import WaymarkServer

/// H2 and I2 of the security probe: credentials are checked before any body is read; a body that carries
/// the credential is read only up to a small limit and only the credential is looked up before it is known.
@Suite("Hardening: credentials before the body")
struct CredentialsFirstTests {
    static let jsonHeaders: HTTPFields = [.contentType: "application/json"]

    static func traccar(_ tokenField: String) -> String {
        let time = TimestampParser.format(TestServer.now.addingTimeInterval(-60))
        return #"{"location":{"timestamp":"\#(time)","coords":{"latitude":46.05,"longitude":14.5}}\#(tokenField)}"#
    }

    @Test("H2: an anonymous JSON body over 1 MiB is refused with 413 before it is parsed")
    func anonymousLarge() async throws {
        // Before: a 10 MiB anonymous body was parsed whole (2 GB resident, 10 s) before the 401.
        try await TestServer.run(.sqlite) { server in
            let body = "{\"location\":[" + Array(repeating: "0", count: 600_000).joined(separator: ",") + "]}"
            let response = try await server.send(.post, "/", headers: Self.jsonHeaders, body: body)
            #expect(response.status == .contentTooLarge)
            #expect(response.text.contains("credentials"))
        }
    }

    @Test("H2: with an unknown device_id the body is not decoded: 401 even though the rest is not JSON")
    func onlyTheCredentialIsRead() async throws {
        // Before: 400 "not valid JSON" — the whole body was parsed before the token was looked at.
        try await TestServer.run(.sqlite) { server in
            let body = #"{"device_id":"wmd_nobody","location":[0,0,0,"#
            let response = try await server.send(.post, "/", headers: Self.jsonHeaders, body: body)
            #expect(response.status == .unauthorized)
        }
    }

    @Test("H2: a device_id after a large member is still found, and escaped text works")
    func scannerFindsTheMember() async throws {
        try await TestServer.run(.sqlite) { server in
            let padding = #""padding":{"a":[1,2,{"b":"x\"}y"}]},"#
            let body = Self.traccar("").replacingOccurrences(of: #"{"location""#, with: #"{\#(padding)"location""#)
                .dropLast() + #","device_id":"\#(server.deviceToken)"}"#
            let response = try await server.send(.post, "/", headers: Self.jsonHeaders, body: String(body))
            #expect(response.status == .ok, "\(response.text)")
            let escaped = server.deviceToken.replacingOccurrences(of: "_", with: "\\u005f")
            let second = Self.traccar(#","device_id":"\#(escaped)""#).replacingOccurrences(of: "-60", with: "-61")
            #expect(try await server.send(.post, "/", headers: Self.jsonHeaders, body: second).status == .ok)
        }
    }

    @Test("I2: ?id= on the Traccar JSON path identifies the device, as documented")
    func queryIDOnJSON() async throws {
        // Before: the query id was ignored on the JSON path (401 without a device_id in the body).
        try await TestServer.run(.sqlite) { server in
            let response = try await server.send(.post, "/?id=\(server.deviceToken)", headers: Self.jsonHeaders, body: Self.traccar(""))
            #expect(response.status == .ok, "\(response.text)")
            #expect(try await server.storedPositions().count == 1)
        }
    }

    @Test("H2: a form body of 300 fields gets 413; OsmAnd's fifteen are fine")
    func formFieldLimit() async throws {
        try await TestServer.run(.sqlite) { server in
            let form = "id=\(server.deviceToken)&lat=46&lon=14&" + (0..<300).map { "f\($0)=1" }.joined(separator: "&")
            let response = try await server.send(.post, "/", headers: [.contentType: "application/x-www-form-urlencoded"], body: form)
            #expect(response.status == .contentTooLarge)
        }
    }

    @Test("H2: a bad header token is refused before the body arrives (real socket, body never sent)")
    func refusedBeforeBody() async throws {
        // Before: the server waited for the 10 MiB body (and would parse it) before answering.
        try await HardenedServer.run { _, port, _ in
            for path in ["/", "/api/ingest", "/pub"] {
                let connection = try RawConnection(port: port)
                connection.send("POST \(path) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer wmd_wrong\r\n"
                                + "Content-Type: application/json\r\nContent-Length: 10485760\r\n\r\n{")
                // Generous for a loaded CI machine; before the fix no answer came at all (the server waited for the body).
                let (text, _, seconds) = await connection.readUntilClosed(seconds: 30, orUntil: "\r\n\r\n")
                #expect(text.hasPrefix("HTTP/1.1 401"), "\(path): \(text.prefix(80))")
                #expect(seconds < 30)
            }
        }
    }
}
