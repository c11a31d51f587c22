import Foundation
import Testing
@testable import WaymarkCLI

@Suite("Server commands")
struct ServerCommandsTests {
    static func temporaryDatabase() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("cli.sqlite").path
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

    @Test("device add prints a token once, list shows the device, revoke marks it revoked")
    func deviceLifecycle() async throws {
        let database = try Self.temporaryDatabase()
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
}
