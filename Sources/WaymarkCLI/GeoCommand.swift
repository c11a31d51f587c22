import ArgumentParser
import Foundation
import WaymarkGeo

/// `waymark geo …`: solve geodesic problems on the WGS-84 ellipsoid.
struct GeoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geo",
        abstract: "Solve geodesic problems on the WGS-84 ellipsoid.",
        subcommands: [GeoInverseCommand.self, GeoDirectCommand.self, GeoBenchmarkCommand.self]
    )
}

/// `waymark geo inverse LAT1 LON1 LAT2 LON2`: distance and azimuths between two points.
struct GeoInverseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inverse",
        abstract: "Distance and azimuths of the shortest geodesic between two points.",
        discussion: """
        Prints "DISTANCE AZIMUTH1 AZIMUTH2": metres, and degrees clockwise from north in (-180, 180].
        With --batch, reads "LAT1 LON1 LAT2 LON2" lines from standard input and prints one result per line.
        Example:
          waymark geo inverse 40.64 -73.78 1.36 103.99
        """
    )

    @Flag(help: "Read whitespace-separated \"LAT1 LON1 LAT2 LON2\" lines from standard input.")
    var batch = false

    @Argument(parsing: .allUnrecognized, help: "LAT1 LON1 LAT2 LON2 in degrees.")
    var values: [Double] = []

    func validate() throws {
        if batch && !values.isEmpty { throw ValidationError("--batch reads standard input; give no values") }
        if !batch && values.count != 4 { throw ValidationError("expected 4 values: LAT1 LON1 LAT2 LON2") }
    }

    func run() throws {
        if batch {
            try GeoBatch.run(fieldCount: 4, expected: "LAT1 LON1 LAT2 LON2", Self.solve)
        } else {
            writeLine(try Self.solve(values))
        }
    }

    static func solve(_ v: [Double]) throws(GeoError) -> String {
        let a = try Coordinate(latitude: v[0], longitude: v[1])
        let b = try Coordinate(latitude: v[2], longitude: v[3])
        let r = Geodesic.wgs84.inverse(a, b)
        return "\(r.distance) \(r.initialAzimuth) \(r.finalAzimuth)"
    }
}

/// `waymark geo direct LAT LON AZIMUTH DISTANCE`: the point reached along a geodesic.
struct GeoDirectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "direct",
        abstract: "The point reached from a start point along a geodesic of given azimuth and length.",
        discussion: """
        Prints "LAT2 LON2 AZIMUTH2": degrees; the azimuth is the direction of travel on arrival.
        With --batch, reads "LAT1 LON1 AZIMUTH1 DISTANCE" lines from standard input.
        Example:
          waymark geo direct 40.64 -73.78 3.9 15349700
        """
    )

    @Flag(help: "Read whitespace-separated \"LAT1 LON1 AZIMUTH1 DISTANCE\" lines from standard input.")
    var batch = false

    @Argument(parsing: .allUnrecognized, help: "LAT1 LON1 (degrees) AZIMUTH1 (degrees from north) DISTANCE (metres).")
    var values: [Double] = []

    func validate() throws {
        if batch && !values.isEmpty { throw ValidationError("--batch reads standard input; give no values") }
        if !batch && values.count != 4 { throw ValidationError("expected 4 values: LAT1 LON1 AZIMUTH1 DISTANCE") }
    }

    func run() throws {
        if batch {
            try GeoBatch.run(fieldCount: 4, expected: "LAT1 LON1 AZIMUTH1 DISTANCE", Self.solve)
        } else {
            writeLine(try Self.solve(values))
        }
    }

    static func solve(_ v: [Double]) throws(GeoError) -> String {
        let start = try Coordinate(latitude: v[0], longitude: v[1])
        guard v[2].isFinite, v[3].isFinite else {
            throw GeoError(.invalidValue, "azimuth \(v[2]) and distance \(v[3]) must be finite numbers")
        }
        let r = Geodesic.wgs84.direct(from: start, azimuth: v[2], distance: v[3])
        return "\(r.destination.latitude) \(r.destination.longitude) \(r.finalAzimuth)"
    }
}

/// Line-by-line processing of standard input for the `--batch` modes.
enum GeoBatch {
    /// Reads all of standard input, solves each non-empty line, and writes one result per line.
    ///
    /// - throws: ``GeoError`` naming `<stdin>:LINE:1` when a line does not hold `fieldCount` numbers.
    static func run(fieldCount: Int, expected: String, _ solve: ([Double]) throws(GeoError) -> String) throws {
        let data = FileHandle.standardInput.readDataToEndOfFile()
        let text = String(decoding: data, as: UTF8.self)
        var output = ""
        output.reserveCapacity(text.utf8.count * 2)
        var lineNumber = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            if fields.isEmpty { continue }
            let location = SourceLocation(file: "<stdin>", line: lineNumber, column: 1)
            let numbers = fields.compactMap { Double($0) }
            guard fields.count == fieldCount, numbers.count == fieldCount else {
                throw GeoError(.invalidValue, "expected \(fieldCount) numbers \(expected), found \"\(line)\"", at: location)
            }
            do {
                output += try solve(numbers)
            } catch {
                throw GeoError(error.code, error.message, at: location)
            }
            output += "\n"
            if output.utf8.count > 1 << 20 {
                FileHandle.standardOutput.write(Data(output.utf8))
                output.removeAll(keepingCapacity: true)
            }
        }
        FileHandle.standardOutput.write(Data(output.utf8))
    }
}

/// `waymark geo benchmark`: nanoseconds per call of the geodesy functions (use a release build).
struct GeoBenchmarkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "benchmark",
        abstract: "Time the geodesy functions on random pairs; prints nanoseconds per call.",
        discussion: "Build with -c release first. Scripts/bench_geodesic.py runs this next to GeographicLib."
    )

    @Option(help: "Number of random pairs per measurement.")
    var count = 200_000

    func run() throws {
        var state: UInt64 = 0x5EED
        func uniform() -> Double {   // SplitMix64 → [0, 1)
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
        }
        func point() -> Coordinate {
            Coordinate(uncheckedLatitude: asin(2 * uniform() - 1) * 180 / .pi, longitude: 360 * uniform() - 180)
        }
        let far = (0..<count).map { _ in (point(), point()) }
        let near = far.map { pair in
            (pair.0, Coordinate(uncheckedLatitude: max(-90, min(90, pair.0.latitude + 0.002 * (uniform() - 0.5))),
                                longitude: Coordinate.normalizedLongitude(pair.0.longitude + 0.002 * (uniform() - 0.5))))
        }
        let g = Geodesic.wgs84
        func measure(_ name: String, _ pairs: [(Coordinate, Coordinate)], _ body: (Coordinate, Coordinate) -> Double) {
            var sink = 0.0
            let start = ContinuousClock.now
            for (a, b) in pairs { sink += body(a, b) }
            let elapsed = ContinuousClock.now - start
            let ns = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
            writeLine("\(name.padding(toLength: 44, withPad: " ", startingAt: 0)) \(String(format: "%8.1f", ns / Double(pairs.count))) ns/call"
                  + (sink.isNaN ? " (nan)" : ""))
        }
        measure("geodesic inverse (random pairs)", far) { g.inverse($0, $1).distance }
        measure("geodesic inverse (pairs ~100 m apart)", near) { g.inverse($0, $1).distance }
        measure("geodesic direct (random)", far) { g.direct(from: $0, azimuth: $1.longitude, distance: 1e7).destination.latitude }
        measure("LocalApproximation.distance (~100 m)", near) { LocalApproximation.distance($0, $1) }
        measure("LocalApproximation.segmentDistance (~100 m)", near) { LocalApproximation.segmentDistance($0, $1) }
        measure("haversine (random)", far) { Geodesy.haversineDistance($0, $1) }
    }
}
