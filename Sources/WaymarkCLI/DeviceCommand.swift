import ArgumentParser
import Foundation
import WaymarkServer
import WaymarkGeo

/// `waymark device …`: register, list and revoke tracking devices.
struct DeviceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "Register, list and revoke tracking devices.",
        discussion: """
        Works on the server's database directly (stop nothing: SQLite in WAL mode and PostgreSQL
        both allow it while the server runs). The default database is $WAYMARK_DATABASE, else
        waymark.sqlite in the current directory.

        Examples:
          waymark device add "Ana's phone"
          waymark device list --json
          waymark device revoke d_k3v9x2m8qa
        """,
        subcommands: [Add.self, List.self, Revoke.self]
    )

    /// One device as `--json` prints it.
    struct Row: Hashable, Sendable, Codable {
        var id: String
        var name: String
        var active: Bool
        var createdAt: Date
        var revokedAt: Date?
        var lastPositionAt: Date?
        /// Only from `device add`: the token, shown once.
        var token: String?
    }

    /// `waymark device add NAME`: prints the new device's token once.
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register a device and print its token (shown only once).",
            discussion: """
            Examples:
              waymark device add "Ana's phone"
              waymark device add van-7 --json --database postgres://waymark@db/waymark
            """)

        @Argument(help: "A name for the device, e.g. \"Ana's phone\".")
        var name: String

        @Option(help: "SQLite file path, or a postgres:// URL.")
        var database: String = DatabaseOption.defaultLocation

        @Flag(help: "Print the device and its token as JSON.")
        var json = false

        func run() async throws { writeLine(try await output(), terminator: "") }

        func output() async throws -> String {
            let name = self.name
            let (device, token) = try await StoreFactory.withStore(at: database, logger: quietLogger) { store in
                try await DeviceRegistry.register(name: name, in: store)
            }
            if json {
                return try jsonText(Row(id: device.id, name: device.name, active: true, createdAt: device.createdAt, token: token))
            }
            return """
            Registered device \(device.id) (\(device.name)).
            Token (shown only now; the server keeps only its SHA-256 digest):
              \(token)
            Use it as 'Authorization: Bearer TOKEN', as the OwnTracks password, or as the OsmAnd/Traccar device id.

            """
        }
    }

    /// `waymark device list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List devices with their last position time.",
            discussion: """
            Examples:
              waymark device list
              waymark device list --json
            """)

        @Option(help: "SQLite file path, or a postgres:// URL.")
        var database: String = DatabaseOption.defaultLocation

        @Flag(help: "Print the devices as a JSON array.")
        var json = false

        func run() async throws { writeLine(try await output(), terminator: "") }

        func output() async throws -> String {
            let rows = try await StoreFactory.withStore(at: database, logger: quietLogger) { store in
                var rows: [Row] = []
                for device in try await store.listDevices() {
                    let last = try await store.lastPosition(deviceID: device.id)
                    rows.append(Row(id: device.id, name: device.name, active: device.isActive, createdAt: device.createdAt,
                                    revokedAt: device.revokedAt, lastPositionAt: last?.fix.timestamp))
                }
                return rows
            }
            if json { return try jsonText(rows) }
            var lines = ["ID\tNAME\tSTATUS\tLAST POSITION"]
            for row in rows {
                let time = row.lastPositionAt.map { ISO8601DateFormatter().string(from: $0) } ?? "-"
                lines.append("\(row.id)\t\(row.name)\t\(row.active ? "active" : "revoked")\t\(time)")
            }
            return lines.joined(separator: "\n") + "\n"
        }
    }

    /// `waymark device revoke ID`.
    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a device's token; its points are kept.",
            discussion: """
            Examples:
              waymark device revoke d_k3v9x2m8qa
            """)

        @Argument(help: "The device id (see 'waymark device list').")
        var id: String

        @Option(help: "SQLite file path, or a postgres:// URL.")
        var database: String = DatabaseOption.defaultLocation

        func run() async throws { writeLine(try await output(), terminator: "") }

        func output() async throws -> String {
            let id = self.id
            do {
                try await StoreFactory.withStore(at: database, logger: quietLogger) { store in try await DeviceRegistry.revoke(id: id, in: store) }
            } catch let error as ServerError where error.code == .notFound {
                throw InputError(error.message)
            }
            return "Revoked device \(id).\n"
        }
    }
}

/// `value` as pretty, key-sorted JSON with ISO-8601 dates and a final newline.
func jsonText(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
}
