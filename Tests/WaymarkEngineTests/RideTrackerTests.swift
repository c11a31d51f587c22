import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkEngine

@Suite("RideTracker: states, stops, the low-power watch, relaunch")
struct RideTrackerTests {
    /// A ride started at 0 and ridden east at 5 m/s for a minute.
    static func riding() -> TrackerHarness {
        var h = TrackerHarness()
        h.absorb(h.tracker.start(rideID: "r1", at: Ride.at(0)))
        h.ride(from: 1, to: 60, speed: 5)
        return h
    }

    @Test("start records with GNSS in the background, significant changes on, motion updates started")
    func startDemands() {
        var h = TrackerHarness()
        h.absorb(h.tracker.start(rideID: "r1", at: Ride.at(0)))
        #expect(h.tracker.state == .moving)
        #expect(h.commands.contains(.startMotionActivityUpdates))
        #expect(h.standard?.accuracy == .best)
        #expect(h.standard?.background == true)
        #expect(h.standard?.pausesAutomatically == false)
        #expect(h.tracker.demands.contains(.significantChanges))
    }

    @Test("user pause, resume and stop: nothing is recorded while paused, nothing is demanded after the end")
    func userTransitions() {
        var h = Self.riding()
        let before = h.recorded.count
        h.absorb(h.tracker.pause(at: Ride.at(61)))
        #expect(h.tracker.state == .userPaused)
        #expect(h.standard == nil)
        h.ride(from: 62, to: 70, speed: 5, offset: 300)
        #expect(h.recorded.count == before)
        h.absorb(h.tracker.resume(at: Ride.at(71)))
        #expect(h.tracker.state == .moving)
        h.ride(from: 72, to: 80, speed: 5, offset: 350)
        #expect(h.recorded.count > before)
        h.absorb(h.tracker.stop(at: Ride.at(81)))
        #expect(h.states == [.moving, .userPaused, .moving, .ended])
        #expect(h.tracker.demands.isEmpty)
        #expect(h.commands.contains(.stopMotionActivityUpdates))
    }

    @Test("standing still auto-pauses; riding away from the stop resumes within a few fixes")
    func autoPauseBySpeed() throws {
        var h = Self.riding()
        h.stand(from: 61, to: 100, east: 300)
        #expect(h.tracker.state == .autoPaused)
        #expect(h.standard?.accuracy == .best)            // traffic light: GNSS stays on for the hold
        h.ride(from: 101, to: 120, speed: 5, offset: 300)
        #expect(h.tracker.state == .moving)
        let resumedAt = try #require(h.recorded.first { $0.timestamp > Ride.at(100) })
        #expect(resumedAt.timestamp <= Ride.at(105))
    }

    @Test("a long stop: GNSS off, cell-level watch that iOS never pauses, significant changes, one wake fence")
    func stationaryWatch() throws {
        var h = Self.riding()
        h.stand(from: 61, to: 300, east: 300)
        #expect(h.tracker.state == .autoPaused)
        let watch = try #require(h.standard)
        #expect(watch.accuracy == .threeKilometers)
        #expect(watch.pausesAutomatically == false)
        #expect(h.tracker.demands.contains(.significantChanges))
        let fences = h.commands.compactMap { if case .startMonitoring(let r) = $0 { r } else { nil } }
        #expect(fences.count == 1)
        let fence = try #require(fences.first)
        #expect(fence.identifier.hasPrefix(RideTracker.regionPrefix))
        #expect(Geodesy.haversineDistance(fence.center, Ride.fix(0, east: 300, speed: 0).coordinate) < 20)
        // The watch keeps the app running for up to an hour, so motion can wake GNSS soon after the rider leaves.
        let watchEnds = try #require(h.tracker.nextDeadline).timeIntervalSince(Ride.origin)
        #expect(watchEnds > 3_000 + 300)
        h.fire(at: watchEnds)
        #expect(h.standard == nil)                          // after the watch only significant changes and the fence
        #expect(h.tracker.demands == [.significantChanges])
    }

    @Test("leaving the wake fence resumes at once and removes the fence")
    func wakeFenceExit() {
        var h = Self.riding()
        h.stand(from: 61, to: 300, east: 300)
        h.send(.regionExited(identifier: RideTracker.wakeFenceIdentifier), at: 400)
        #expect(h.tracker.state == .moving)
        #expect(h.commands.contains(.stopMonitoring(identifier: RideTracker.wakeFenceIdentifier)))
        #expect(h.standard?.accuracy == .best)
    }

    @Test("motion during the watch turns GNSS on to check; moving away resumes, staying put returns to the watch")
    func motionWakes() {
        var h = Self.riding()
        h.stand(from: 61, to: 300, east: 300)
        h.send(.motionActivity(MotionActivity(.walking, confidence: .high)), at: 310)
        #expect(h.tracker.currentSetting?.usesGNSS == true)
        #expect(h.tracker.state == .autoPaused)
        var still = h
        still.stand(from: 311, to: 420, east: 300)
        #expect(still.tracker.state == .autoPaused)
        #expect(still.standard?.accuracy == .threeKilometers)
        h.ride(from: 311, to: 330, speed: 5, offset: 300)
        #expect(h.tracker.state == .moving)
    }

    @Test("stationary motion with medium confidence auto-pauses even before the speed says so")
    func motionStops() {
        var h = Self.riding()
        h.send(.motionActivity(MotionActivity(.stationary, confidence: .medium)), at: 61)
        #expect(h.tracker.state == .autoPaused)
    }

    @Test("after a kill, a significant-change relaunch resumes the ride with a gap marker from the last fix to the next")
    func relaunchAfterKill() throws {
        let before = Self.riding()
        let stored = try #require(before.lastSnapshot)
        let data = try JSONEncoder().encode(stored)
        var h = TrackerHarness(RideTracker(configuration: TrackerHarness.steady,
                                           restoring: try JSONDecoder().decode(RideSnapshot.self, from: data)))
        h.send(.launched(reason: .location), at: 400)
        #expect(h.tracker.state == .moving)
        #expect(h.standard?.accuracy == .best)
        h.ride(from: 420, to: 430, speed: 5, offset: 2000)
        let gap = try #require(h.gaps.first)
        #expect(h.gaps.count == 1)
        #expect(gap.reason == .terminated)
        #expect(gap.start == stored.lastRecorded?.timestamp)
        #expect(gap.end == Ride.at(420))
        #expect(h.tracker.statistics.distanceMeters > stored.statistics.distanceMeters + 1500)   // the straight line counts
    }

    @Test("killed while auto-paused at a stop: after the relaunch the ride resumes with a gap marker over the stop")
    func relaunchAfterKillAtStop() throws {
        var paused = Self.riding()
        paused.send(.motionActivity(MotionActivity(.stationary, confidence: .high)), at: 61)
        let stored = try #require(paused.lastSnapshot)
        try #require(stored.state == .autoPaused)
        var h = TrackerHarness(RideTracker(configuration: TrackerHarness.steady, restoring: stored))
        h.send(.launched(reason: .location), at: 120)
        h.send(.motionActivity(MotionActivity(.cycling, confidence: .high)), at: 121)
        h.ride(from: 130, to: 140, speed: 5, offset: 600)
        #expect(h.tracker.state == .moving)
        let gap = try #require(h.gaps.first)
        #expect(h.gaps.count == 1)
        #expect(gap.reason == .terminated)
        #expect(gap.start == stored.lastRecorded?.timestamp)
        #expect(gap.end == h.recorded.first?.timestamp)
    }

    @Test("opened by the user after a force-quit: the ride resumes then, and the gap says why")
    func resumeOnUserOpen() throws {
        let stored = try #require(Self.riding().lastSnapshot)
        var h = TrackerHarness(RideTracker(configuration: TrackerHarness.steady, restoring: stored))
        h.send(.launched(reason: .user), at: 3600)
        h.ride(from: 3610, to: 3615, speed: 5, offset: 9000)
        #expect(h.gaps.map(\.reason) == [.notRunningUntilOpened])
    }

    @Test("filters: a stale cached fix and a Wi-Fi fix are not recorded; an impossible jump is recorded flagged")
    func filtersApplied() throws {
        var h = TrackerHarness()
        h.absorb(h.tracker.start(rideID: "r1", at: Ride.at(100)))
        h.send(.locations([Ride.fix(-200, east: 0, speed: 0, accuracy: 8)]), at: 100)          // cached, 5 min old
        h.send(.locations([Ride.fix(101, east: 5, speed: 5, accuracy: 80)]), at: 101)          // Wi-Fi accuracy
        h.ride(from: 102, to: 110, speed: 5)
        h.send(.locations([Ride.fix(111, east: 5000, speed: 5)]), at: 111)                     // 5 km in a second
        #expect(h.recorded.count == 10)
        #expect(h.recorded.allSatisfy { $0.timestamp >= Ride.at(102) && $0.timestamp <= Ride.at(111) })
        let jump = try #require(h.recorded.last)
        #expect(jump.impliesImpossibleSpeed)
        #expect(jump.coordinate == Ride.fix(111, east: 5000, speed: 5).coordinate)   // kept as measured, not smoothed
        #expect(h.recorded.dropLast().allSatisfy { !$0.impliesImpossibleSpeed })
    }

    @Test("a planted jump is kept flagged but adds no distance and does not drag the track or the next fix")
    func plantedJump() throws {
        var clean = TrackerHarness(), jumped = TrackerHarness()
        clean.absorb(clean.tracker.start(rideID: "r1", at: Ride.at(0)))
        jumped.absorb(jumped.tracker.start(rideID: "r1", at: Ride.at(0)))
        for t in 1...60 {
            let fix = Ride.fix(Double(t), east: 5 * Double(t - 1), speed: 5)
            clean.send(.locations([fix]), at: Double(t))
            // At 30 s the receiver reports a position 3 km north, then carries on as if nothing happened.
            let planted = t == 30 ? Fix(coordinate: Geodesy.destination(from: fix.coordinate, bearing: 0, distance: 3_000),
                                        horizontalAccuracy: 5, speed: 5, course: 90, timestamp: fix.timestamp, source: .gnss) : fix
            jumped.send(.locations([planted]), at: Double(t))
        }
        let flagged = jumped.recorded.filter(\.impliesImpossibleSpeed)
        #expect(flagged.map(\.timestamp) == [Ride.at(30)])
        // The clean ride records the 30 s fix; the other records its flagged stand-in instead, so the counts match.
        #expect(jumped.recorded.count == clean.recorded.count)
        // Distance and moving time: the jump's 6 km there and back are not in the ride; the ride loses only the
        // one 30 s fix (its two 5 m steps become one 10 m step), so the totals match to within a few metres.
        #expect(abs(jumped.tracker.statistics.distanceMeters - clean.tracker.statistics.distanceMeters) < 5,
                "\(jumped.tracker.statistics.distanceMeters) vs \(clean.tracker.statistics.distanceMeters)")
        #expect(jumped.tracker.statistics.movingSeconds == clean.tracker.statistics.movingSeconds)
        // Every unflagged fix after the jump is where the clean ride put it: the Kalman state never saw the jump.
        let after = jumped.recorded.filter { !$0.impliesImpossibleSpeed && $0.timestamp > Ride.at(30) }
        let cleanAfter = clean.recorded.filter { $0.timestamp > Ride.at(30) }
        #expect(after.count == cleanAfter.count)
        for (a, b) in zip(after, cleanAfter) {
            #expect(Geodesy.haversineDistance(a.coordinate, b.coordinate) < 15, "at \(a.timestamp)")
        }
        // Statistics and checkpoints follow only unflagged fixes: one per unflagged recorded fix.
        let published = jumped.updates.filter { if case .statistics = $0 { true } else { false } }
        #expect(published.count == jumped.recorded.count - 1)
        #expect(jumped.lastSnapshot?.lastRecorded?.impliesImpossibleSpeed == false)
    }

    @Test("a run of impossible fixes is trusted again after the filter's limit: the ride follows a real relocation")
    func relocationAfterRun() throws {
        var h = TrackerHarness()
        h.absorb(h.tracker.start(rideID: "r1", at: Ride.at(0)))
        h.ride(from: 1, to: 20, speed: 5)
        // From 21 s every fix is 20 km away: the first five are flagged, then the filter takes the new place.
        h.ride(from: 21, to: 40, speed: 5, offset: 20_000)
        let flagged = h.recorded.filter(\.impliesImpossibleSpeed).map(\.timestamp)
        #expect(flagged == (21...25).map { Ride.at(Double($0)) })
        #expect(h.recorded.last.map { !$0.impliesImpossibleSpeed } == true)
    }

    @Test("live statistics: distance, moving time and speed after each recorded fix")
    func liveStatistics() throws {
        let h = Self.riding()
        let stats = h.tracker.statistics
        #expect(abs(stats.distanceMeters - 295) < 15)
        #expect(abs(stats.movingSeconds - 59) < 1.5)
        #expect(abs((stats.currentSpeed ?? 0) - 5) < 0.5)
        #expect(abs((stats.averageMovingSpeed ?? 0) - 5) < 0.3)
        let published = h.updates.compactMap { if case .statistics(let s) = $0 { s } else { nil } }
        #expect(published.count == h.recorded.count)
    }

    @Test("moving time leaves out an auto-paused stop, including the stretch up to the first fix after it")
    func movingTimeExcludesStops() throws {
        var h = Self.riding()                              // 0–60 s riding
        h.stand(from: 61, to: 400, east: 300)              // a long stop: auto-paused
        #expect(h.tracker.state == .autoPaused)
        h.ride(from: 401, to: 460, speed: 5, offset: 300)  // and off again
        #expect(h.tracker.state == .moving)
        let moving = h.tracker.statistics.movingSeconds
        // About 60 s before the stop and under 60 s after it; the 340 s stop is not moving time.
        #expect(moving > 90 && moving < 140, "moving \(moving) s")
    }

    @Test("duty cycling: on a steady straight stretch GNSS rests for a spell, then comes back on")
    func dutyCycling() throws {
        var h = TrackerHarness(RideTracker())
        h.absorb(h.tracker.start(rideID: "r1", at: Ride.at(0)))
        var rested: Double?
        for t in 1...60 {
            h.ride(from: t, to: t, speed: 6, offset: 6 * Double(t - 1))
            if rested == nil, h.tracker.currentSetting?.usesGNSS == false { rested = Double(t) }
        }
        let start = try #require(rested)
        #expect(start >= 10 && start <= 15)                  // after ten steady seconds
        #expect(h.tracker.dutyCycleSpells >= 2)
        #expect(h.tracker.state == .moving)
        // The rests cost no distance on a straight line: the statistics reach the last recorded fix.
        let first = try #require(h.recorded.first), last = try #require(h.recorded.last)
        let ridden = 6 * last.timestamp.timeIntervalSince(first.timestamp)
        #expect(ridden > 250)
        #expect(abs(h.tracker.statistics.distanceMeters - ridden) < 20)
    }
}
