import Foundation
import GRDB
import WaymarkEngine
import WaymarkGeo

extension RideStore {
    /// Most geofence events that travel in one upload batch; the rest wait for the next batch.
    public static let maxFenceEventsPerBatch = 200

    /// Stores a geofence event the engine decided; committed when this returns.
    ///
    /// Events are named by fence and `FenceEvent.sequence` (which survives relaunches): storing
    /// an event a second time does nothing. The event rides along in the next upload batch, after
    /// its fixes and gap markers, whether or not a ride is under way.
    ///
    /// - returns: whether the event was new.
    /// - throws: ``SyncError`` with code `.storage` when the write fails.
    @discardableResult
    public func recordFenceEvent(_ event: FenceEvent) throws -> Bool {
        let json: String
        do {
            json = String(decoding: try Self.eventEncoder.encode(event), as: UTF8.self)
        } catch {
            throw SyncError(.storage, "cannot encode the fence event \(event.fenceID) #\(event.sequence): \(error)")
        }
        return try write { db in
            try db.execute(sql: """
                INSERT OR IGNORE INTO fence_events (fence_id, sequence, kind, time_ms, delivered_ms, event)
                VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [event.fenceID, Int64(clamping: event.sequence), event.kind.rawValue,
                                 StoreTime.millis(event.time), StoreTime.millis(event.deliveredAt), json])
            return db.changesCount > 0
        }
    }

    /// The geofence events on the device, in the order they were stored: all of them, or only
    /// those the server has not acknowledged yet.
    ///
    /// - throws: ``SyncError`` with code `.storage` when the read fails or a row cannot be decoded.
    public func fenceEvents(awaitingUploadOnly: Bool = false) throws -> [FenceEvent] {
        let rows = try read { db in
            try String.fetchAll(db, sql: "SELECT event FROM fence_events \(awaitingUploadOnly ? "WHERE uploaded = 0 " : "")ORDER BY id")
        }
        return try rows.map(Self.fenceEvent(from:))
    }

    static func fenceEvent(from json: String) throws -> FenceEvent {
        do {
            return try eventDecoder.decode(FenceEvent.self, from: Data(json.utf8))
        } catch {
            throw SyncError(.storage, "a stored fence event cannot be read: \(error)")
        }
    }

    /// Fence events are stored as JSON with times in milliseconds since 1970.
    static var eventEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = .sortedKeys
        return encoder
    }

    static var eventDecoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }
}

extension NativeBatchFormat.FenceEvent {
    /// The wire form of an event the engine decided.
    public init(_ event: WaymarkEngine.FenceEvent) {
        var coordinate: Coordinate?, accuracy: Double?
        let cause: String
        switch event.cause {
        case .fix(let fix):
            cause = "fix"
            coordinate = fix.coordinate
            accuracy = fix.horizontalAccuracy
        case .region: cause = "region"
        case .regionState: cause = "regionState"
        case .elapsed: cause = "elapsed"
        }
        self.init(fenceID: event.fenceID, event: event.kind.rawValue, time: event.time, earliest: event.earliest,
                  latest: event.latest, deliveredAt: event.deliveredAt, timing: event.timing.rawValue,
                  sequence: event.sequence, cause: cause, coordinate: coordinate, horizontalAccuracy: accuracy,
                  userData: event.userData)
    }
}
