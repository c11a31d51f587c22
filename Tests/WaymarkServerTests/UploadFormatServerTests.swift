import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import WaymarkGeo
import WaymarkTransport
@testable import WaymarkServer

/// Each of the phone's upload formats (issue #32, item 2) end to end: the phone's own transport
/// (`URLSessionUploadTransport`, which a background upload shares its requests with) posts what
/// `UploadFormat` writes to `waymark serve` on a socket, at the route of that format, and the server's
/// decoder for it stores every point with its values, to the resolution the format carries. Every
/// request is then sent again, as the queue does after a lost reply: nothing is stored twice, by the
/// `Idempotency-Key` where the format sends one and by the point's time where it cannot. In both stores.
@Suite("The phone's upload formats against the real server")
struct UploadFormatServerTests {
    /// Fixes with every value known, 1.5 s apart, with milliseconds, ending before the server's clock.
    static let fixes: [Fix] = (0..<7).map { i in
        let d = Double(i)
        return Fix(coordinate: Coordinate(uncheckedLatitude: 46.0512345678 + d * 1.3e-4, longitude: 14.5098765432 - d * 7e-5),
                   altitude: 295.4 + d, horizontalAccuracy: 4.6 + d / 10, verticalAccuracy: 3.2, speed: 5.25 + d / 4,
                   course: 10.4 + d * 20, timestamp: TestServer.now.addingTimeInterval(-60 + d * 1.5 + 0.123), source: .gnss)
    }

    static let geoJSONTemplate = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[{{longitude}},{{latitude}}]},"#
        + #""properties":{"timestamp":"{{timestamp}}","horizontal_accuracy":{{horizontal_accuracy}},"#
        + #""vertical_accuracy":{{vertical_accuracy}},"altitude":{{altitude}},"speed":{{speed}},"course":{{course}}}}"#

    enum Case: String, CaseIterable, CustomTestStringConvertible {
        case native, owntracks, traccar, overland, template
        var testDescription: String { rawValue }

        func format() throws -> UploadFormat {
            switch self {
            case .native: .native(deviceID: "phone")
            case .owntracks: try .owntracks(user: "jane", device: "phone")
            case .traccar: .traccar()
            case .overland: .overland(deviceID: "phone")
            case .template: .template(try UploadTemplate(location: UploadFormatServerTests.geoJSONTemplate, batching: .array(maxPoints: 3),
                                                         acknowledgement: .resultOK))
            }
        }

        /// The fix as the format carries it.
        func carried(_ fix: Fix) -> Fix {
            var f = fix
            switch self {
            case .native, .overland, .template:
                break
            case .owntracks:
                f.timestamp = Date(timeIntervalSince1970: fix.timestamp.timeIntervalSince1970.rounded(.down))
                f.horizontalAccuracy = fix.horizontalAccuracy.map { $0.rounded() }
                f.altitude = fix.altitude.map { $0.rounded() }
                f.verticalAccuracy = fix.verticalAccuracy.map { $0.rounded() }
                f.speed = fix.speed.map { ($0 * 3.6).rounded() / 3.6 }
                f.course = fix.course.map { $0.rounded() }
            case .traccar:
                f.verticalAccuracy = nil   // not in the OsmAnd protocol
            }
            return f
        }
    }

    static func same(_ a: Double?, _ b: Double?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case (let x?, let y?): abs(x - y) <= 1e-9 * max(1, abs(x))
        default: false
        }
    }

    @Test("every point stored once with its values; a resend of every request stores nothing twice",
          arguments: StoreKind.available, Case.allCases)
    func endToEnd(kind: StoreKind, format formatCase: Case) async throws {
        let format = try formatCase.format()
        try await LiveStreamTests.live(kind) { server, port in
            let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
            let transport = try URLSessionUploadTransport(server: url, path: format.defaultPath ?? "/api/ingest", timeout: .seconds(60))
            let size = format.maxPointsPerRequest ?? Self.fixes.count
            let requests = stride(from: 0, to: Self.fixes.count, by: size).map { start in
                format.request(fixes: Array(Self.fixes[start..<min(start + size, Self.fixes.count)]),
                               key: "batch-\(start)", token: server.deviceToken)
            }
            for round in ["first", "again"] {
                for request in requests {
                    let reply = format.interpret(await transport.send(request))
                    #expect(reply.isAcknowledgement, "\(round): \(reply)")
                    #expect(reply.rejections.isEmpty, "\(round): \(reply.rejections)")
                }
                let stored = try await server.storedPositions()
                #expect(stored.count == Self.fixes.count, "\(round): \(stored.count) stored")
                for (position, fix) in zip(stored, Self.fixes.map(formatCase.carried)) {
                    let f = position.fix
                    #expect(f.timestamp.millisecondsSince1970 == fix.timestamp.millisecondsSince1970)
                    #expect(Self.same(f.coordinate.latitude, fix.coordinate.latitude) && Self.same(f.coordinate.longitude, fix.coordinate.longitude),
                            "\(f.coordinate) vs \(fix.coordinate)")
                    #expect(Self.same(f.horizontalAccuracy, fix.horizontalAccuracy), "accuracy \(String(describing: f.horizontalAccuracy))")
                    #expect(Self.same(f.altitude, fix.altitude), "altitude \(String(describing: f.altitude))")
                    #expect(Self.same(f.verticalAccuracy, fix.verticalAccuracy), "vertical accuracy \(String(describing: f.verticalAccuracy))")
                    #expect(Self.same(f.speed, fix.speed), "speed \(String(describing: f.speed)) vs \(String(describing: fix.speed))")
                    #expect(Self.same(f.course, fix.course), "course \(String(describing: f.course))")
                }
            }
        }
    }

    @Test("a token the server does not know is refused in every format, and the refusal is no acknowledgement",
          arguments: Case.allCases)
    func refused(format formatCase: Case) async throws {
        let format = try formatCase.format()
        try await LiveStreamTests.live(.sqlite) { server, port in
            let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
            let transport = try URLSessionUploadTransport(server: url, path: format.defaultPath ?? "/api/ingest", timeout: .seconds(60))
            let reply = format.interpret(await transport.send(format.request(fixes: [Self.fixes[0]], key: "k", token: "wmd_unknown")))
            guard case .status(let code, _) = reply else { Issue.record("\(reply)"); return }
            #expect(code == 401 && !reply.isAcknowledgement, "\(reply)")
            #expect(try await server.storedPositions().isEmpty)
        }
    }
}
