import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkServer

/// `waymark backup`: a consistent online copy of a SQLite store taken while ingest runs.
@Suite("Backups")
struct BackupTests {
    static func point(_ device: String, _ second: Int) -> Position {
        Position(deviceID: device, fix: Fix(coordinate: Coordinate(uncheckedLatitude: 46.05, longitude: 14.5),
                                            timestamp: Date(timeIntervalSince1970: 1_750_000_000 + Double(second))))
    }

    @Test("a backup taken during ingest holds every point acknowledged before it started, and opens as a store")
    func onlineBackup() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-backup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try SQLiteStore(path: folder.appendingPathComponent("live.sqlite").path)
        try await store.migrate()
        let device = try await DeviceRegistry.register(name: "phone", in: store).device.id
        let received = Date(timeIntervalSince1970: 1_750_032_000)
        // 300 points acknowledged one by one before the backup starts.
        for second in 0..<300 {
            _ = try await store.ingest(IngestWrite(deviceID: device, positions: [Self.point(device, second)], receivedAt: received))
        }
        let copyPath = folder.appendingPathComponent("copy.sqlite").path
        // Ingest goes on while the copy is taken.
        let writer = Task {
            for second in 300..<800 {
                _ = try await store.ingest(IngestWrite(deviceID: device, positions: [Self.point(device, second)], receivedAt: received))
            }
        }
        let copied = try await store.backup(to: copyPath)
        try await writer.value
        #expect(copied >= 300)
        let copy = try SQLiteStore(path: copyPath)
        try await copy.migrate()
        let restored = try await copy.positions(PositionQuery(deviceID: device, limit: 10_000))
        #expect(restored.count == copied)
        // Every acknowledged-before point, and the copy is a prefix of the live store (one snapshot, no gaps).
        #expect(restored.map(\.fix.timestamp) == (0..<copied).map { Date(timeIntervalSince1970: 1_750_000_000 + Double($0)) })
        #expect(try await copy.listDevices().map(\.id) == [device])
        #expect(try await store.positions(PositionQuery(deviceID: device, limit: 10_000)).count == 800)
        // The copy is private, and a backup never overwrites.
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: copyPath)[.posixPermissions] as? NSNumber)
        #expect(mode.intValue & 0o077 == 0)
        do {
            _ = try await store.backup(to: copyPath)
            Issue.record("a backup overwrote an existing file")
        } catch let error as ServerError {
            #expect(error.code == .badRequest && error.message.contains("already exists"))
        }
    }
}
