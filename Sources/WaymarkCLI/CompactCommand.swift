import ArgumentParser
import Foundation
import WaymarkServer

/// `waymark compact`: moves a PostgreSQL store's finished days into chunks now.
struct CompactCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact",
        abstract: "Move the finished days of a PostgreSQL store into compact chunks now.",
        discussion: """
        PostgreSQL keeps today's points one row each (about 160 bytes a point) and every finished day
        as compact chunks (12–40 bytes a point); `waymark serve` moves each day an hour after it ends.
        Run this after a bulk import, or to compact before a backup. It runs beside a serving server;
        queries see every point throughout. SQLite stores keep one row per point and have nothing to
        compact.

        Examples:
          waymark compact --database postgres://waymark@127.0.0.1/waymark
        """)

    @Option(help: "The PostgreSQL store (a postgres:// URL).")
    var database: String = DatabaseOption.defaultLocation

    func run() async throws {
        guard StoreFactory.isPostgres(database) else {
            throw InputError("waymark compact works on PostgreSQL stores; SQLite keeps one row per point and has nothing to compact")
        }
        let moved = try await StoreFactory.withStore(at: database, logger: quietLogger) { store in
            guard let postgres = store as? PostgresStore else { throw InputError("not a PostgreSQL store") }
            return try await RetentionService(store: postgres, retentionSeconds: nil).compactOnce(postgres)
        }
        writeLine("moved \(moved) positions into chunks")
    }
}
