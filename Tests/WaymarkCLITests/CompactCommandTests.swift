import ArgumentParser
import Foundation
import Testing
@testable import WaymarkCLI

/// `waymark compact` (the PostgreSQL work itself is covered by the server's ChunkStoreTests).
@Suite("waymark compact")
struct CompactCommandTests {
    @Test("a SQLite store is refused with a message saying why")
    func sqliteRefused() async throws {
        let command = try CompactCommand.parse(["--database", "/tmp/waymark-compact-test.sqlite"])
        await #expect {
            try await command.run()
        } throws: { error in
            "\(error)".contains("PostgreSQL") && "\(error)".contains("SQLite keeps one row per point")
        }
        #expect(!FileManager.default.fileExists(atPath: "/tmp/waymark-compact-test.sqlite"), "nothing was created")
    }
}
