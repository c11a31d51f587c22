import Foundation
import GRDB
import Testing
import WaymarkGeo
@testable import WaymarkSync

@Suite("RideStore: rides, fixes, gaps, durability")
struct RideStoreTests {
    @Test("a file store uses WAL and applies every migration")
    func freshFileStore() throws {
        let path = TestFixes.temporaryStorePath()
        defer { TestFixes.removeStore(at: path) }
        let store = try RideStore(path: path)
        #expect(try store.journalMode() == "wal")
        #expect(try store.appliedMigrations() == [RideStore.Migration.v1, RideStore.Migration.v2, RideStore.Migration.v3, RideStore.Migration.v4, RideStore.Migration.v5, RideStore.Migration.v6, RideStore.Migration.v7])
    }

    @Test("appended fixes are on disk: a second store opened on the file sees them")
    func appendIsDurable() throws {
        let path = TestFixes.temporaryStorePath()
        defer { TestFixes.removeStore(at: path) }
        let store = try RideStore(path: path)
        let ride = try store.startRide(at: TestFixes.start, policy: "cycling")
        let fixes = TestFixes.ride(count: 30)
        #expect(try store.append(fixes, to: ride.id) == 30)
        let reopened = try RideStore(path: path)
        let read = try reopened.fixes(of: ride.id)
        #expect(read == fixes)
        #expect(try reopened.ride(ride.id)?.policy == "cycling")
    }

    @Test("a fix with a timestamp the ride already has is skipped, not stored twice")
    func duplicateTimestampsSkipped() throws {
        let store = try RideStore.inMemory()
        let ride = try store.startRide(at: TestFixes.start)
        let fixes = TestFixes.ride(count: 10)
        try store.append(fixes, to: ride.id)
        #expect(try store.append(Array(fixes[5...]) + TestFixes.ride(count: 2, from: TestFixes.start.addingTimeInterval(100)),
                                 to: ride.id) == 2)
        #expect(try store.fixCount() == 12)
        let other = try store.startRide(at: TestFixes.start)
        #expect(try store.append(fixes, to: other.id) == 10, "the same times in another ride are distinct fixes")
    }

    @Test("appending to an unknown ride fails with notFound and stores nothing")
    func unknownRide() throws {
        let store = try RideStore.inMemory()
        #expect { try store.append(TestFixes.ride(count: 3), to: RideID()) } throws: { error in
            (error as? SyncError)?.code == .notFound
        }
        #expect(try store.fixCount() == 0)
    }

    @Test("ride state, policy and end are updated; gap markers come back in order")
    func ridesAndGaps() throws {
        let store = try RideStore.inMemory()
        let ride = try store.startRide(at: TestFixes.start)
        let end = TestFixes.start.addingTimeInterval(3600)
        try store.updateRide(ride.id, state: "ended", policy: "walking", ended: end)
        let read = try #require(try store.ride(ride.id))
        #expect(read.state == "ended" && read.policy == "walking" && read.ended == end)
        let later = GapRecord(ride: ride.id, start: TestFixes.start.addingTimeInterval(900),
                              end: TestFixes.start.addingTimeInterval(1200), reason: "terminated")
        let earlier = GapRecord(ride: ride.id, start: TestFixes.start.addingTimeInterval(60),
                                end: TestFixes.start.addingTimeInterval(90), reason: "tunnel")
        try store.recordGap(later)
        try store.recordGap(earlier)
        #expect(try store.gaps(of: ride.id) == [earlier, later])
        #expect(try store.rides().map(\.id) == [ride.id])
    }
}
