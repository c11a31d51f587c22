import Foundation
import Testing
@testable import WaymarkCLI
import ArgumentParser

@Suite("Server commands")
struct ServerCommandsTests {
    /// A database path in a new temporary directory; remove it with ``removeDatabase(_:)``.
    static func temporaryDatabase() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("cli.sqlite").path
    }

    /// Removes the directory of a ``temporaryDatabase()`` path.
    static func removeDatabase(_ path: String) {
        try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
    }

    @Test("serve parses host, port, database and limits, and rejects a bad port")
    func serveOptions() throws {
        let serve = try ServeCommand.parse(["--port", "9090", "--host", "0.0.0.0", "--database", "postgres://u:p@h/db",
                                            "--max-body-bytes", "1000", "--ride-gap", "300"])
        #expect(serve.port == 9090 && serve.host == "0.0.0.0" && serve.database == "postgres://u:p@h/db")
        #expect(serve.maxBodyBytes == 1000 && serve.rideGap == 300)
        let defaults = try ServeCommand.parse([])
        #expect(defaults.port == 8080 && defaults.host == "127.0.0.1")
        #expect(throws: (any Error).self) { try ServeCommand.parse(["--port", "70000"]) }
        #expect(DatabaseOption.redacted("postgres://u:secret@h/db") == "postgres://u:***@h/db")
    }

    @Test("serve takes the basemap's credit with its tiles, and refuses a credit without tiles")
    func tilesAttribution() throws {
        let serve = try ServeCommand.parse(["--tiles", "https://tile.example.org/{z}/{x}/{y}.png",
                                            "--tiles-attribution", "© OpenStreetMap contributors"])
        #expect(serve.tilesAttribution == "© OpenStreetMap contributors")
        #expect(throws: (any Error).self) { try ServeCommand.parse(["--tiles-attribution", "© OpenStreetMap contributors"]) }
    }

    @Test("device add prints a token once, list shows the device, revoke marks it revoked")
    func deviceLifecycle() async throws {
        let database = try Self.temporaryDatabase()
        defer { Self.removeDatabase(database) }
        let added = try await DeviceCommand.Add.parse(["Ana's phone", "--database", database]).output()
        #expect(added.contains("wmd_"))
        let id = try #require(added.split(separator: " ").dropFirst(2).first.map(String.init))
        let listed = try await DeviceCommand.List.parse(["--database", database]).output()
        #expect(listed.contains("\(id)\tAna's phone\tactive\t-"))
        #expect(!listed.contains("wmd_"))
        _ = try await DeviceCommand.Revoke.parse([id, "--database", database]).output()
        let after = try await DeviceCommand.List.parse(["--database", database]).output()
        #expect(after.contains("\(id)\tAna's phone\trevoked"))
        await #expect(throws: (any Error).self) {
            try await DeviceCommand.Revoke.parse(["d_missing", "--database", database]).output()
        }
    }

    @Test("device add and list --json give the id, name, status and (once) the token")
    func deviceJSON() async throws {
        let database = try Self.temporaryDatabase()
        defer { Self.removeDatabase(database) }
        let added = try await DeviceCommand.Add.parse(["van-7", "--json", "--database", database]).output()
        let row = try JSONDecoder.iso.decode(DeviceCommand.Row.self, from: Data(added.utf8))
        #expect(row.name == "van-7" && row.active && row.token?.hasPrefix("wmd_") == true)
        let listed = try await DeviceCommand.List.parse(["--json", "--database", database]).output()
        let rows = try JSONDecoder.iso.decode([DeviceCommand.Row].self, from: Data(listed.utf8))
        #expect(rows.map(\.id) == [row.id])
        #expect(rows[0].token == nil && rows[0].lastPositionAt == nil)
    }

    @Test("fence list --json is GeoJSON that fence import reads back unchanged")
    func fenceRoundTrip() async throws {
        let database = try Self.temporaryDatabase()
        defer { Self.removeDatabase(database) }
        _ = try await FenceCommand.Add.parse(["Depot", "--latitude", "46.05", "--longitude", "14.5", "--radius", "150",
                                              "--dwell", "300", "--database", database]).output()
        let listed = try await FenceCommand.List.parse(["--json", "--database", database]).output()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("fences-\(UUID().uuidString).geojson")
        try listed.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let other = try Self.temporaryDatabase()
        defer { Self.removeDatabase(other) }
        let imported = try await FenceCommand.Import.parse([file.path, "--database", other]).output()
        #expect(imported.hasPrefix("Imported 1 fence"))
        #expect(try await FenceCommand.List.parse(["--json", "--database", other]).output() == listed)
        #expect(try await FenceCommand.List.parse(["--database", other]).output().contains("Depot\tcircle 46.05,14.5 r=150.0 m\t300.0 s"))
    }

    @Test("invalid input exits 1 and a bad flag value exits 2")
    func exitStatuses() async throws {
        let database = try Self.temporaryDatabase()
        defer { Self.removeDatabase(database) }
        #expect(await WaymarkCommand.run(["fence", "import", "/no/such/file.geojson", "--database", database]) == WaymarkExit.invalidInput)
        #expect(await WaymarkCommand.run(["device", "revoke", "d_missing", "--database", database]) == WaymarkExit.invalidInput)
        #expect(await WaymarkCommand.run(["fence", "add", "X", "--latitude", "95", "--longitude", "0", "--radius", "10",
                                          "--database", database]) == WaymarkExit.usage)
    }
}

extension JSONDecoder {
    /// A decoder for the tool's JSON (ISO-8601 dates).
    static var iso: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
