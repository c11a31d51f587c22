import ArgumentParser
import Foundation
import WaymarkGeo

/// `waymark gpx convert FILE --to gpx|geojson|csv [-o OUT]`.
struct GPXConvertCommand: AsyncParsableCommand {
    /// Output formats.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case gpx, geojson, csv
    }

    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert a GPX file to GPX 1.1, GeoJSON or CSV.",
        discussion: """
        gpx: GPX 1.1 (a GPX 1.0 file is upgraded; 1.0 speed and course become extensions).
        geojson: an RFC 7946 FeatureCollection, longitude first; tracks as LineString or
          MultiLineString features with per-point times in `coordTimes`, routes as LineString,
          waypoints as Point features.
        csv: one row per track point: track,segment,latitude,longitude,elevation,time,…
        GPX and CSV are written while streaming, in constant memory.

        Examples:
          waymark gpx convert ride.gpx --to geojson -o ride.geojson
          waymark gpx convert ride.gpx --to csv > ride.csv
        """
    )

    @Argument(help: "The GPX file to read.")
    var file: String

    @Option(help: "Output format: gpx, geojson or csv.")
    var to: Format

    @Option(name: .shortAndLong, help: "Output file (standard output when omitted or '-').")
    var output: String?

    @Flag(help: "Skip invalid points (listed on stderr) instead of failing.")
    var lenient = false

    func run() async throws {
        let options = GPXReadOptions(lenient: lenient)
        let url = URL(fileURLWithPath: file)
        var out = try OutputFile(path: output)
        defer { out.close() }
        switch to {
        case .geojson:
            let (document, issues) = try GPXDocument.read(contentsOf: url, options: options)
            for issue in issues { writeToStandardError("warning: \(issue)") }
            out.write(GeoJSONWriter.string(for: document))
        case .csv:
            var reader = try GPXReader(contentsOf: url, options: options)
            var progress = ProgressBar(label: "converting", totalBytes: fileSize(file))
            var csv = CSVTrackWriter(output: out)
            var track = -1, segment = -1, events = 0
            while let event = try reader.next() {
                switch event {
                case .trackBegin: track += 1; segment = -1
                case .segmentBegin: segment += 1
                case .trackPoint(let p): csv.write(p, track: max(track, 0), segment: max(segment, 0))
                case .issue(let issue): writeToStandardError("warning: \(issue)")
                default: break
                }
                events += 1
                if events & 0x3FFF == 0 { progress.update(completedBytes: reader.bytesRead) }
            }
            progress.finish()
            out = csv.output
        case .gpx:
            // GPX 1.1 requires waypoints, then routes, then tracks. Files that interleave them
            // are rewritten from a whole-document read; the rest stream in constant memory.
            guard try GPXConvertCommand.isInSchemaOrder(url: url, options: options) else {
                let (document, issues) = try GPXDocument.read(contentsOf: url, options: options)
                for issue in issues { writeToStandardError("warning: \(issue)") }
                out.write(document.gpxData())
                return
            }
            var reader = try GPXReader(contentsOf: url, options: options)
            out.flush()
            var copier = GPXStreamCopier(writer: GPXWriter(to: out.handle))
            var progress = ProgressBar(label: "converting", totalBytes: fileSize(file))
            var events = 0
            while let event = try reader.next() {
                try copier.handle(event)
                events += 1
                if events & 0x3FFF == 0 { progress.update(completedBytes: reader.bytesRead) }
            }
            try copier.finish()
            progress.finish()
        }
    }
}

extension GPXConvertCommand {
    /// True when the file lists every waypoint before any route and every route before any track.
    static func isInSchemaOrder(url: URL, options: GPXReadOptions) throws -> Bool {
        var reader = try GPXReader(contentsOf: url, options: options)
        var stage = 0
        while let event = try reader.next() {
            let kind: Int
            switch event {
            case .waypoint: kind = 0
            case .routeBegin: kind = 1
            case .trackBegin: kind = 2
            default: continue
            }
            if kind < stage { return false }
            stage = kind
        }
        return true
    }
}

/// Copies a stream of GPX events to a GPX 1.1 writer that streams to a file.
struct GPXStreamCopier {
    var writer: GPXWriter
    private var creator: String?
    private var metadata = GPXMetadata()
    private var begun = false

    init(writer: GPXWriter) { self.writer = writer }

    mutating func handle(_ event: GPXEvent) throws {
        switch event {
        case .document(_, let c): creator = c
        case .metadata(let m): metadata = m
        case .issue(let issue): writeToStandardError("warning: \(issue)")
        default:
            try beginIfNeeded()
            switch event {
            case .waypoint(let p): try writer.waypoint(p)
            case .routeBegin(let info): try writer.beginRoute(info)
            case .routePoint(let p): try writer.routePoint(p)
            case .routeEnd: try writer.endRoute()
            case .trackBegin(let info): try writer.beginTrack(info)
            case .segmentBegin: try writer.beginSegment()
            case .trackPoint(let p): try writer.trackPoint(p)
            case .segmentEnd(let ext): try writer.endSegment(extensions: ext)
            case .trackEnd: try writer.endTrack()
            default: break
            }
        }
    }

    mutating func finish() throws {
        try beginIfNeeded()
        try writer.end()
    }

    private mutating func beginIfNeeded() throws {
        guard !begun else { return }
        begun = true
        try writer.begin(creator: creator, metadata: metadata)
    }
}
