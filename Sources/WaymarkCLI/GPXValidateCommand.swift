import ArgumentParser
import Foundation
import WaymarkGeo

/// `waymark gpx validate FILE [--json] [--lenient]`: reads a GPX file in one streaming pass and counts what it holds.
///
/// Exit status: 0 when the file is valid (in `--lenient` mode: readable; skipped points are
/// listed on stderr), 1 when it is not (the message names `file:line:column` and what was
/// expected), 2 for usage errors once the root command maps them (see the report).
struct GPXValidateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a GPX 1.0/1.1 file and count its waypoints, routes, tracks, segments and points.",
        discussion: """
        Reads the file in one streaming pass in constant memory. Exit status 0 when it is valid,
        1 when it is not (the message on stderr names file:line:column and what was expected).
        With --lenient, invalid points are skipped and listed on stderr, and only XML that is
        not well formed (or is not GPX) fails.
        """
    )

    @Argument(help: "The GPX file to check.")
    var file: String

    @Flag(help: "Print the result as JSON on stdout.")
    var json = false

    @Flag(help: "Skip invalid points and report each one instead of failing.")
    var lenient = false

    func run() async throws {
        var counts = GPXCounts()
        var failure: GeoError?
        do {
            var reader = try GPXReader(contentsOf: URL(fileURLWithPath: file), options: GPXReadOptions(lenient: lenient))
            while let event = try reader.next() {
                counts.add(event)
                if case .issue(let issue) = event { FileHandle.standardError.write(Data("warning: \(issue)\n".utf8)) }
            }
        } catch {
            failure = error
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        }
        if json {
            let report = GPXValidateReport(file: file, valid: failure == nil, counts: counts, error: failure?.description)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            let data = (try? encoder.encode(report)) ?? Data()
            FileHandle.standardOutput.write(data + Data("\n".utf8))
        } else if failure == nil {
            let c = counts
            let version = c.version.map { "GPX \($0)" } ?? "GPX"
            var line = "\(file): valid \(version): \(c.waypoints) waypoints, \(c.routes) routes (\(c.routePoints) points), "
            line += "\(c.tracks) tracks, \(c.segments) segments, \(c.trackPoints) track points"
            if c.issues > 0 { line += ", \(c.issues) skipped" }
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        }
        if failure != nil { throw ExitCode(1) }
    }
}

/// What `gpx validate` counts while streaming.
struct GPXCounts: Codable, Equatable {
    var version: String?
    var waypoints = 0
    var routes = 0
    var routePoints = 0
    var tracks = 0
    var segments = 0
    var trackPoints = 0
    var issues = 0

    mutating func add(_ event: GPXEvent) {
        switch event {
        case .document(let v, _): version = v
        case .waypoint: waypoints += 1
        case .routeEnd: routes += 1
        case .routePoint: routePoints += 1
        case .trackEnd: tracks += 1
        case .segmentBegin: segments += 1
        case .trackPoint: trackPoints += 1
        case .issue: issues += 1
        default: break
        }
    }
}

/// The `--json` output of `gpx validate`.
struct GPXValidateReport: Codable, Equatable {
    var file: String
    var valid: Bool
    var counts: GPXCounts
    var error: String?
}
