import ArgumentParser
import Foundation

/// `waymark demo`: the whole of Waymark on one machine, with no set-up.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the server, simulate a phone recording a real ride, upload it, and show the result.",
        discussion: """
        Starts the tracking server on 127.0.0.1 (SQLite in a fresh temporary folder), registers a
        device, and simulates an iPhone recording a real mountain-bike ride (Blue Hills, 15 km):
        the first launch, automatic tracking starting the ride as the rider sets off (the app
        never calls start), a stop at traffic lights, a tunnel, a long stop, an app kill with a
        relaunch by iOS, and an offline window. Recorded fixes go into the phone's store and are
        uploaded over real HTTP. Prints the timeline, then a summary; then keeps serving (the
        dashboard URL is printed) until Ctrl-C, unless --no-serve.

        --upload-format picks what the phone uploads as: native (Waymark's batches to /api/ingest,
        the default), owntracks (one OwnTracks location per POST /pub), traccar (the OsmAnd protocol,
        one point per POST /?id=…) or overland (GeoJSON batches to /api/ingest). Gap markers and the
        phone's geofence events travel only in the native format; with another they stay on the phone
        and the summary says so.

        Examples:
          waymark demo
          waymark demo --upload-format owntracks --no-serve
          waymark demo --no-serve
          waymark demo --no-serve --json > demo.json
        """
    )

    @Flag(help: "Exit after the summary instead of serving until Ctrl-C.")
    var noServe = false

    @Option(help: "Port for the server; a free port is used when it is busy.")
    var port: Int = 8080

    @Option(help: "Seed of the simulation (the same seed gives the same ride).")
    var seed: UInt64 = 1

    @Flag(help: "Print the timeline and summary as JSON (implies no progress output).")
    var json = false

    @Option(name: .customLong("upload-format"), help: "What the phone uploads as: native, owntracks, traccar or overland.")
    var uploadFormat: String = "native"

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be in 0…65535") }
        guard DemoUploadFormat(rawValue: uploadFormat) != nil else {
            throw ValidationError("--upload-format must be one of \(DemoUploadFormat.allCases.map(\.rawValue).joined(separator: ", ")), "
                                  + "not '\(uploadFormat)'")
        }
    }

    func run() async throws {
        let (_, server) = try await perform(write: { writeLine($0) }, progress: DemoProgress(enabled: !json && DemoProgress.terminal))
        defer { server.stop() }
        guard !noServe else { return }
        writeLine("""

            Dashboard: \(server.baseURL.absoluteString)/#token=\(server.adminToken)
            API:       curl -H 'Authorization: Bearer \(server.adminToken)' \(server.baseURL.absoluteString)/api/devices
            Serving until Ctrl-C.
            """)
        await Self.waitForInterrupt()
    }

    /// Starts the server, runs the demo and writes the timeline and summary (or the JSON) through
    /// `write`, one line or document per call; returns the result and the still running server
    /// (the caller stops it).
    func perform(write: (String) -> Void, progress: DemoProgress = DemoProgress(enabled: false)) async throws
        -> (DemoResult, DemoServer) {
        let server = try await DemoServer.start(port: port)
        do {
            if !json {
                write("waymark demo: server on \(server.baseURL.absoluteString), device \(server.deviceID), data in \(server.folder.path)")
                write("simulating: \(DemoRide.trackName), first launch, traffic lights, tunnel, long stop, app kill, offline window")
                write("uploading as: \(uploadFormat)\n")
            }
            var bar = progress
            let format = DemoUploadFormat(rawValue: uploadFormat) ?? .native
            let result = try await DemoRun(seed: seed, startTime: Self.startTime(), uploadFormat: format).run(server: server, progress: { share in
                bar.update(share)
            }, line: { entry in
                guard !json else { return }
                bar.clear()
                write(entry.rendered)
            })
            bar.clear()
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
                encoder.dateEncodingStrategy = .iso8601
                write(String(decoding: try encoder.encode(result), as: UTF8.self))
            } else {
                write("\nSummary")
                write(result.summary.table)
                write("\n" + result.fieldLog.rendered)
            }
            return (result, server)
        } catch {
            server.stop()
            throw error
        }
    }

    /// A one-line progress bar on standard error, only when both standard output and standard
    /// error are a terminal (none when the demo's output is piped or redirected): redrawn in place,
    /// cleared before each timeline line.
    struct DemoProgress {
        /// Whether standard output and standard error are both a terminal.
        static var terminal: Bool { isatty(STDOUT_FILENO) == 1 && isatty(STDERR_FILENO) == 1 }

        let enabled: Bool
        private var drawn = -1

        init(enabled: Bool) { self.enabled = enabled }

        mutating func update(_ share: Double) {
            let percent = Int(min(1, max(0, share)) * 100)
            guard enabled, percent != drawn else { return }
            drawn = percent
            let filled = percent * 30 / 100
            let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: 30 - filled)
            FileHandle.standardError.write(Data("\r  simulating \(bar) \(percent)%".utf8))
        }

        mutating func clear() {
            guard enabled, drawn >= 0 else { return }
            FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
            drawn = -1
        }
    }

    /// The wall clock of the first launch: now minus the ride's length, so the ride ends about
    /// now (the server refuses points far in the future).
    static func startTime(now: Date = Date()) -> Date {
        Date(timeIntervalSince1970: ((now.timeIntervalSince1970 - 4 * 3600) / 60).rounded(.down) * 60)
    }

    /// Returns when the process receives SIGINT or SIGTERM.
    static func waitForInterrupt() async {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber)
            source.setEventHandler { continuation.yield() }
            source.resume()
            sources.append(source)
        }
        var iterator = stream.makeAsyncIterator()
        _ = await iterator.next()
        sources.forEach { $0.cancel() }
    }
}
