import Foundation
import GRDB
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSync

/// The device's own geofence events on the shipping path (issue #31 item 2): stored once, carried in
/// the next upload batch after the fixes and gap markers (with or without a ride), kept until the
/// server acknowledged them, and sent at once by default.
@Suite("Geofence events in the device store and the upload queue")
struct FenceEventUploadTests {
    static func event(_ fence: String, _ kind: FenceEvent.Kind, sequence: UInt64, at seconds: Double) -> FenceEvent {
        let time = TestFixes.start.addingTimeInterval(seconds)
        let fix = Fix(coordinate: Coordinate(uncheckedLatitude: 46.05, longitude: 14.5), horizontalAccuracy: 9, timestamp: time)
        return FenceEvent(fenceID: fence, kind: kind, time: time, cause: .fix(fix), sequence: sequence, userData: ["site": "north"],
                          earliest: time.addingTimeInterval(-5), latest: time, deliveredAt: time.addingTimeInterval(1), timing: .live)
    }

    @Test("an event is stored once by fence and sequence, and read back whole")
    func storedOnce() throws {
        let store = try RideStore.inMemory()
        let enter = Self.event("school", .enter, sequence: 1, at: 10)
        #expect(try store.recordFenceEvent(enter))
        #expect(try store.recordFenceEvent(enter) == false, "a replayed delivery is not stored again")
        let regional = FenceEvent(fenceID: "school", kind: .exit, time: TestFixes.start.addingTimeInterval(400),
                                  cause: .region(identifier: "wm.school", entered: false), sequence: 2,
                                  latest: TestFixes.start.addingTimeInterval(500), deliveredAt: TestFixes.start.addingTimeInterval(500),
                                  timing: .osDelayed)
        #expect(try store.recordFenceEvent(regional))
        #expect(try store.fenceEvents() == [enter, regional])
        let backlog = try store.backlog()
        #expect(backlog.unbatchedFenceEvents == 2 && backlog.hasUnbatched)
        #expect(backlog.oldestUnbatchedFenceEvent == enter.deliveredAt)
    }

    @Test("events ride in the next batch after the fixes and gap markers; acknowledged, they stay, marked uploaded")
    func batchedAfterFixes() throws {
        let store = try RideStore.inMemory()
        let ride = try store.startRide(at: TestFixes.start)
        let fixes = TestFixes.ride(count: 5)
        try store.append(fixes, to: ride.id)
        try store.recordGap(GapRecord(ride: ride.id, start: fixes[1].timestamp, end: fixes[2].timestamp, reason: "terminated"))
        let events = [Self.event("school", .enter, sequence: 1, at: 2), Self.event("school", .dwell, sequence: 2, at: 4)]
        for event in events { try store.recordFenceEvent(event) }
        let formed = try #require(try store.formBatch(maxPoints: 100, maxBytes: 1 << 20, at: TestFixes.start, key: "A"))
        #expect(formed.points == 5)
        let batch = try #require(try store.batch("A"))
        #expect(batch.fixes == fixes && batch.gaps.count == 1 && batch.fenceEvents == events)
        #expect(try store.backlog().unbatchedFenceEvents == 0)

        let body = NativeBatchFormat(deviceID: "phone").body(for: batch)
        let decoded = try NativeBatchFormat.decode(body)
        #expect(decoded.fixes.count == 5 && decoded.gaps.count == 1)
        #expect(decoded.fenceEvents == events.map(NativeBatchFormat.FenceEvent.init))
        let text = String(decoding: body, as: UTF8.self)
        let gapAt = try #require(text.range(of: #""waymark_kind":"gap""#)), eventAt = try #require(text.range(of: #""waymark_kind":"fence_event""#))
        #expect(gapAt.lowerBound < eventAt.lowerBound, "events come last, so a rejected index below the fix count names a fix")
        #expect(decoded.fenceEvents.first?.coordinate == Coordinate(uncheckedLatitude: 46.05, longitude: 14.5))
        #expect(decoded.fenceEvents.first?.userData == ["site": "north"] && decoded.fenceEvents.first?.cause == "fix")

        try store.acknowledge(batch: "A")
        #expect(try store.batch("A") == nil)
        #expect(try store.fenceEvents() == events, "kept on the device as history")
        #expect(try store.fenceEvents(awaitingUploadOnly: true).isEmpty)
        #expect(try store.backlog().isEmpty)
        #expect(try store.formBatch(maxPoints: 100, maxBytes: 1 << 20, at: TestFixes.start) == nil, "nothing is sent twice")
    }

    @Test("without a ride, events alone form a batch; a batch holds at most maxFenceEventsPerBatch of them")
    func eventsOnly() throws {
        let store = try RideStore.inMemory()
        let count = RideStore.maxFenceEventsPerBatch + 3
        for n in 1...count { try store.recordFenceEvent(Self.event("f\(n % 7)", .enter, sequence: UInt64(n), at: Double(n))) }
        let first = try #require(try store.formBatch(maxPoints: 100, maxBytes: 1 << 20, at: TestFixes.start, key: "E1"))
        #expect(first.points == 0)
        #expect(try store.batch("E1")?.fenceEvents.count == RideStore.maxFenceEventsPerBatch)
        #expect(try store.backlog().unbatchedFenceEvents == 3)
        _ = try #require(try store.formBatch(maxPoints: 100, maxBytes: 1 << 20, at: TestFixes.start, key: "E2"))
        #expect(try store.batch("E2")?.fenceEvents.map(\.sequence) == [UInt64(count - 2), UInt64(count - 1), UInt64(count)])
    }

    @Test("a split batch keeps its events with the first half; a kill before the acknowledgement keeps them pending")
    func splitAndReopen() throws {
        let path = TestFixes.temporaryStorePath()
        defer { TestFixes.removeStore(at: path) }
        do {
            let store = try RideStore(path: path)
            let ride = try store.startRide(at: TestFixes.start)
            try store.append(TestFixes.ride(count: 4), to: ride.id)
            try store.recordFenceEvent(Self.event("school", .enter, sequence: 1, at: 1))
            _ = try store.formBatch(maxPoints: 100, maxBytes: 1 << 20, at: TestFixes.start, key: "S")
            let halves = try #require(try store.split(batch: "S"))
            #expect(halves.map(\.key) == ["S.a", "S.b"])
            #expect(try store.batch("S.a")?.fenceEvents.count == 1 && store.batch("S.b")?.fenceEvents.isEmpty == true)
        }
        let reopened = try RideStore(path: path)      // the process died before any answer
        #expect(try reopened.batch("S.a")?.fenceEvents.map(\.fenceID) == ["school"])
        #expect(try reopened.fenceEvents(awaitingUploadOnly: true).count == 1)
    }

    @Test("a v4 store gains the event table in place, its fixes untouched")
    func upgradeFromV4() throws {
        let path = TestFixes.temporaryStorePath()
        defer { TestFixes.removeStore(at: path) }
        let fixes = TestFixes.ride(count: 3)
        do {
            let v4 = try RideStore(writer: DatabasePool(path: path, configuration: RideStore.configuration()),
                                   path: path, upTo: RideStore.Migration.v4)
            let ride = try v4.startRide(at: TestFixes.start)
            try TestFixes.appendAsBeforeV7(fixes, to: ride.id, in: v4)
            #expect(try !v4.read { db in try db.tableExists("fence_events") })
        }
        let upgraded = try RideStore(path: path)
        #expect(try upgraded.appliedMigrations().last == RideStore.Migration.v7)
        #expect(try upgraded.backlog().unbatchedPoints == 3)
        #expect(try upgraded.recordFenceEvent(Self.event("school", .enter, sequence: 1, at: 1)))
    }

    @Test("the queue forms a batch for a stored event at once by default, and after maxFenceEventAge when set")
    func queueSendsEventsPromptly() {
        let t0 = TestFixes.start
        let waiting = UploadBacklog(unbatchedPoints: 3, unbatchedBytes: 600, oldestUnbatched: t0,
                                    unbatchedFenceEvents: 1, oldestUnbatchedFenceEvent: t0.addingTimeInterval(20))
        var prompt = UploadQueue(configuration: UploadQueue.Configuration(maxBatchAge: 120), backlog: UploadBacklog(), seed: 1)
        #expect(prompt.handle(.backlogChanged(waiting), at: t0.addingTimeInterval(20)) == [.formBatch(maxPoints: 500, maxBytes: 256 * 1024)])

        var patient = UploadQueue(configuration: UploadQueue.Configuration(maxBatchAge: 120, maxFenceEventAge: 60),
                                  backlog: UploadBacklog(), seed: 1)
        #expect(patient.handle(.backlogChanged(waiting), at: t0.addingTimeInterval(20)).isEmpty)
        #expect(patient.nextDeadline == t0.addingTimeInterval(80), "the event's age decides, before the fixes' 120 s")
        #expect(patient.deadlineReached(at: t0.addingTimeInterval(80)) == [.formBatch(maxPoints: 500, maxBytes: 256 * 1024)])

        // Without events, the fixes wait their maxBatchAge as before.
        var fixesOnly = UploadQueue(configuration: UploadQueue.Configuration(maxBatchAge: 120), backlog: UploadBacklog(), seed: 1)
        #expect(fixesOnly.handle(.backlogChanged(UploadBacklog(unbatchedPoints: 3, unbatchedBytes: 600, oldestUnbatched: t0)),
                                 at: t0.addingTimeInterval(20)).isEmpty)
        #expect(fixesOnly.nextDeadline == t0.addingTimeInterval(120))
    }

    @Test("the recorder stores the engine's events and tells the driver after each new one")
    func recorderStoresEvents() async throws {
        let store = try RideStore.inMemory()
        let recorder = try RideRecorder(store: store)
        let (stream, continuation) = AsyncStream.makeStream(of: FenceEvent.self)
        let events = [Self.event("school", .enter, sequence: 1, at: 1), Self.event("school", .exit, sequence: 2, at: 9)]
        for event in events + [events[0]] { continuation.yield(event) }
        continuation.finish()
        let told = Counter()
        await recorder.record(fenceEvents: stream) { await told.increment() }
        #expect(try store.fenceEvents() == events)
        #expect(await told.value == 2, "a replayed event is not news")
    }

    actor Counter {
        var value = 0
        func increment() { value += 1 }
    }
}
