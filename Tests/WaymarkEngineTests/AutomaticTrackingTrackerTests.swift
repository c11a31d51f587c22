import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo

/// The ride tracker's automatic tracking (issue #31) as a pure state machine: still, checking,
/// riding, the stop timeout, and the rider's taps winning.
@Suite("Automatic tracking in the ride tracker")
struct AutomaticTrackingTrackerTests {
    static func automatic(_ change: (inout AutomaticTracking) -> Void = { _ in }) -> RideTracker.Configuration {
        var c = TrackerHarness.steady
        c.automatic.enabled = true
        change(&c.automatic)
        return c
    }

    /// A launched tracker that found its resting place at the start (GNSS check at launch, then rest).
    static func resting(_ change: (inout AutomaticTracking) -> Void = { _ in }) -> TrackerHarness {
        var h = TrackerHarness(RideTracker(configuration: automatic(change)))
        h.send(.launched(reason: .user), at: 0)
        h.stand(from: 1, to: 10, east: 0)
        h.fire(at: 90)
        return h
    }

    @Test("a relaunch with no stored ride takes the wake fence iOS kept as the resting place; without it, GNSS looks for one")
    func relaunchFromTheWakeFenceIOSKept() {
        let configuration = EngineCore.Configuration(ride: Self.automatic())
        let wake = MonitoredRegion(identifier: RideTracker.wakeFenceIdentifier, center: Ride.start, radiusMeters: 150)
        // A fresh install killed before its first ride, relaunched by the stationary region's exit.
        var kept = EngineCore(configuration: configuration)
        kept.osWakeRegion = wake
        var out = kept.handle(.launched(reason: .location), at: Ride.at(600))
        #expect(kept.rideTracker.automaticState == .still)
        #expect(!kept.rideTracker.demands.contains { if case .standard = $0 { true } else { false } }, "no GNSS to look for a place")
        #expect(!out.commands.contains { if case .startMonitoring = $0 { true } else { false } }, "iOS still monitors the region")
        out = kept.handle(.regionExited(identifier: RideTracker.wakeFenceIdentifier), at: Ride.at(601))
        #expect(kept.rideTracker.automaticState == .checking)
        var recorded: [Fix] = []
        for t in 602...700 {
            out = kept.handle(.locations([Ride.fix(Double(t), east: 600 + 6 * Double(t - 602), speed: 6)]), at: Ride.at(Double(t)))
            recorded += out.updates.compactMap { if case .ride(.recorded(let fix)) = $0 { fix } else { nil } }
            if let due = kept.nextDeadline, due <= Ride.at(Double(t)) {
                recorded += kept.deadlineReached(at: Ride.at(Double(t))).updates.compactMap { if case .ride(.recorded(let fix)) = $0 { fix } else { nil } }
            }
        }
        #expect(kept.rideTracker.automaticState == .riding)
        #expect(recorded.first?.coordinate == Ride.start, "the ride begins at the place: \(String(describing: recorded.first))")
        // A device that cannot tell the region's centre: GNSS looks for a place at once, and the ride
        // would begin where the device is found, 600 m on.
        var lost = EngineCore(configuration: configuration)
        _ = lost.handle(.launched(reason: .location), at: Ride.at(600))
        #expect(lost.rideTracker.automaticState == .checking)
        #expect(lost.rideTracker.demands.contains { if case .standard = $0 { true } else { false } })
        // Another region of the same identifier prefix is not taken for it.
        var other = EngineCore(configuration: configuration)
        other.osWakeRegion = MonitoredRegion(identifier: "waymark.fence.x", center: Ride.start, radiusMeters: 150)
        _ = other.handle(.launched(reason: .location), at: Ride.at(600))
        #expect(other.rideTracker.automaticState == .checking)
    }

    @Test("off by default: a launch without a ride asks for nothing")
    func offByDefault() {
        var h = TrackerHarness()
        h.send(.launched(reason: .user), at: 0)
        #expect(h.commands.isEmpty)
        #expect(h.tracker.demands.isEmpty)
        #expect(h.tracker.automaticState == .off)
        h.send(.motionActivity(MotionActivity(.cycling, confidence: .high)), at: 5)
        h.ride(from: 6, to: 60, speed: 6)
        #expect(h.recorded.isEmpty)
        #expect(h.tracker.state == .idle)
    }

    @Test("on: a launch checks with GNSS to find the resting place, then only the region (and significant changes when on) watch")
    func findsRestingPlace() {
        var h = TrackerHarness(RideTracker(configuration: Self.automatic()))
        h.send(.launched(reason: .user), at: 0)
        #expect(h.commands.contains(.startMotionActivityUpdates))
        #expect(h.standard?.accuracy == .best || h.standard?.accuracy == .bestForNavigation)
        #expect(h.tracker.automaticState == .checking)
        h.stand(from: 1, to: 10, east: 0)
        #expect(h.commands.contains { if case .startMonitoring(let r) = $0 { r.identifier == RideTracker.wakeFenceIdentifier && r.radiusMeters == 150 } else { false } })
        h.fire(at: 90)
        #expect(h.tracker.automaticState == .still)
        #expect(h.tracker.demands.isEmpty)
        #expect(h.tracker.state == .idle)
        #expect(h.recorded.isEmpty)
        var withChanges = Self.resting { $0.usesSignificantChanges = true }
        #expect(withChanges.tracker.demands == [.significantChanges])
        // Near the place, a significant change dates the rest; clearly away, GNSS checks.
        let near = Fix(coordinate: Ride.start, horizontalAccuracy: 40, timestamp: Ride.at(900), source: .cell)
        withChanges.send(.significantChange(near), at: 900)
        #expect(withChanges.tracker.automaticState == .still)
        let far = Fix(coordinate: Geodesy.destination(from: Ride.start, bearing: 0, distance: 900), horizontalAccuracy: 100,
                      timestamp: Ride.at(1500), source: .cell)
        withChanges.send(.significantChange(far), at: 1500)
        #expect(withChanges.tracker.automaticState == .checking)
    }

    @Test("a moving activity makes GNSS check; fixes clearly away start a ride at the resting place, with a gap up to the first fix on the move")
    func startsFromMotion() throws {
        var h = Self.resting()
        h.send(.motionActivity(MotionActivity(.cycling, confidence: .medium)), at: 600)
        #expect(h.tracker.automaticState == .checking)
        h.ride(from: 605, to: 640, speed: 6, offset: 120)
        #expect(h.tracker.state == .moving)
        #expect(h.tracker.automaticState == .riding)
        let snapshot = try #require(h.lastSnapshot)
        #expect(snapshot.startedAutomatically)
        #expect(snapshot.rideID.rawValue.hasPrefix("auto-"))
        let first = try #require(h.recorded.first)
        #expect(Geodesy.haversineDistance(first.coordinate, Ride.start) < 10, "the ride begins at the resting place")
        #expect(h.gaps.map(\.reason) == [.departureNotRecorded])
        #expect(h.commands.contains(.stopMonitoring(identifier: RideTracker.wakeFenceIdentifier)))
    }

    @Test("receiver wander at the resting place during a check starts no ride")
    func wanderIsNoStart() {
        var h = Self.resting()
        h.send(.motionActivity(MotionActivity(.walking, confidence: .medium)), at: 600)
        for t in 601...690 {
            let wobble = 12 * sin(Double(t) / 7)
            h.send(.locations([Ride.fix(Double(t), east: wobble, speed: 0.3, accuracy: 20)]), at: Double(t))
        }
        h.fire(at: 690)
        #expect(h.tracker.state == .idle)
        #expect(h.tracker.automaticState == .still)
        #expect(h.recorded.isEmpty)
    }

    @Test("auto-paused for the stop timeout, the ride ends and the tracker is still around the stop; the next start is a new ride")
    func stopTimeoutEndsRide() throws {
        var h = Self.resting { $0.stopTimeoutSeconds = 300 }
        h.send(.regionExited(identifier: RideTracker.wakeFenceIdentifier), at: 600)
        h.ride(from: 600, to: 700, speed: 6, offset: 300)
        let firstRide = try #require(h.lastSnapshot?.rideID)
        h.stand(from: 701, to: 760, east: 300 + 600)
        #expect(h.tracker.state == .autoPaused)
        let timeout = try #require(h.tracker.nextDeadline)
        h.fire(at: timeout.timeIntervalSince(Ride.origin))
        h.fire(at: 1100)
        #expect(h.tracker.state == .ended)
        #expect(h.tracker.automaticState == .still)
        #expect(h.tracker.demands.isEmpty)
        #expect(h.lastSnapshot?.stopAnchor != nil, "the snapshot keeps the resting place for a relaunch")
        h.send(.motionActivity(MotionActivity(.cycling, confidence: .high)), at: 2000)
        h.ride(from: 2001, to: 2060, speed: 6, offset: 1000)
        #expect(h.tracker.state == .moving)
        #expect(h.lastSnapshot?.rideID != firstRide)
    }

    @Test("a relaunch after the stop timeout resumes the still state from the snapshot, and a fence exit starts a ride")
    func relaunchFromSnapshot() throws {
        var h = Self.resting { $0.stopTimeoutSeconds = 300 }
        h.send(.motionActivity(MotionActivity(.cycling, confidence: .high)), at: 600)
        h.ride(from: 600, to: 700, speed: 6, offset: 300)
        h.stand(from: 701, to: 760, east: 900)
        h.fire(at: 1100)
        let stored = try #require(h.lastSnapshot)
        #expect(stored.state == .ended)
        var relaunched = TrackerHarness(RideTracker(configuration: Self.automatic(), restoring: stored))
        relaunched.send(.launched(reason: .location), at: 5000)
        #expect(relaunched.tracker.automaticState == .still, "the resting place is known: no check at launch")
        relaunched.send(.regionExited(identifier: RideTracker.wakeFenceIdentifier), at: 5001)
        #expect(relaunched.tracker.automaticState == .checking)
        relaunched.ride(from: 5005, to: 5030, speed: 6, offset: 900 + 400)
        #expect(relaunched.tracker.state == .moving)
        let first = try #require(relaunched.recorded.first)
        #expect(Geodesy.haversineDistance(first.coordinate, Geodesy.destination(from: Ride.start, bearing: 90, distance: 900)) < 15)
        #expect(relaunched.gaps.first?.reason == .departureNotRecorded)
    }

    @Test("the rider's taps win: a start while still is the rider's ride; after a stop, movement starts nothing until the device rested")
    func manualWins() throws {
        var h = Self.resting()
        h.absorb(h.tracker.start(rideID: "mine", at: Ride.at(500)))
        #expect(h.lastSnapshot?.startedAutomatically == false)
        #expect(h.commands.contains(.stopMonitoring(identifier: RideTracker.wakeFenceIdentifier)))
        h.ride(from: 501, to: 600, speed: 6)
        h.absorb(h.tracker.stop(at: Ride.at(601)))
        #expect(h.tracker.state == .ended)
        h.send(.motionActivity(MotionActivity(.cycling, confidence: .high)), at: 610)
        #expect(h.tracker.automaticState == .still, "disarmed: riding on after the tap starts no check")
        h.ride(from: 611, to: 700, speed: 6, offset: 700)
        #expect(h.tracker.state == .ended)
        h.send(.motionActivity(MotionActivity(.stationary, confidence: .high)), at: 800)
        #expect(h.tracker.automaticState == .checking, "rested: GNSS finds the new resting place")
    }

    @Test("without motion the fallback decides: location events only, or coarse updates while still")
    func motionFallback() {
        var events = Self.resting()
        events.tracker.motionUnavailable = true
        #expect(events.tracker.demands.isEmpty)
        var coarse = Self.resting { $0.withoutMotion = .coarseUpdates }
        coarse.tracker.motionUnavailable = true
        #expect(coarse.standard != nil)
        #expect(coarse.standard?.accuracy != .best)
        // A coarse fix clearly away from the resting place makes GNSS check.
        let away = Fix(coordinate: Geodesy.destination(from: Ride.start, bearing: 90, distance: 800), horizontalAccuracy: 65,
                       timestamp: Ride.at(700), source: .wifi)
        coarse.send(.locations([away]), at: 700)
        #expect(coarse.tracker.automaticState == .checking)
    }
}
