import Foundation
import GRDB
import WaymarkEngine
import WaymarkGeo

extension RideStore {
    /// The phone's copy of the server's fences (``FenceSync``).
    ///
    /// A `Sendable` value type.
    public struct FenceCopy: Hashable, Sendable {
        /// The ETag of the fetch it came from.
        public var etag: String?
        /// When it was last fetched or confirmed unchanged.
        public var fetched: Date
        /// Where the phone was then, when known.
        public var position: Coordinate?
        /// The fences.
        public var fences: [Fence]

        /// Makes a copy.
        public init(etag: String?, fetched: Date, position: Coordinate?, fences: [Fence]) {
            self.etag = etag
            self.fetched = fetched
            self.position = position
            self.fences = fences
        }
    }

    /// The stored copy of the server's fences, or nil before the first fetch.
    ///
    /// - throws: ``SyncError`` `.storage` when the store cannot be read or the copy cannot be decoded.
    public func fenceCopy() throws -> FenceCopy? {
        let row = try read { db in try Row.fetchOne(db, sql: "SELECT * FROM server_fence_copy WHERE id = 1") }
        guard let row else { return nil }
        let fences: [Fence]
        do {
            fences = try JSONDecoder().decode([Fence].self, from: Data((row["fences"] as String).utf8))
        } catch {
            throw SyncError(.storage, "the stored copy of the server's fences cannot be read: \(error)")
        }
        var position: Coordinate?
        if let latitude = row["latitude"] as Double?, let longitude = row["longitude"] as Double? {
            position = Coordinate(uncheckedLatitude: latitude, longitude: longitude)
        }
        return FenceCopy(etag: row["etag"], fetched: StoreTime.date(row["fetched_ms"]), position: position, fences: fences)
    }

    /// Replaces the stored copy in one transaction.
    ///
    /// - throws: ``SyncError`` `.storage` when the write fails (the old copy stays).
    public func saveFenceCopy(_ copy: FenceCopy) throws {
        let json: String
        do {
            json = String(decoding: try JSONEncoder().encode(copy.fences), as: UTF8.self)
        } catch {
            throw SyncError(.storage, "cannot encode \(copy.fences.count) fences: \(error)")
        }
        try write { db in
            try db.execute(sql: """
                INSERT INTO server_fence_copy (id, etag, fetched_ms, latitude, longitude, fences) VALUES (1, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET etag = excluded.etag, fetched_ms = excluded.fetched_ms,
                    latitude = excluded.latitude, longitude = excluded.longitude, fences = excluded.fences
                """, arguments: [copy.etag, StoreTime.millis(copy.fetched), copy.position?.latitude, copy.position?.longitude, json])
        }
    }
}
