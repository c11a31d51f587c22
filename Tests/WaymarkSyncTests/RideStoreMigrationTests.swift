import Foundation
import GRDB
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSync

@Suite("RideStore migrations")
struct RideStoreMigrationTests {
    @Test("a v1 store (no upload state) upgrades in place: its fixes survive and become uploadable")
    func upgradeFromV1() throws {
        let path = TestFixes.temporaryStorePath()
        defer { TestFixes.removeStore(at: path) }
        let fixes = TestFixes.ride(count: 40)
        let rideID: RideID
        do {
            let v1 = try RideStore(writer: DatabasePool(path: path, configuration: RideStore.configuration()),
                                   path: path, upTo: RideStore.Migration.v1)
            #expect(try v1.appliedMigrations() == [RideStore.Migration.v1])
            let hasBatches = try v1.read { db in try db.tableExists("upload_batches") }
            #expect(!hasBatches)
            rideID = try v1.startRide(at: TestFixes.start).id
            try TestFixes.appendAsBeforeV7(fixes, to: rideID, in: v1)
        }
        let upgraded = try RideStore(path: path)
        #expect(try upgraded.appliedMigrations() == [RideStore.Migration.v1, RideStore.Migration.v2, RideStore.Migration.v3, RideStore.Migration.v4, RideStore.Migration.v5, RideStore.Migration.v6, RideStore.Migration.v7])
        #expect(try upgraded.fixes(of: rideID) == fixes)
        let backlog = try upgraded.backlog()
        #expect(backlog.unbatchedPoints == 40)
        #expect(backlog.oldestUnbatched == fixes[0].timestamp)
        let batch = try #require(try upgraded.formBatch(maxPoints: 100, maxBytes: 1 << 20, at: TestFixes.start))
        #expect(batch.points == 40)
    }

    @Test("opening a current store again applies nothing and changes nothing")
    func reopenIsNoOp() throws {
        let path = TestFixes.temporaryStorePath()
        defer { TestFixes.removeStore(at: path) }
        let store = try RideStore(path: path)
        let ride = try store.startRide(at: TestFixes.start)
        try store.append(TestFixes.ride(count: 5), to: ride.id)
        try store.formBatch(maxPoints: 3, maxBytes: 1 << 20, at: TestFixes.start, key: "k1")
        let again = try RideStore(path: path)
        #expect(try again.appliedMigrations().count == 7)
        #expect(try again.backlog() == store.backlog())
    }

    @Test("the v2 schema keeps a fix unique per ride and millisecond at the SQL level")
    func uniqueConstraint() throws {
        let store = try RideStore.inMemory()
        let ride = try store.startRide(at: TestFixes.start)
        try store.append(TestFixes.ride(count: 1), to: ride.id)
        #expect(throws: DatabaseError.self) {
            try store.db.write { db in
                try db.execute(sql: """
                    INSERT INTO fixes (ride_id, timestamp_ms, latitude, longitude, source, payload_bytes)
                    VALUES (?, ?, 0, 0, 'gnss', 10)
                    """, arguments: [ride.id.rawValue, StoreTime.millis(TestFixes.start)])
            }
        }
    }

    @Test("a v2 store upgrades to v3: its gap markers become uploadable and the backoff starts clean")
    func upgradeFromV2() throws {
        let path = TestFixes.temporaryStorePath()
        defer { TestFixes.removeStore(at: path) }
        let rideID: RideID
        let gap: GapRecord
        do {
            let v2 = try RideStore(writer: DatabasePool(path: path, configuration: RideStore.configuration()),
                                   path: path, upTo: RideStore.Migration.v2)
            rideID = try v2.startRide(at: TestFixes.start).id
            gap = GapRecord(ride: rideID, start: TestFixes.start, end: TestFixes.start.addingTimeInterval(90), reason: "terminated")
            try v2.db.write { db in
                try db.execute(sql: "INSERT INTO gaps (ride_id, start_ms, end_ms, reason) VALUES (?, ?, ?, ?)",
                               arguments: [rideID.rawValue, StoreTime.millis(gap.start), StoreTime.millis(gap.end), gap.reason])
            }
        }
        let upgraded = try RideStore(path: path)
        #expect(try upgraded.appliedMigrations().last == RideStore.Migration.v7)
        #expect(try upgraded.gaps(of: rideID) == [gap] && upgraded.gapsAwaitingUpload() == [gap])
        #expect(try upgraded.backlog().unbatchedGaps == 1)
        #expect(try upgraded.uploadBackoff() == UploadBackoff())
        let stamp = UploadBackoff(failures: 3, retryAt: TestFixes.start.addingTimeInterval(12.5))
        try upgraded.saveUploadBackoff(stamp)
        #expect(try RideStore(path: path).uploadBackoff() == stamp, "the retry state is on disk")
    }

    @Test("a v3 store upgrades to v4: its rides and fixes stay, no ride is resumed until a checkpoint is saved")
    func v3ToV4() throws {
        let path = TestFixes.temporaryStorePath()
        defer { TestFixes.removeStore(at: path) }
        let fixes = TestFixes.ride(count: 4)
        do {
            let v3 = try RideStore(writer: try DatabasePool(path: path, configuration: RideStore.configuration()),
                                   path: path, upTo: RideStore.Migration.v3)
            try v3.startRide(id: "old", at: TestFixes.start)
            try TestFixes.appendAsBeforeV7(fixes, to: "old", in: v3)
        }
        let upgraded = try RideStore(path: path)
        #expect(try upgraded.appliedMigrations().last == RideStore.Migration.v7)
        #expect(try upgraded.fixes(of: "old") == fixes)
        #expect(try upgraded.lastCheckpoint() == nil)
        let snapshot = RideSnapshot(rideID: "old", state: .moving, startedAt: TestFixes.start, lastRecorded: fixes[3])
        try upgraded.saveCheckpoint(snapshot)
        #expect(try RideStore(path: path).lastCheckpoint() == snapshot)
    }

    @Test("a v6 store gains fix flags in place: old fixes read back with an unknown origin and no flag, new ones keep theirs")
    func v6ToV7() throws {
        let path = TestFixes.temporaryStorePath()
        defer { TestFixes.removeStore(at: path) }
        let old = TestFixes.ride(count: 3)
        do {
            let v6 = try RideStore(writer: try DatabasePool(path: path, configuration: RideStore.configuration()),
                                   path: path, upTo: RideStore.Migration.v6)
            #expect(try !v6.read { db in try db.columns(in: "fixes").contains { $0.name == "flags" } })
            try v6.startRide(id: "old", at: TestFixes.start)
            try TestFixes.appendAsBeforeV7(old, to: "old", in: v6)
        }
        let upgraded = try RideStore(path: path)
        #expect(try upgraded.appliedMigrations().last == RideStore.Migration.v7)
        let read = try upgraded.fixes(of: "old")
        #expect(read == old)
        #expect(read.allSatisfy { $0.sourceInformation == nil && !$0.impliesImpossibleSpeed })
        var marked = TestFixes.ride(count: 4, from: TestFixes.start.addingTimeInterval(10))
        marked[0].sourceInformation = Fix.SourceInformation(isSimulatedBySoftware: true, isProducedByAccessory: false)
        marked[1].sourceInformation = Fix.SourceInformation(isSimulatedBySoftware: false, isProducedByAccessory: true)
        marked[2].sourceInformation = Fix.SourceInformation(isSimulatedBySoftware: false, isProducedByAccessory: false)
        marked[3].impliesImpossibleSpeed = true
        #expect(try upgraded.append(marked, to: "old") == 4)
        #expect(try RideStore(path: path).fixes(of: "old") == old + marked)
        let formed = try #require(try upgraded.formBatch(maxPoints: 100, maxBytes: 1 << 20, at: TestFixes.start))
        let batch = try #require(try upgraded.batch(formed.key))
        #expect(batch.fixes == old + marked, "the upload batch carries the flags")
    }
}
