import ArgumentParser
import Foundation
import WaymarkGeo

/// `waymark gpx simplify FILE --tolerance METRES -o OUT`: fewer points, same shape.
struct GPXSimplifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simplify",
        abstract: "Simplify the tracks and routes of a GPX file and write GPX 1.1.",
        discussion: """
        With --tolerance, Ramer–Douglas–Peucker keeps every point needed so that no removed
        point lies farther than that many metres from the simplified line. With --points,
        Visvalingam–Whyatt removes the least significant points until each segment or route
        has at most that many. Endpoints are always kept; waypoints are copied unchanged.

        Examples:
          waymark gpx simplify ride.gpx --tolerance 5 -o ride-5m.gpx
          waymark gpx simplify ride.gpx --points 500 -o preview.gpx
        """
    )

    @Argument(help: "The GPX file to read.")
    var file: String

    @Option(help: "Largest distance in metres between a removed point and the simplified line.")
    var tolerance: Double?

    @Option(help: "Keep at most this many points per track segment and route (Visvalingam–Whyatt).")
    var points: Int?

    @Option(name: .shortAndLong, help: "Output file (standard output when omitted or '-').")
    var output: String?

    @Flag(help: "Skip invalid points (listed on stderr) instead of failing.")
    var lenient = false

    func validate() throws {
        switch (tolerance, points) {
        case (nil, nil): throw ValidationError("Give --tolerance METRES or --points N.")
        case (.some, .some): throw ValidationError("Give either --tolerance or --points, not both.")
        case (let t?, nil) where !(t.isFinite && t > 0):
            throw ValidationError("--tolerance must be a positive number of metres, not \(t).")
        case (nil, let n?) where n < 2:
            throw ValidationError("--points must be at least 2, not \(n).")
        default: break
        }
    }

    func run() async throws {
        let (document, issues) = try GPXDocument.read(contentsOf: URL(fileURLWithPath: file),
                                                      options: GPXReadOptions(lenient: lenient))
        for issue in issues { writeToStandardError("warning: \(issue)") }
        var simplified = document
        simplified.version = "1.1"
        if let tolerance {
            simplified.tracks = document.tracks.map { $0.simplified(toleranceMeters: tolerance) }
            simplified.routes = document.routes.map { $0.simplified(toleranceMeters: tolerance) }
        } else if let points {
            simplified.tracks = document.tracks.map { track in
                var t = track
                t.segments = track.segments.map { $0.simplified(targetCount: points) }
                return t
            }
            simplified.routes = document.routes.map { route in
                var r = route
                r.points = VisvalingamWhyatt.simplify(route.points, targetCount: points)
                return r
            }
        }
        var out = try OutputFile(path: output)
        out.write(simplified.gpxData())
        out.close()
        let before = document.tracks.reduce(0) { $0 + $1.segments.reduce(0) { $0 + $1.points.count } }
        let after = simplified.tracks.reduce(0) { $0 + $1.segments.reduce(0) { $0 + $1.points.count } }
        writeToStandardError("simplified \(before) track points to \(after)")
    }
}
