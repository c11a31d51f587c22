import ArgumentParser
import Foundation
import WaymarkCLI

// Parse and run explicitly rather than `await WaymarkCommand.main()`: on Linux that call
// resolves to the synchronous entry point and refuses to run async subcommands, and this
// way usage errors exit with status 2 instead of ArgumentParser's default 64 (EX_USAGE).
/// Runs an async command; inside an async function `run()` resolves to the async requirement.
func runAsync(_ command: inout any AsyncParsableCommand) async throws {
    try await command.run()
}

do {
    var command = try WaymarkCommand.parseAsRoot()
    if var asyncCommand = command as? any AsyncParsableCommand {
        try await runAsync(&asyncCommand)
    } else {
        try command.run()
    }
} catch {
    if WaymarkCommand.exitCode(for: error) == .validationFailure {
        FileHandle.standardError.write(Data((WaymarkCommand.fullMessage(for: error) + "\n").utf8))
        exit(2)
    }
    WaymarkCommand.exit(withError: error)
}
