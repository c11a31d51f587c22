import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkEngine

/// A long park under current iOS (issue #14): significant changes wake the app every 15 minutes
/// and hand out cached fixes, neither of which is movement; the watch ends an hour after the stop
/// so iOS can suspend the app; the wake fence goes up at the stop.
@Suite("RideTracker: a long park (idle wakes, cached fixes, the watch's end, relaunches)")
struct RideTrackerParkTests {
    /// Ridden east at 5 m/s for a minute, then parked 300 m east of the start from second 61 to `until`.
    static func parked(until: Int = 300) -> TrackerHarness {
        var h = RideTrackerTests.riding()
        h.stand(from: 61, to: until, east: 300)
        return h
    }

    /// A coarse significant-change fix `metres` east of the start, measured at `seconds`.
    static func coarse(_ seconds: Double, east metres: Double, accuracy: Double) -> Fix {
        Fix(coordinate: Geodesy.destination(from: Ride.start, bearing: 90, distance: metres), horizontalAccuracy: accuracy,
            timestamp: Ride.at(seconds), source: accuracy < 500 ? .wifi : .cell)
    }

    @Test("the wake fence is registered when the ride auto-pauses, not only after the hold")
    func fenceAtStop() throws {
        var h = RideTrackerTests.riding()
        h.stand(from: 61, to: 90, east: 300)
        try #require(h.tracker.state == .autoPaused)
        #expect(h.standard?.accuracy == .best)                 // still the hold
        let fences = h.commands.compactMap { if case .startMonitoring(let r) = $0 { r } else { nil } }
        #expect(fences.map(\.identifier) == [RideTracker.wakeFenceIdentifier])
        #expect(h.tracker.snapshot?.wakeFenceActive == true)
        #expect(h.tracker.snapshot?.stoppedAt != nil)
    }

    @Test("an idle wake or a cached fix near the stop is no movement: GNSS stays off, during the watch and after it")
    func idleWakesKeepGNSSOff() throws {
        var h = Self.parked()
        try #require(h.standard?.accuracy == .threeKilometers)
        // The idle wake's fix: Wi-Fi level, 120 m off the stop (within twice its accuracy plus the fence radius).
        h.send(.significantChange(Self.coarse(1_200, east: 420, accuracy: 150)), at: 1_200)
        #expect(h.tracker.currentSetting?.usesGNSS == false)
        // A cell-level one far off, but with an accuracy that covers it.
        h.send(.significantChange(Self.coarse(2_100, east: 1_800, accuracy: 1_200)), at: 2_100)
        #expect(h.tracker.currentSetting?.usesGNSS == false)
        let end = try #require(h.tracker.nextDeadline)
        h.fire(at: end.timeIntervalSince(Ride.origin))
        #expect(h.standard == nil)
        // After the watch: a cached fix from before the stop (the service restarted) is no movement either.
        h.send(.significantChange(Self.coarse(40, east: 5_000, accuracy: 65)), at: 5_000)
        h.send(.significantChange(Self.coarse(6_000, east: 360, accuracy: 300)), at: 6_000)
        #expect(h.standard == nil)
        #expect(h.tracker.demands == [.significantChanges])
        #expect(h.tracker.state == .autoPaused)
    }

    @Test("a significant change clearly away from the stop turns GNSS on to check, during the watch and after it")
    func farSignificantChangeChecks() throws {
        var watching = Self.parked()
        watching.send(.significantChange(Self.coarse(1_200, east: 1_500, accuracy: 200)), at: 1_200)
        #expect(watching.tracker.currentSetting?.usesGNSS == true)
        var sleeping = Self.parked()
        let end = try #require(sleeping.tracker.nextDeadline)
        sleeping.fire(at: end.timeIntervalSince(Ride.origin))
        try #require(sleeping.standard == nil)
        sleeping.send(.significantChange(Self.coarse(9_000, east: 1_500, accuracy: 200)), at: 9_000)
        #expect(sleeping.tracker.currentSetting?.usesGNSS == true)
        sleeping.ride(from: 9_001, to: 9_020, speed: 5, offset: 1_500)
        #expect(sleeping.tracker.state == .moving)
    }

    @Test("a check during the watch does not prolong it: the watch ends an hour after the hold, whatever was checked")
    func checksDoNotProlongTheWatch() throws {
        var h = Self.parked()
        let watchEnd = try #require(h.tracker.nextDeadline)
        #expect(abs(watchEnd.timeIntervalSince(Ride.origin) - (81 + 120 + 3_600)) < 2)   // stopped at about 81 s
        h.send(.motionActivity(MotionActivity(.walking, confidence: .high)), at: 3_000)
        try #require(h.tracker.currentSetting?.usesGNSS == true)
        h.stand(from: 3_001, to: 3_100, east: 300)               // still there: back to the watch
        #expect(h.standard?.accuracy == .threeKilometers)
        #expect(h.tracker.nextDeadline == watchEnd)
        // A check that outlasts the watch's end goes to sleep at once.
        h.send(.motionActivity(MotionActivity(.walking, confidence: .high)), at: 3_780)
        h.stand(from: 3_781, to: 3_900, east: 300)
        #expect(h.standard == nil)
        #expect(h.tracker.demands == [.significantChanges])
    }

    @Test("relaunched in the background long after the stop: no GNSS until an event shows movement; opened by the user: GNSS checks")
    func relaunchDuringLongPark() throws {
        var parked = Self.parked()
        let end = try #require(parked.tracker.nextDeadline)
        parked.fire(at: end.timeIntervalSince(Ride.origin))
        let stored = try #require(parked.tracker.snapshot)
        try #require(stored.state == .autoPaused && stored.wakeFenceActive)

        var h = TrackerHarness(RideTracker(configuration: TrackerHarness.steady, restoring: stored))
        h.send(.launched(reason: .background), at: 9_000)
        #expect(h.tracker.state == .autoPaused)
        #expect(h.standard == nil)
        h.send(.significantChange(Self.coarse(9_000, east: 340, accuracy: 100)), at: 9_000)   // the idle wake that relaunched it
        #expect(h.standard == nil)
        h.send(.regionExited(identifier: RideTracker.wakeFenceIdentifier), at: 12_000)        // the rider left
        #expect(h.tracker.state == .moving)
        #expect(h.standard?.accuracy == .best)

        var opened = TrackerHarness(RideTracker(configuration: TrackerHarness.steady, restoring: stored))
        opened.send(.launched(reason: .user), at: 9_000)
        #expect(opened.tracker.currentSetting?.usesGNSS == true)
    }
}
