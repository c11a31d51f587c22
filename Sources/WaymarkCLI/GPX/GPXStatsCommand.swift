import ArgumentParser
import Foundation
import WaymarkGeo

/// `waymark gpx stats FILE [--json]`: distance, time, speed and elevation of a GPX file's tracks.
struct GPXStatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Summarise the tracks of a GPX file: distance, duration, speed, elevation.",
        discussion: """
        Reads the file in one streaming pass in constant memory, so files of any size work.
        Distances are on the WGS-84 ellipsoid. See the TrackStatistics documentation for the
        exact definitions of moving time, maximum speed and elevation gain.

        Examples:
          waymark gpx stats ride.gpx
          waymark gpx stats ride.gpx --json | jq .length2d
        """
    )

    @Argument(help: "The GPX file to read.")
    var file: String

    @Flag(help: "Print the statistics as JSON.")
    var json = false

    @Flag(help: "Skip invalid points (listed on stderr) instead of failing.")
    var lenient = false

    func run() async throws {
        let summary = try GPXStatsCommand.summarise(file: file, lenient: lenient)
        if json {
            try printJSON(summary)
        } else {
            writeLine(summary.text(), terminator: "")
        }
    }

    /// Streams `file` and accumulates statistics for the whole file and for each track.
    static func summarise(file: String, lenient: Bool) throws -> GPXStatsSummary {
        var reader = try GPXReader(contentsOf: URL(fileURLWithPath: file), options: GPXReadOptions(lenient: lenient))
        var progress = ProgressBar(label: "reading", totalBytes: fileSize(file))
        var total = TrackStatisticsAccumulator()
        var track = TrackStatisticsAccumulator()
        var tracks: [GPXStatsSummary.TrackSummary] = []
        var version: String?
        var skipped = 0
        var events = 0
        // Until the first track ends, `total` would receive exactly the calls `track` receives, so
        // it is not fed; it becomes a copy of the first track's accumulator instead (same state,
        // same results, half the work for the usual one-track file). Later tracks feed both.
        var totalIsFirstTrack = true
        while let event = try reader.next() {
            switch event {
            case .document(let v, _): version = v
            case .trackBegin: track = TrackStatisticsAccumulator()
            case .segmentBegin:
                if !totalIsFirstTrack { total.beginSegment() }
                track.beginSegment()
            case .trackPoint(let point):
                if !totalIsFirstTrack { total.add(point) }
                track.add(point)
            case .segmentEnd:
                if !totalIsFirstTrack { total.endSegment() }
                track.endSegment()
            case .trackEnd(let info):
                tracks.append(.init(name: info.name, statistics: StatisticsJSON(track.statistics)))
                if totalIsFirstTrack {
                    total = track
                    totalIsFirstTrack = false
                }
            case .issue(let issue):
                skipped += 1
                writeToStandardError("warning: \(issue)")
            default: break
            }
            events += 1
            if events & 0x3FFF == 0 { progress.update(completedBytes: reader.bytesRead) }
        }
        progress.finish()
        return GPXStatsSummary(file: file, version: version, tracks: tracks, skippedPoints: skipped,
                               total: StatisticsJSON(total.statistics))
    }
}
