import Foundation
import Testing
@testable import WaymarkCLI

@Suite("gpx validate command")
struct GPXValidateCommandTests {
    @Test("parses the file argument and the --json and --lenient flags")
    func parsesFlags() throws {
        let command = try GPXValidateCommand.parse(["ride.gpx", "--json", "--lenient"])
        #expect(command.file == "ride.gpx")
        #expect(command.json)
        #expect(command.lenient)
    }

    @Test("rejects a missing file argument as a usage error")
    func missingFile() {
        #expect(throws: (any Error).self) { try GPXValidateCommand.parse([]) }
    }
}
