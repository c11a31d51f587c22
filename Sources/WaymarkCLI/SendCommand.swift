import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import WaymarkGeo
import NIOHTTP1

/// `waymark send`: replay a recorded ride to a server as a real tracking client would.
struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Replay a ride to a server as a tracking app would (or as many devices, to load-test it).",
        discussion: """
        A progress bar is drawn on standard error when it is a terminal and the replay takes more
        than a few seconds (not with --json).

        Formats: native (batches to /api/ingest with Idempotency-Key), owntracks (POST /pub, Basic
        auth with the token as password), osmand (POST /?id=TOKEN&lat=…, speed in knots), traccar
        (Traccar Client JSON body to /). Points are sent when they were measured, sped up by
        --speedup (0: as fast as possible). Timestamps are moved so the ride ends now, unless
        --original-times.

        With --devices 1, --token is the device token. With --devices N > 1, --token is the admin
        token and N devices named "send-1" … are registered through POST /api/devices (or give
        --tokens-file with one device token per line). The report shows points/s and latency.

        Examples:
          waymark send ride.gpx --server http://127.0.0.1:8080 --token wmd_… --format owntracks
          waymark send ride.gpx --server http://127.0.0.1:8080 --token wma_… --devices 50 --speedup 0
        """
    )

    @Argument(help: "The ride (.gpx); every timed track point is sent.")
    var ride: String

    @Option(help: "The server's base URL, e.g. http://127.0.0.1:8080.")
    var server: String

    @Option(help: "The device token (or the admin token with --devices > 1).")
    var token: String?

    @Option(help: "native, owntracks, osmand or traccar.")
    var format: String = "native"

    @Option(help: "Virtual seconds per real second; 0 sends as fast as possible.")
    var speedup: Double = 60

    @Option(help: "Concurrent devices (a load generator when > 1).")
    var devices: Int = 1

    @Option(name: .customLong("tokens-file"), help: "A file with one device token per line (for --devices).")
    var tokensFile: String?

    @Option(help: "Points per native batch.")
    var batch: Int = 100

    @Flag(name: .customLong("original-times"), help: "Keep the file's timestamps instead of ending the ride now.")
    var originalTimes = false

    @Flag(help: "Print the report as JSON.")
    var json = false

    func validate() throws {
        guard SendFormat(rawValue: format) != nil else {
            throw ValidationError("--format must be one of \(SendFormat.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard speedup >= 0, speedup.isFinite else { throw ValidationError("--speedup must be 0 or more") }
        guard devices >= 1 else { throw ValidationError("--devices must be at least 1") }
        guard batch >= 1 else { throw ValidationError("--batch must be at least 1") }
        guard token != nil || tokensFile != nil else { throw ValidationError("give --token (or --tokens-file)") }
        guard server.hasPrefix("http://") || server.hasPrefix("https://") else {
            throw ValidationError("--server must be an http:// or https:// URL")
        }
    }

    func run() async throws {
        let report = try await replay()
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            writeLine(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            writeLine(report.text)
        }
        if report.pointsAcknowledged < report.pointsSent { throw ExitCode(WaymarkExit.invalidInput) }
    }

    /// Reads the ride, resolves the tokens, sends, and returns the report.
    func replay(now: Date = Date()) async throws -> SendReplay.Report {
        let fixes = try Self.fixes(path: ride, endingAt: originalTimes ? nil : now)
        guard !fixes.isEmpty else { throw InputError("\(ride): no timed track points to send") }
        var base = server
        while base.hasSuffix("/") { base.removeLast() }
        let tokens = try await resolveTokens(server: base)
        var replay = SendReplay(fixes: fixes, format: SendFormat(rawValue: format)!, server: base, tokens: tokens,
                                speedup: speedup, batch: batch)
        // A bar for anything that takes more than a few seconds, only on a terminal and never with --json.
        let span = fixes.last!.timestamp.timeIntervalSince(fixes[0].timestamp)
        let long = speedup > 0 ? span / speedup > 3 : fixes.count * tokens.count >= 100_000
        replay.progress = SharedProgressBar(ProgressBar(label: "sending", totalPoints: fixes.count * tokens.count, shown: long && !json))
        return await replay.run()
    }

    /// The ride's timed points as fixes, shifted so the last one is at `end` (kept when nil).
    static func fixes(path: String, endingAt end: Date?) throws -> [Fix] {
        let points = try GPXDocument(contentsOf: URL(fileURLWithPath: path)).tracks.flatMap(\.points).filter { $0.time != nil }
        let shift = end.map { $0.timeIntervalSince(points.last?.time ?? $0) } ?? 0
        return points.map { point in
            Fix(coordinate: point.coordinate, altitude: point.elevation, horizontalAccuracy: 5, speed: point.speed,
                course: point.course, timestamp: point.time!.addingTimeInterval(shift))
        }
    }

    private func resolveTokens(server: String) async throws -> [String] {
        if let tokensFile {
            let text = try String(contentsOfFile: tokensFile, encoding: .utf8)
            let tokens = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard tokens.count >= devices else { throw InputError("\(tokensFile) has \(tokens.count) tokens; --devices needs \(devices)") }
            return Array(tokens.prefix(devices))
        }
        guard let token else { throw InputError("give --token") }
        if devices == 1 { return [token] }
        var tokens: [String] = []
        for i in 1...devices { tokens.append(try await Self.createDevice(named: "send-\(i)", server: server, adminToken: token)) }
        return tokens
    }

    /// Registers a device through `POST /api/devices` and returns its token.
    static func createDevice(named name: String, server: String, adminToken: String) async throws -> String {
        var request = HTTPClientRequest(url: server + "/api/devices")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(adminToken)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: SendFormat.json(["name": name])))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status.code == 201,
              let object = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any],
              let token = object["token"] as? String else {
            throw InputError("cannot register devices (POST /api/devices answered \(response.status.code)): "
                             + "--devices > 1 needs the admin token, or --tokens-file")
        }
        return token
    }
}
