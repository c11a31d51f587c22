import ArgumentParser
import Foundation
import WaymarkGeo

/// Exit statuses of the `waymark` tool.
public enum WaymarkExit {
    /// Success.
    public static let success: Int32 = 0
    /// The input (a file, a request, a scenario) is invalid.
    public static let invalidInput: Int32 = 1
    /// The command line itself is wrong: unknown flag, missing argument, bad value.
    public static let usage: Int32 = 2
}

/// An error a command throws when its input is invalid; printed as is, exit status 1.
struct InputError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension WaymarkCommand {
    /// Parses `arguments` (the process's when nil), runs the command, and returns the exit status.
    ///
    /// Usage errors print the message and a usage hint to stderr and return 2; invalid input
    /// (`GeoError` or another error a command throws) prints `waymark: <message>` and returns 1;
    /// `--help` and `--version` print to stdout and return 0.
    public static func run(_ arguments: [String]? = nil) async -> Int32 {
        let command: any ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            return report(error, whileParsing: true)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                var syncCommand = command
                try syncCommand.run()
            }
            return WaymarkExit.success
        } catch let exit as ExitCode {
            return exit.rawValue
        } catch let error as GeoError {
            writeToStandardError("waymark: \(error)")
            return WaymarkExit.invalidInput
        } catch let error as InputError {
            writeToStandardError("waymark: \(error)")
            return WaymarkExit.invalidInput
        } catch {
            return report(error, whileParsing: false)
        }
    }

    /// Prints what ArgumentParser makes of `error` and returns the exit status: `--help` and `--version`
    /// to stdout (0); a usage error, and any error while parsing, to stderr with its hint (2); any other
    /// error as `waymark: <message>` (1).
    private static func report(_ error: any Error, whileParsing: Bool) -> Int32 {
        let code = exitCode(for: error)
        let message = fullMessage(for: error)
        if code == .success {
            if !message.isEmpty { writeLine(message) }
            return WaymarkExit.success
        }
        if whileParsing || error is ValidationError || code == .validationFailure {
            writeToStandardError(message)
            return WaymarkExit.usage
        }
        writeToStandardError("waymark: \(message.isEmpty ? String(describing: error) : message)")
        return WaymarkExit.invalidInput
    }
}

/// Writes one line to standard error.
func writeToStandardError(_ text: String) {
    let line = text.hasSuffix("\n") ? text : text + "\n"
    FileHandle.standardError.write(Data(line.utf8))
}
