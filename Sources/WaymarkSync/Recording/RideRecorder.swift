import Foundation
import Logging
import WaymarkEngine
import WaymarkGeo

/// Takes everything the engine records into the device store: a ride's fixes, gap markers and
/// checkpoints, in the order the engine recorded them, and the geofence events it decides.
///
/// The one piece between `engine.ride.recorded` and ``RideStore``, so no app code sits on the
/// path where points could be lost. A checkpoint names the ride the following fixes and gaps
/// belong to (the engine checkpoints a ride when it starts, with every fix and at every state
/// change); the recorder creates the ride's row from it and keeps the latest snapshot, which
/// ``RideStore/lastCheckpoint()`` hands back after a relaunch.
///
/// ```swift
/// let store = try RideStore(path: storeURL.path)
/// let engine = Engine(device: device, ride: try store.lastCheckpoint())
/// let recorder = try RideRecorder(store: store)
/// let records = await engine.ride.recorded.subscribe()    // before engine.run()
/// let events = await engine.geofences.events.subscribe()
/// Task { await recorder.record(records) { await driver.recorded() } }
/// Task { await recorder.record(fenceEvents: events) { await driver.recorded() } }
/// ```
///
/// Each entry is written in its own transaction before the next is read, so a kill loses at most
/// the entry being written, never one already stored.
///
/// The recorder keeps the store within its ``retention`` limits (``RideStore/enforceRetention(_:now:)``):
/// when it is made, and after every ``retentionCheckInterval`` stored fixes. Ages count back from
/// the newest fix recorded (the device's own clock, virtual in the simulator), so a phone that
/// records nothing new keeps what it has. Thread safety: an actor.
public actor RideRecorder {
    /// The store the entries go to.
    public nonisolated let store: RideStore
    /// The ride the next fix or gap belongs to: the one of the latest checkpoint.
    public private(set) var currentRide: RideID?
    /// The limits the store is kept within.
    public nonisolated let retention: RetentionLimits
    /// Fixes stored between two checks of the limits.
    public static let retentionCheckInterval = 1_000
    private var fixesSinceCheck = 0
    private let logger = Logger(label: "waymark.recorder")

    /// A recorder into `store`, continuing the ride under way there, if any, and first bringing the
    /// store within `retention`.
    ///
    /// - throws: ``SyncError`` (`.storage`) when the store cannot be read or written.
    public init(store: RideStore, retention: RetentionLimits = RetentionLimits()) throws {
        self.store = store
        self.retention = retention
        currentRide = try store.lastCheckpoint()?.rideID
        let report = try store.enforceRetention(retention, now: try store.newestFixTime() ?? Date())
        if report.droppedPoints > 0 {
            logger.warning("retention limits dropped \(report.droppedPoints) points the server never took; gap markers say where")
        }
    }

    /// Stores one entry.
    ///
    /// - returns: whether the entry added something to upload (a new fix or a gap marker).
    /// - throws: ``SyncError``: `.notFound` for a fix or gap before any ride was checkpointed,
    ///   `.storage` when the store cannot be written.
    @discardableResult
    public func record(_ entry: RideEntry) throws -> Bool {
        switch entry {
        case .checkpoint(let snapshot):
            try store.saveCheckpoint(snapshot)
            currentRide = snapshot.rideID
            return false
        case .fix(let fix):
            let added = try store.append([fix], to: try ride(for: "a fix at \(fix.timestamp)")) > 0
            fixesSinceCheck += 1
            if fixesSinceCheck >= Self.retentionCheckInterval {
                fixesSinceCheck = 0
                let report = try store.enforceRetention(retention, now: fix.timestamp)
                if report.droppedPoints > 0 {
                    logger.warning("retention limits dropped \(report.droppedPoints) points the server never took; gap markers say where")
                }
            }
            return added
        case .gap(let gap):
            try store.recordGap(GapRecord(ride: try ride(for: "a gap marker from \(gap.start)"), start: gap.start,
                                          end: gap.end, reason: gap.reason.rawValue))
            return true
        }
    }

    /// Stores every entry of `entries` (a subscription to `engine.ride.recorded`) until it ends
    /// (the engine stopped), calling
    /// `recorded` after each entry that added something to upload, typically
    /// `UploadDriver.recorded()`.
    ///
    /// An entry the store refuses is logged (`waymark.recorder`, error level) with the reason,
    /// and recording goes on with the next.
    public func record(_ entries: AsyncStream<RideEntry>, then recorded: @Sendable () async -> Void = {}) async {
        for await entry in entries {
            do {
                if try record(entry) { await recorded() }
            } catch {
                logger.error("cannot store a ride entry: \(error)")
            }
        }
    }

    /// Stores one geofence event the engine decided (ride or no ride).
    ///
    /// - returns: whether the event was new (a replayed one is stored once).
    /// - throws: ``SyncError`` (`.storage`) when the store cannot be written.
    @discardableResult
    public func record(_ event: FenceEvent) throws -> Bool {
        try store.recordFenceEvent(event)
    }

    /// Stores every geofence event of `events` (a subscription to `engine.geofences.events`) until
    /// it ends, calling `recorded` after each new one, typically `UploadDriver.recorded()`: with the
    /// queue's default ``UploadQueue/Configuration/maxFenceEventAge`` of 0 the event is on its way
    /// to the server at once.
    ///
    /// An event the store refuses is logged (`waymark.recorder`, error level) with the reason.
    public func record(fenceEvents events: AsyncStream<FenceEvent>, then recorded: @Sendable () async -> Void = {}) async {
        for await event in events {
            do {
                if try record(event) { await recorded() }
            } catch {
                logger.error("cannot store the fence event \(event.fenceID) #\(event.sequence): \(error)")
            }
        }
    }

    private func ride(for what: String) throws -> RideID {
        guard let currentRide else {
            throw SyncError(.notFound, "\(what) arrived before any ride checkpoint; start a ride with engine.ride.start(rideID:)")
        }
        return currentRide
    }
}
