import Foundation
import Testing
@testable import WaymarkServer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Database file permissions (issue #15, finding L3): location history and webhook secrets must not
/// be readable by other local users.
@Suite("Database file permissions", .serialized)
struct FilePermissionTests {
    /// The permission bits of the file at `path`, or nil when it does not exist.
    static func mode(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_mode) & 0o777
    }

    /// Runs `body` in a fresh temporary directory under umask 022 (the usual default), restoring the umask after.
    static func inDirectory(_ body: (URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-perm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let previous = umask(0o022)
        defer { umask(previous) }
        try await body(directory)
    }

    @Test("a new SQLite store's main, -wal and -shm files are 0600 under umask 022")
    func newStoreIsPrivate() async throws {
        try await Self.inDirectory { directory in
            let path = directory.appendingPathComponent("new.sqlite").path
            let store = try SQLiteStore(path: path)
            try await store.migrate()
            _ = try await DeviceRegistry.register(name: "phone", in: store, at: Date())
            #expect(store.permissionWarning == nil)
            // In WAL mode a write leaves the -wal and -shm files next to the database while it is open.
            for file in [path, path + "-wal", path + "-shm"] {
                let mode = try #require(Self.mode(file), "\(file) does not exist")
                #expect(mode == 0o600, "\(file) has mode \(String(mode, radix: 8))")
            }
        }
    }

    @Test("an existing file keeps its mode; a shared one is reported, a private one is not")
    func existingFileKeepsMode() async throws {
        try await Self.inDirectory { directory in
            let shared = directory.appendingPathComponent("shared.sqlite").path
            #expect(FileManager.default.createFile(atPath: shared, contents: nil,
                                                   attributes: [.posixPermissions: 0o644]))
            let store = try SQLiteStore(path: shared)
            try await store.migrate()
            #expect(Self.mode(shared) == 0o644)
            let warning = try #require(store.permissionWarning)
            #expect(warning.contains(shared))
            #expect(warning.contains("mode 644"))
            #expect(warning.contains("chmod 600"))

            let owned = directory.appendingPathComponent("owned.sqlite").path
            _ = try SQLiteStore(path: owned)
            let reopened = try SQLiteStore(path: owned)
            #expect(reopened.permissionWarning == nil)
            #expect(Self.mode(owned) == 0o600)
        }
    }
}
