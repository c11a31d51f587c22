import ArgumentParser
import Foundation
import Logging
import PostgresNIO
import WaymarkGeo
import WaymarkServer

/// `waymark-bench fences`: which fences contain each point — ``FenceEngine`` against PostGIS.
///
/// The same circles go into a temporary PostGIS table (`geography(Point)` centre, radius, GiST
/// index) and the same points are queried with `ST_DWithin` on geography (sphere), 1,000 points
/// per query joined through `unnest`, which is PostGIS at its most favourable. Both sides must
/// find the same number of matches; the report gives both times and the ratio.
struct BenchFencesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fences", abstract: "Point-in-fence: FenceEngine vs PostGIS ST_DWithin; print JSON.")

    @Option(help: "A postgres:// URL of a database with the postgis extension (or rights to create it).")
    var postgres: String
    @Option(help: "Circular fences (50–300 m) over the benchmark region.")
    var fences: Int = 100_000
    @Option(help: "Random points over the same region.")
    var points: Int = 100_000

    func run() async throws {
        let fenceList = BenchWorkload.fences(count: fences)
        var rng = SplitMix64(seed: 7)
        let r = BenchWorkload.region
        let coordinates = (0..<points).map { _ in
            Coordinate(uncheckedLatitude: Double.random(in: r.minLat...r.maxLat, using: &rng),
                       longitude: Double.random(in: r.minLon...r.maxLon, using: &rng))
        }
        let clock = ContinuousClock()
        var t = clock.now
        let engine = FenceEngine(fences: fenceList)
        let buildSeconds = (clock.now - t).seconds
        t = clock.now
        var ours = 0
        for c in coordinates { ours += engine.fenceIDs(containing: c).count }
        let oursSeconds = (clock.now - t).seconds
        let postgis = try await Self.postgis(url: postgres, fences: fenceList, points: coordinates)
        printJSON([
            "fences": fences, "points": points,
            "engineBuildSeconds": buildSeconds, "engineSeconds": oursSeconds, "engineMatches": ours,
            "enginePointsPerSecond": Double(points) / oursSeconds,
            "postgisLoadSeconds": postgis.loadSeconds, "postgisSeconds": postgis.seconds, "postgisMatches": postgis.matches,
            "postgisPointsPerSecond": Double(points) / postgis.seconds, "postgisUsesIndex": postgis.usesIndex,
            "ratio": postgis.seconds / oursSeconds,
        ])
    }

    struct PostGISResult: Sendable {
        var loadSeconds: Double, seconds: Double, matches: Int, usesIndex: Bool
    }

    static func postgis(url: String, fences: [ServerFence], points: [Coordinate]) async throws -> PostGISResult {
        var logger = Logger(label: "waymark.bench.postgis")
        logger.logLevel = .error
        let client = PostgresClient(configuration: try configuration(url), backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: PostGISResult?.self) { group in
            group.addTask { await client.run(); return nil }
            defer { group.cancelAll() }
            return try await client.withConnection { connection in
                try await run(connection, logger: logger, fences: fences, points: points)
            }
        }
    }

    private static func run(_ connection: PostgresConnection, logger: Logger, fences: [ServerFence],
                            points: [Coordinate]) async throws -> PostGISResult {
        let clock = ContinuousClock()
        let t0 = clock.now
        try await connection.query("CREATE EXTENSION IF NOT EXISTS postgis", logger: logger)
        try await connection.query("""
            CREATE TEMP TABLE bench_fences (id text PRIMARY KEY, center geography(Point, 4326) NOT NULL,
                                            radius float8 NOT NULL)
            """, logger: logger)
        var maxRadius = 0.0
        for start in stride(from: 0, to: fences.count, by: 10_000) {
            var ids: [String] = [], lats: [Double] = [], lons: [Double] = [], radii: [Double] = []
            for fence in fences[start..<min(start + 10_000, fences.count)] {
                guard case .circle(let center, let radius) = fence.shape else { continue }
                ids.append(fence.id); lats.append(center.latitude); lons.append(center.longitude); radii.append(radius)
                maxRadius = max(maxRadius, radius)
            }
            try await connection.query("""
                INSERT INTO bench_fences (id, center, radius)
                SELECT u.id, ST_SetSRID(ST_MakePoint(u.lon, u.lat), 4326)::geography, u.radius
                FROM unnest(\(ids)::text[], \(lats)::float8[], \(lons)::float8[], \(radii)::float8[]) AS u(id, lat, lon, radius)
                """, logger: logger)
        }
        try await connection.query("CREATE INDEX ON bench_fences USING GIST (center)", logger: logger)
        try await connection.query("ANALYZE bench_fences", logger: logger)
        let loadSeconds = (clock.now - t0).seconds
        let maxText = String(maxRadius)
        let join = """
            FROM unnest($1::float8[], $2::float8[]) AS p(lat, lon)
            JOIN bench_fences f
              ON ST_DWithin(f.center, ST_SetSRID(ST_MakePoint(p.lon, p.lat), 4326)::geography, \(maxText), false)
             AND ST_DWithin(f.center, ST_SetSRID(ST_MakePoint(p.lon, p.lat), 4326)::geography, f.radius, false)
            """
        func bindings(_ slice: ArraySlice<Coordinate>) -> PostgresBindings {
            var b = PostgresBindings()
            b.append(slice.map(\.latitude), context: .default)
            b.append(slice.map(\.longitude), context: .default)
            return b
        }
        let plan = try await connection.query(PostgresQuery(unsafeSQL: "EXPLAIN SELECT count(*) " + join,
                                                             binds: bindings(points.prefix(10))), logger: logger)
            .collect().map { try $0.decode(String.self) }.joined(separator: "\n")
        let t1 = clock.now
        var matches = 0
        for start in stride(from: 0, to: points.count, by: 1000) {
            let rows = try await connection.query(
                PostgresQuery(unsafeSQL: "SELECT count(*) " + join,
                              binds: bindings(points[start..<min(start + 1000, points.count)])), logger: logger).collect()
            matches += try rows.first?.decode(Int.self) ?? 0
        }
        let seconds = (clock.now - t1).seconds
        try await connection.query("DROP TABLE bench_fences", logger: logger)
        return PostGISResult(loadSeconds: loadSeconds, seconds: seconds, matches: matches,
                             usesIndex: plan.contains("bench_fences_center_idx"))
    }

    static func configuration(_ url: String) throws -> PostgresClient.Configuration {
        guard let c = URLComponents(string: url), let host = c.host, let user = c.user else {
            throw ValidationError("--postgres must be postgres://user:password@host:port/database")
        }
        let database = c.path.hasPrefix("/") ? String(c.path.dropFirst()) : c.path
        return PostgresClient.Configuration(host: host, port: c.port ?? 5432, username: user, password: c.password,
                                            database: database.isEmpty ? nil : database, tls: .disable)
    }
}
