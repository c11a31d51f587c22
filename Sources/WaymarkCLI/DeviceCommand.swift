import ArgumentParser
import Foundation
import WaymarkServer

/// `waymark device …`: register, list and revoke tracking devices.
struct DeviceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "Register, list and revoke tracking devices.",
        subcommands: [Add.self, List.self, Revoke.self]
    )

    /// `waymark device add NAME`: prints the new device's token once.
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register a device and print its token (shown only once).")

        @Argument(help: "A name for the device, e.g. \"Ana's phone\".")
        var name: String

        @Option(help: "SQLite file path, or a postgres:// URL.")
        var database: String = DatabaseOption.defaultLocation

        func run() async throws { writeLine(try await output(), terminator: "") }

        func output() async throws -> String {
            let name = self.name
            let (device, token) = try await StoreFactory.withStore(at: database, logger: quietLogger) { store in
                try await DeviceRegistry.register(name: name, in: store)
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
        static let configuration = CommandConfiguration(abstract: "List devices with their last position time.")

        @Option(help: "SQLite file path, or a postgres:// URL.")
        var database: String = DatabaseOption.defaultLocation

        func run() async throws { writeLine(try await output(), terminator: "") }

        func output() async throws -> String {
            try await StoreFactory.withStore(at: database, logger: quietLogger) { store in
                var lines = ["ID\tNAME\tSTATUS\tLAST POSITION"]
                for device in try await store.listDevices() {
                    let last = try await store.lastPosition(deviceID: device.id)
                    let status = device.isActive ? "active" : "revoked"
                    let time = last.map { ISO8601DateFormatter().string(from: $0.fix.timestamp) } ?? "-"
                    lines.append("\(device.id)\t\(device.name)\t\(status)\t\(time)")
                }
                return lines.joined(separator: "\n") + "\n"
            }
        }
    }

    /// `waymark device revoke ID`.
    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a device's token; its points are kept.")

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
                throw ValidationError(error.message)
            }
            return "Revoked device \(id).\n"
        }
    }
}
