import Testing
@testable import WaymarkCLI

@Suite("Exit statuses")
struct ExitStatusTests {
    @Test("an unknown option is a usage error with status 2")
    func unknownOption() async {
        #expect(await WaymarkCommand.run(["--no-such-option"]) == WaymarkExit.usage)
    }

    @Test("an unknown subcommand is a usage error with status 2")
    func unknownSubcommand() async {
        #expect(await WaymarkCommand.run(["no-such-command"]) == WaymarkExit.usage)
    }

    @Test("--help and --version succeed")
    func helpAndVersion() async {
        #expect(await WaymarkCommand.run(["--help"]) == WaymarkExit.success)
        #expect(await WaymarkCommand.run(["--version"]) == WaymarkExit.success)
    }
}
