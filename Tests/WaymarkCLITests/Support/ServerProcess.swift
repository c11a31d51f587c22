import Foundation
import Testing

/// A `waymark serve` child process on a free port, for tests that must kill the server for real.
struct ServerProcess: Sendable {
    /// The built `waymark` executable next to the test bundle (`swift build` puts it there).
    static var executable: URL? {
        let candidates = [
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("waymark"),
            Bundle.main.bundleURL.appendingPathComponent("waymark"),
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("waymark"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    let process: Process
    let baseURL: String
    private let exited: AsyncStream<Void>

    /// Starts `waymark serve --port 0 --database DATABASE` and waits for its "serving on" line.
    static func start(database: String, adminToken: String) async throws -> ServerProcess {
        let executable = try #require(executable, "the waymark executable is not built next to the tests; run `swift build` first")
        let process = Process()
        process.executableURL = executable
        process.arguments = ["serve", "--port", "0", "--database", database]
        var environment = ProcessInfo.processInfo.environment
        environment["WAYMARK_ADMIN_TOKEN"] = adminToken
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let (lines, linesContinuation) = AsyncStream.makeStream(of: Data.self)
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                linesContinuation.finish()
            } else {
                linesContinuation.yield(data)
            }
        }
        let (exited, exitContinuation) = AsyncStream.makeStream(of: Void.self)
        process.terminationHandler = { _ in exitContinuation.finish() }
        try process.run()
        var text = ""
        for await chunk in lines {
            text += String(decoding: chunk, as: UTF8.self)
            if let range = text.range(of: #"http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression) {
                return ServerProcess(process: process, baseURL: String(text[range]), exited: exited)
            }
        }
        throw ServerProcessError(message: "waymark serve exited before serving: \(text)")
    }

    /// Sends SIGKILL and waits until the process is gone.
    func kill9() async {
        kill(process.processIdentifier, SIGKILL)
        await waitForExit()
    }

    /// Sends SIGTERM (graceful shutdown) and waits until the process is gone.
    func terminate() async {
        process.terminate()
        await waitForExit()
    }

    private func waitForExit() async {
        for await _ in exited {}
    }
}

struct ServerProcessError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
