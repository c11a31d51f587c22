import ArgumentParser
import Foundation
import WaymarkGeo
import WaymarkServer

/// `waymark fence …`: add, list and import server geofences.
struct FenceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fence",
        abstract: "Add, list and import server geofences.",
        discussion: """
        Fences are evaluated on every upload; enter, exit and dwell events go to webhooks.

        Examples:
          waymark fence add Depot --latitude 46.05 --longitude 14.5 --radius 150 --dwell 300
          waymark fence import zones.geojson
          waymark fence list
        """,
        subcommands: [Add.self, List.self, Import.self]
    )

    /// `waymark fence add NAME --latitude --longitude --radius`.
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a circular fence.",
            discussion: """
            Examples:
              waymark fence add Depot --latitude 46.05 --longitude 14.5 --radius 150
              waymark fence add "School gate" --latitude 46.051 --longitude 14.503 --radius 80 --dwell 300 --json
            """)

        @Argument(help: "A name for the fence.")
        var name: String

        @Option(help: "Centre latitude in degrees.")
        var latitude: Double

        @Option(help: "Centre longitude in degrees.")
        var longitude: Double

        @Option(help: "Radius in metres.")
        var radius: Double

        @Option(help: "Seconds inside before a dwell event (none when omitted).")
        var dwell: Double?

        @Option(help: "SQLite file path, or a postgres:// URL.")
        var database: String = DatabaseOption.defaultLocation

        @Flag(help: "Print the new fence as a GeoJSON FeatureCollection.")
        var json = false

        func validate() throws {
            guard (try? Coordinate(latitude: latitude, longitude: longitude)) != nil else {
                throw ValidationError("--latitude must be in -90…90 and --longitude in -180…180")
            }
            guard radius > 0, radius <= ServerFence.maximumRadiusMeters else {
                throw ValidationError("--radius must be a number of metres in (0, \(Int(ServerFence.maximumRadiusMeters))]")
            }
            if let dwell, !(dwell >= 0) { throw ValidationError("--dwell must be zero or more seconds") }
        }

        func run() async throws { writeLine(try await output(), terminator: "") }

        func output() async throws -> String {
            let fence = ServerFence(id: TokenHasher.makeIdentifier(prefix: "f"), name: name,
                              shape: .circle(center: Coordinate(uncheckedLatitude: latitude, longitude: longitude), radiusMeters: radius),
                              dwellSeconds: dwell)
            try await StoreFactory.withStore(at: database, logger: quietLogger) { store in
                try await store.upsertFences([fence], at: Date())
            }
            if json { return String(decoding: try FenceCodec.featureCollectionJSON([fence]), as: UTF8.self) + "\n" }
            return "Added fence \(fence.id) (\(fence.name)).\n"
        }
    }

    /// `waymark fence list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List fences.",
            discussion: """
            --json prints a GeoJSON FeatureCollection that 'waymark fence import' reads back.

            Examples:
              waymark fence list
              waymark fence list --json > zones.geojson
            """)

        @Option(help: "SQLite file path, or a postgres:// URL.")
        var database: String = DatabaseOption.defaultLocation

        @Flag(help: "Print the fences as a GeoJSON FeatureCollection.")
        var json = false

        func run() async throws { writeLine(try await output(), terminator: "") }

        func output() async throws -> String {
            let fences = try await StoreFactory.withStore(at: database, logger: quietLogger) { store in try await store.listFences() }
            if json { return String(decoding: try FenceCodec.featureCollectionJSON(fences), as: UTF8.self) + "\n" }
            var lines = ["ID\tNAME\tSHAPE\tDWELL"]
            for fence in fences {
                let shape: String
                switch fence.shape {
                case .circle(let c, let r): shape = "circle \(c.latitude),\(c.longitude) r=\(r) m"
                case .polygon(let p): shape = "polygon \(p.exterior.count) vertices"
                }
                lines.append("\(fence.id)\t\(fence.name)\t\(shape)\t\(fence.dwellSeconds.map { "\($0) s" } ?? "-")")
            }
            return lines.joined(separator: "\n") + "\n"
        }
    }

    /// `waymark fence import FILE`.
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import fences from a GeoJSON FeatureCollection (Polygon, or Point with radiusMeters).",
            discussion: """
            Features with an id replace the fence with that id; the others get a new id.

            Examples:
              waymark fence import zones.geojson
              waymark fence import zones.geojson --database postgres://waymark@db/waymark
            """)

        @Argument(help: "A GeoJSON file.")
        var file: String

        @Option(help: "SQLite file path, or a postgres:// URL.")
        var database: String = DatabaseOption.defaultLocation

        func run() async throws { writeLine(try await output(), terminator: "") }

        func output() async throws -> String {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw InputError("cannot read \(file): \(error.localizedDescription)")
            }
            let fences: [ServerFence]
            do {
                fences = try FenceCodec.fences(fromJSON: data)
            } catch let error as ServerError {
                throw InputError("\(file): \(error.message)")
            }
            try await StoreFactory.withStore(at: database, logger: quietLogger) { store in
                try await store.upsertFences(fences, at: Date())
            }
            return "Imported \(fences.count) fence\(fences.count == 1 ? "" : "s") from \(file).\n"
        }
    }
}
