import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkEngine

@Suite("RideTracker duty cycling: confirmation after a good spell, turns, fence boundaries")
struct RideDutyCycleTests {
    /// A rider at `speed` m/s who goes east until `turnAt` seconds, then north; one GNSS fix a
    /// second whenever the tracker has GNSS on. Returns the harness and the seconds at which a
    /// rest began and ended.
    static func ride(seconds: Int, speed: Double = 6, turnAt: Int = .max,
                     restLimit: Double? = nil) -> (TrackerHarness, rests: [(start: Int, end: Int)]) {
        var h = TrackerHarness(RideTracker())
        h.tracker.restLimitMeters = restLimit
        h.absorb(h.tracker.start(rideID: "r1", at: Ride.at(0)))
        let corner = Geodesy.destination(from: Ride.start, bearing: 90, distance: speed * Double(turnAt - 1))
        var rests: [(start: Int, end: Int)] = []
        var restingSince: Int?
        for t in 1...seconds {
            if let due = h.tracker.nextDeadline, due <= Ride.at(Double(t)) { h.fire(at: Double(t)) }
            let gnss = h.tracker.currentSetting?.usesGNSS ?? false
            if !gnss, restingSince == nil { restingSince = t }
            if gnss, let since = restingSince { rests.append((since, t)); restingSince = nil }
            guard gnss else { continue }
            let north = t >= turnAt
            let position = north
                ? Geodesy.destination(from: corner, bearing: 0, distance: speed * Double(t - turnAt))
                : Geodesy.destination(from: Ride.start, bearing: 90, distance: speed * Double(t - 1))
            let fix = Fix(coordinate: position, horizontalAccuracy: 6, speed: speed, course: north ? 0 : 90,
                          timestamp: Ride.at(Double(t)), source: .gnss)
            h.send(.locations([fix]), at: Double(t))
        }
        return (h, rests)
    }

    @Test("after a spell whose prediction held, a few confirming fixes start the next spell")
    func confirmationAfterGoodSpell() throws {
        let (h, rests) = Self.ride(seconds: 120)
        try #require(rests.count >= 3)
        #expect(rests[0].start >= 11)                               // the first needs ten steady seconds
        for (done, next) in zip(rests, rests.dropFirst()) {
            #expect(next.start - done.end <= 5, "GNSS on \(done.end)–\(next.start)")
        }
        #expect(rests.dropFirst().contains { $0.end - $0.start > 10 })   // spells grow while predictions hold
        #expect(h.tracker.state == .moving)
    }

    @Test("after a spell the receiver restarts: the Wi-Fi positions iOS gives meanwhile are not recorded, GNSS fixes are")
    func wifiDuringHotStartSkipped() throws {
        var h = TrackerHarness(RideTracker())
        h.absorb(h.tracker.start(rideID: "r1", at: Ride.at(0)))
        var t = 1
        while h.tracker.currentSetting?.usesGNSS != false, t < 30 {
            h.send(.locations([Ride.fix(Double(t), east: 6 * Double(t - 1), speed: 6)]), at: Double(t))
            t += 1
        }
        let due = try #require(h.tracker.nextDeadline)
        let back = due.timeIntervalSince(Ride.at(0)).rounded(.up)
        h.fire(at: back)
        #expect(h.tracker.currentSetting?.usesGNSS == true)
        let before = h.recorded.count
        // Three seconds of hot start: 31 m Wi-Fi positions, 25 m off the road and without a speed.
        for s in 0..<3 {
            let time = back + Double(s)
            var wifi = Ride.fix(time, east: 6 * (time - 1), speed: 6, accuracy: 31)
            wifi.coordinate = Geodesy.destination(from: wifi.coordinate, bearing: 0, distance: 25)
            wifi.speed = nil
            wifi.course = nil
            wifi.source = .wifi
            h.send(.locations([wifi]), at: time)
        }
        #expect(h.recorded.count == before)
        h.send(.locations([Ride.fix(back + 3, east: 6 * (back + 2), speed: 6)]), at: back + 3)
        #expect(h.recorded.count == before + 1)
        #expect(h.recorded.last?.source == .gnss)
    }

    @Test("a turn during a spell: the prediction misses and the stretch must be steady for ten seconds again")
    func turnNeedsSteadinessAgain() throws {
        let (_, rests) = Self.ride(seconds: 120, turnAt: 15)
        try #require(rests.count >= 2)
        let first = rests[0]
        #expect(first.start < 15 && first.end > 15)                // the turn happened while GNSS rested
        #expect(rests[1].start - first.end >= 10)
    }

    @Test("a fence boundary ahead: a spell ends short of it, or GNSS does not rest at all")
    func fenceBoundaryLimitsRest() throws {
        let (near, nearRests) = Self.ride(seconds: 60, restLimit: 30)
        #expect(nearRests.isEmpty)
        #expect(near.tracker.dutyCycleSpells == 0)
        let (_, limited) = Self.ride(seconds: 60, restLimit: 60)
        try #require(!limited.isEmpty)
        // (60 m − 15 m tolerance) / 6 m/s = 7.5 s instead of the first spell's 10 s.
        #expect(limited.allSatisfy { $0.end - $0.start <= 8 })
        let (_, free) = Self.ride(seconds: 60)
        #expect((9...10).contains(free.first.map { $0.end - $0.start } ?? 0))
    }

    @Test("a runner's Doppler course scatters by ±10°: still steady, GNSS rests after ten seconds")
    func runnersCourseNoise() throws {
        var h = TrackerHarness(RideTracker())
        h.absorb(h.tracker.start(rideID: "r1", at: Ride.at(0)))
        var rested: Int?
        for t in 1...30 where rested == nil {
            var fix = Ride.fix(Double(t), east: 3.3 * Double(t - 1), speed: 3.3)
            fix.course = t % 2 == 0 ? 80 : 100                     // 0.3 m/s across the track at 3.3 m/s is ±5° (1σ)
            h.send(.locations([fix]), at: Double(t))
            if h.tracker.currentSetting?.usesGNSS == false { rested = t }
        }
        let start = try #require(rested)
        #expect(start >= 10 && start <= 13)
    }

    @Test("the rest horizon is the longest spell at the fix's speed plus the prediction tolerance")
    func restHorizon() {
        let tracker = RideTracker()
        #expect(tracker.restHorizonMeters(after: Ride.fix(0, east: 0, speed: 6)) == 25 * 6 + 15)
    }
}

@Suite("GeofenceMonitor: distance to the nearest boundary")
struct GeofenceBoundaryDistanceTests {
    @Test("the nearest boundary within the horizon, from outside and from inside; nil beyond it")
    func nearestBoundary() throws {
        let m = try GeofencingMonitorTests.monitor()          // boundary 1000 m east, radius 200 m
        let outside = try #require(m.nearestBoundaryDistance(to: GeofencingMonitorTests.east(700), within: 500))
        #expect(abs(outside - 300) < 1)
        #expect(m.nearestBoundaryDistance(to: GeofencingMonitorTests.east(700), within: 250) == nil)
        let inside = try #require(m.nearestBoundaryDistance(to: GeofencingMonitorTests.east(1150), within: 500))
        #expect(abs(inside - 150) < 1)
        #expect(GeofenceMonitor().nearestBoundaryDistance(to: GeofencingMonitorTests.origin, within: 10_000) == nil)
    }

    @Test("pushing the bike on a straight path at 1.6 m/s: GNSS rests too, and the track keeps its length")
    func walkingPaceIsDutyCycled() throws {
        var h = TrackerHarness(RideTracker())
        h.absorb(h.tracker.start(rideID: "r1", at: Ride.at(0)))
        h.send(.motionActivity(MotionActivity(.walking, confidence: .high)), at: 0)
        var restedSeconds = 0
        for t in 1...180 {
            if let due = h.tracker.nextDeadline, due <= Ride.at(Double(t)) { h.fire(at: Double(t)) }
            guard h.tracker.currentSetting?.usesGNSS == true else { restedSeconds += 1; continue }
            h.send(.locations([Ride.fix(Double(t), east: 1.6 * Double(t - 1), speed: 1.6)]), at: Double(t))
        }
        #expect(h.tracker.currentSetting?.accuracy == .nearestTenMeters || h.tracker.currentSetting?.usesGNSS == false)
        #expect(h.tracker.dutyCycleSpells >= 3)
        #expect(restedSeconds > 60, "GNSS rested \(restedSeconds) of 180 s")
        let first = try #require(h.recorded.first), last = try #require(h.recorded.last)
        let walked = 1.6 * last.timestamp.timeIntervalSince(first.timestamp)
        #expect(abs(h.tracker.statistics.distanceMeters - walked) < 10)
    }
}
