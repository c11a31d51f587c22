import ArgumentParser
import Foundation
import Testing
@testable import WaymarkCLI

/// `--help` output compared with checked-in golden text, so a changed flag or wording is a
/// reviewed change. Regenerate with `WAYMARK_UPDATE_GOLDEN=1 swift test --filter HelpGoldenTests`.
@Suite("Golden --help texts")
struct HelpGoldenTests {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    static let commands: [(name: String, type: any ParsableCommand.Type)] = [
        ("waymark", WaymarkCommand.self),
        ("gpx", GPXCommand.self),
        ("gpx-stats", GPXStatsCommand.self),
        ("gpx-validate", GPXValidateCommand.self),
        ("gpx-simplify", GPXSimplifyCommand.self),
        ("gpx-convert", GPXConvertCommand.self),
        ("geo", GeoCommand.self),
        ("simulate", SimulateCommand.self),
        ("serve", ServeCommand.self),
        ("device", DeviceCommand.self),
        ("device-add", DeviceCommand.Add.self),
        ("device-list", DeviceCommand.List.self),
        ("device-revoke", DeviceCommand.Revoke.self),
        ("fence", FenceCommand.self),
        ("fence-add", FenceCommand.Add.self),
        ("fence-list", FenceCommand.List.self),
        ("fence-import", FenceCommand.Import.self),
        ("demo", DemoCommand.self),
        ("send", SendCommand.self),
        ("backup", BackupCommand.self),
        ("compact", CompactCommand.self),
    ]

    @Test("help text matches the golden file", arguments: commands.map(\.name))
    func matchesGolden(name: String) throws {
        let type = try #require(Self.commands.first { $0.name == name }?.type)
        let help = WaymarkCommand.helpMessage(for: type, columns: 100) + "\n"
        let file = Self.golden.appendingPathComponent("\(name).txt")
        if ProcessInfo.processInfo.environment["WAYMARK_UPDATE_GOLDEN"] == "1" {
            try help.write(to: file, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOf: file, encoding: .utf8)
        #expect(help == expected, "help for \(name) changed; rerun with WAYMARK_UPDATE_GOLDEN=1 if intended")
    }

    @Test("every subcommand's help has an example")
    func examplesPresent() {
        for (name, type) in Self.commands where name != "waymark" && name != "gpx" && name != "geo" {
            let help = WaymarkCommand.helpMessage(for: type, columns: 100)
            #expect(help.contains("waymark "), "help for \(name) shows no example invocation")
        }
    }
}
