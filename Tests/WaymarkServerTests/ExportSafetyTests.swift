import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import WaymarkServer

/// CSV formula injection (issue #15, finding M2): client text that a spreadsheet would evaluate
/// comes out of a CSV export as quoted text starting with `'`.
@Suite("Export safety")
struct ExportSafetyTests {
    /// The probe's payloads plus TAB- and CR-led values: each must come out as `"'…"`.
    static let formulas = [
        "@SUM(1+1)",
        "+SUM(1,2)",
        "-2+3+cmd|' /C calc'!A0",
        #"=HYPERLINK("http://x","y")"#,
        "\t=1+1",
        "\r=1+1",
    ]

    /// Activities that are not formulas, and the cell each must become.
    static let plain = [
        ("walking", "walking"),
        ("on, foot", #""on, foot""#),
        ("a \"b\"", #""a ""b""""#),
        ("x=1", "x=1"),
        ("a\"\u{301},=1", "\"a\"\"\u{301},=1\""),   // a quote with a combining mark is still doubled
    ]

    /// A native batch with one point per activity, one second apart from 10:00:00, all at altitude -12.5.
    static func batch(_ activities: [String]) throws -> String {
        let features: [[String: Any]] = activities.enumerated().map { i, activity in
            [
                "type": "Feature",
                "geometry": ["type": "Point", "coordinates": [14.5, 46.0]],
                "properties": ["timestamp": String(format: "2025-06-15T10:00:%02dZ", i), "altitude": -12.5,
                               "activity": activity],
            ]
        }
        let data = try JSONSerialization.data(withJSONObject: ["locations": features])
        return String(decoding: data, as: UTF8.self)
    }

    @Test("formula payloads round-trip through ingest and CSV export as quoted cells starting with '",
          arguments: StoreKind.available)
    func formulasNeutralised(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let activities = Self.formulas + Self.plain.map(\.0)
            let reply = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: try Self.batch(activities))
            #expect(reply.status == .ok, "\(reply.text)")
            #expect(try await server.storedPositions().map(\.activity) == activities)

            let csv = try await server.send(.get, "/api/devices/\(server.device.id)/export?format=csv",
                                            token: server.deviceToken).text
            for (i, activity) in activities.enumerated() {
                let cell: String
                if i < Self.formulas.count {
                    cell = "\"'" + activity.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                    #expect(cell.hasPrefix("\"'"))
                } else {
                    cell = Self.plain[i - Self.formulas.count].1
                }
                // The numeric columns are untouched: the negative altitude stays a number. The honesty marks
                // follow the activity: origin unknown, not flagged.
                let row = String(format: "2025-06-15T10:00:%02d.000Z,46.0,14.5,-12.5,,,,,,", i) + cell + ",,,false\n"
                #expect(csv.contains(row), "missing row \(row.debugDescription) in \(csv.debugDescription)")
            }
        }
    }

    @Test("the cell rule on its own: triggers at the start only, quotes doubled, empty stays empty")
    func cellRule() {
        #expect(ExportFormat.csvTextCell("") == "")
        #expect(ExportFormat.csvTextCell("=1") == #""'=1""#)
        #expect(ExportFormat.csvTextCell(#"=A1&"x""#) == #""'=A1&""x""""#)
        #expect(ExportFormat.csvTextCell("-") == #""'-""#)
        #expect(ExportFormat.csvTextCell("1-2") == "1-2")
        #expect(ExportFormat.csvTextCell(" =1") == " =1")
        #expect(ExportFormat.csvTextCell("\r\n=1") == "\"'\r\n=1\"")
        #expect(ExportFormat.csvTextCell("a\r\nb") == "\"a\r\nb\"")
    }
}
