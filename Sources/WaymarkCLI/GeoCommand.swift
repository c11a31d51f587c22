import ArgumentParser
import Foundation
import WaymarkGeo

/// `waymark geo …`: solve geodesic problems on the WGS-84 ellipsoid.
struct GeoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geo",
        abstract: "Solve geodesic problems on the WGS-84 ellipsoid.",
        subcommands: [GeoInverseCommand.self, GeoDirectCommand.self]
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
            print(try Self.solve(values))
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
            print(try Self.solve(values))
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
