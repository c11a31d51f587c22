import ArgumentParser
import Foundation
import WaymarkServer

/// `waymark backup PATH`: a consistent online copy of a SQLite store.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy a SQLite store to a new file while the server keeps running.",
        discussion: """
        The copy is one consistent snapshot: every point acknowledged before the backup started, and
        nothing half-written. Ingest goes on meanwhile. The file must not exist yet; it is created
        readable by its owner only. Restore by pointing --database at the copy.
        For PostgreSQL use pg_dump (see Docs/SERVER.md, section 9).

        Examples:
          waymark backup /var/backups/waymark-2026-11-26.sqlite
          waymark backup copy.sqlite --database /var/lib/waymark/waymark.sqlite
        """)

    @Argument(help: "The new file to write.")
    var path: String

    @Option(help: "The SQLite file to copy.")
    var database: String = DatabaseOption.defaultLocation

    func run() async throws {
        guard !StoreFactory.isPostgres(database) else {
            throw InputError("waymark backup copies SQLite files; for PostgreSQL use pg_dump (Docs/SERVER.md, section 9)")
        }
        guard FileManager.default.fileExists(atPath: database) else {
            throw InputError("no database at \(database)")
        }
        let target = path
        let count = try await StoreFactory.withStore(at: database, logger: quietLogger) { store in
            guard let sqlite = store as? SQLiteStore else { throw InputError("not a SQLite store") }
            return try await sqlite.backup(to: target)
        }
        writeLine("backed up \(database) to \(target) (\(count) positions)")
    }
}
