import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkEngine

/// iOS region events are minutes late, sometimes never come, and do not arrive while the app is
/// dead (issue #14, PLATFORM.md §5): fixes decide while they flow, OS events are marked late, and
/// a fix-based check catches up what iOS missed.
@Suite("GeofenceMonitor copes with late and missing iOS region events")
struct GeofencingCatchUpTests {
    typealias M = GeofencingMonitorTests
    static let region = GeofenceMonitor.Configuration().regionIdentifier(forFence: "shop")

    static func at(_ t: Double) -> Date { M.t0.addingTimeInterval(t) }
    static func events(_ out: GeofenceMonitor.Output) -> [FenceEvent] {
        out.updates.compactMap { if case .event(let e) = $0 { e } else { nil } }
    }
    static func fixAnswer(_ m: inout GeofenceMonitor, _ east: Double, at t: Double, accuracy: Double = 5) -> [FenceEvent] {
        events(m.handle(.locations([M.fix(east, at: t, accuracy: accuracy)]), at: at(t)))
    }
    /// A monitor that entered the shop from fixes at t = 1 and was stored, then restored as after a relaunch.
    static func relaunchedInside(_ configuration: GeofenceMonitor.Configuration = .init()) throws -> GeofenceMonitor {
        var m = try M.monitor([M.shop], configuration)
        #expect(M.walk(&m, [0, 1100]).map(\.kind) == [.enter])
        let data = try JSONEncoder().encode(m.persistentState)
        return GeofenceMonitor(configuration: configuration,
                               restoring: try JSONDecoder().decode(GeofenceMonitor.PersistentState.self, from: data))
    }

    // MARK: - 1. Fresh fixes decide

    @Test("while fixes flow, a late iOS event for a crossing the fixes decided, and one contradicting them, deliver nothing")
    func fixesNeverWaitForIOS() throws {
        var m = try M.monitor()
        let enter = M.walk(&m, (0..<20).map { 900 + Double($0) * 25 })      // enters at t = 5 (1025 m)
        #expect(enter.map(\.kind) == [.enter])
        #expect(enter.first?.timing == .live)
        #expect(enter.first?.time == Self.at(5))
        #expect(enter.first?.earliest == Self.at(3))                         // 975 m: the last fix beyond the margin
        #expect(enter.first?.latest == Self.at(5))
        #expect(enter.first?.deliveredAt == Self.at(5))
        for t in 20..<300 { _ = m.handle(.locations([M.fix(1200, at: Double(t))]), at: Self.at(Double(t))) }
        // iOS's own enter, four minutes late, while fixes still flow: no duplicate.
        #expect(Self.events(m.handle(.regionEntered(identifier: Self.region), at: Self.at(246.5))).isEmpty)
        // An exit the fresh fixes contradict: ignored.
        #expect(Self.events(m.handle(.regionExited(identifier: Self.region), at: Self.at(250.5))).isEmpty)
        #expect(m.presence(of: "shop") == .inside)
        #expect(!m.wantsFix)
    }

    @Test("after GNSS stops, iOS's late echo of a crossing the fixes decided is checked with a fix, not delivered")
    func lateEchoIsChecked() throws {
        var m = try M.monitor()
        #expect(M.walk(&m, [900, 1100]).map(\.kind) == [.enter])            // t = 1
        #expect(M.walk(&m, [950], from: 60).map(\.kind) == [.exit])          // t = 60; GNSS stops
        // iOS's enter for the crossing at t = 1 arrives 5 minutes later, with no fresh fix.
        #expect(Self.events(m.handle(.regionEntered(identifier: Self.region), at: Self.at(300))).isEmpty)
        #expect(m.demands.contains(.oneFix(.best)))
        #expect(m.presence(of: "shop") == .outside)
        #expect(Self.fixAnswer(&m, 940, at: 305).isEmpty)                   // the check: still outside
        #expect(!m.wantsFix)
        // iOS's exit for the crossing at t = 60 agrees with the presence: nothing.
        #expect(Self.events(m.handle(.regionExited(identifier: Self.region), at: Self.at(330))).isEmpty)
        // A genuine entry later (no recent position crossing of that kind): delivered as iOS reports it.
        let enter = Self.events(m.handle(.regionEntered(identifier: Self.region), at: Self.at(3000)))
        #expect(enter.map(\.kind) == [.enter])
        #expect(enter.first?.timing == .osDelayed)
    }

    @Test("an echo check that gets no fix in time drops the echo")
    func echoCheckTimesOut() throws {
        var m = try M.monitor()
        _ = M.walk(&m, [900, 1100])
        _ = M.walk(&m, [950], from: 60)
        _ = m.handle(.regionEntered(identifier: Self.region), at: Self.at(300))
        #expect(m.nextDeadline == Self.at(360))
        let out = m.deadlineReached(at: Self.at(360))
        #expect(Self.events(out).isEmpty)
        #expect(!m.wantsFix)
        #expect(m.presence(of: "shop") == .outside)
    }

    // MARK: - 2. OS events are marked late

    @Test("with only iOS region monitoring, an event is delivered on arrival, marked osDelayed, its time estimated within its bounds")
    func osDelayedTiming() throws {
        var m = try M.monitor()
        _ = M.walk(&m, [0])                                                  // outside, far, at t = 0
        let enter = Self.events(m.handle(.regionEntered(identifier: Self.region), at: Self.at(600)))
        let e = try #require(enter.first)
        #expect(e.kind == .enter && e.timing == .osDelayed)
        #expect(e.cause == .region(identifier: Self.region, entered: true))
        #expect(e.deliveredAt == Self.at(600) && e.latest == Self.at(600))
        #expect(e.earliest == M.t0)                                          // the last fix had it outside
        #expect(e.time == Self.at(600 - 240))                                // iOS's typical delay
        #expect(e.delay == 240)

        // A later known position on the old side clamps the estimate.
        var n = try M.monitor()
        _ = M.walk(&n, [0])
        _ = M.walk(&n, [800], from: 500)
        let clamped = try #require(Self.events(n.handle(.regionEntered(identifier: Self.region), at: Self.at(600))).first)
        #expect(clamped.earliest == Self.at(500))
        #expect(clamped.time == Self.at(500))
    }

    @Test("several crossings decided by fixes: each of iOS's late echoes is matched, none delivered again")
    func severalEchoes() throws {
        var m = try M.monitor()
        var kinds = M.walk(&m, [900, 1100]).map(\.kind)                        // enter at 1
        kinds += M.walk(&m, [950], from: 60).map(\.kind)                       // exit at 60
        kinds += M.walk(&m, [1100], from: 200).map(\.kind)                     // enter at 200
        kinds += M.walk(&m, [950], from: 260).map(\.kind)                      // exit at 260; GNSS stops
        #expect(kinds == [.enter, .exit, .enter, .exit])
        var late: [FenceEvent] = []
        for (t, entered) in [(300.0, true), (330.0, false), (500.0, true), (520.0, false)] {
            let event: DeviceEvent = entered ? .regionEntered(identifier: Self.region) : .regionExited(identifier: Self.region)
            late += Self.events(m.handle(event, at: Self.at(t)))
            if m.wantsFix { late += Self.fixAnswer(&m, 950, at: t + 5) }       // the check: outside
        }
        #expect(late.isEmpty)
        #expect(m.presence(of: "shop") == .outside)
    }

    @Test("an iOS exit from a fence the monitor never saw the device enter delivers the missed entry first")
    func missedCrossingInferred() throws {
        var m = try M.monitor()
        _ = M.walk(&m, [0])                                                   // found outside
        #expect(Self.events(m.handle(.regionEntered(identifier: Self.region), at: Self.at(600))).map(\.kind) == [.enter])
        #expect(Self.events(m.handle(.regionExited(identifier: Self.region), at: Self.at(900))).map(\.kind) == [.exit])
        // iOS misses the next entry and reports only the exit.
        let pair = Self.events(m.handle(.regionExited(identifier: Self.region), at: Self.at(2000)))
        #expect(pair.map(\.kind) == [.enter, .exit])
        #expect(pair.allSatisfy { $0.timing == .osDelayed && $0.deliveredAt == Self.at(2000) })
        #expect(pair.map(\.sequence) == [3, 4])
        // No position since the last exit: the missed entry is placed a typical delay before iOS's exit.
        #expect(pair.map(\.time) == [Self.at(2000 - 480), Self.at(2000 - 240)])
        #expect(pair.allSatisfy { $0.earliest == nil })
        #expect(m.presence(of: "shop") == .outside)

        // Not for a fence under 200 m (iOS's side of it is not the fence's), not when off.
        let small = Fence(id: "shop", shape: .circle(center: M.east(1200), radiusMeters: 150))
        for (fence, configuration) in [(small, GeofenceMonitor.Configuration()), (M.shop, .init(infersMissedCrossings: false))] {
            var n = try M.monitor([fence], configuration)
            _ = M.walk(&n, [0])
            _ = n.handle(.regionEntered(identifier: Self.region), at: Self.at(600))
            _ = n.handle(.regionExited(identifier: Self.region), at: Self.at(900))
            #expect(Self.events(n.handle(.regionExited(identifier: Self.region), at: Self.at(2000))).isEmpty)
        }
        // A fence found outside that iOS reports leaving: the device entered while nobody looked.
        var found = try M.monitor()
        _ = M.walk(&found, [0])
        let inferred = Self.events(found.handle(.regionExited(identifier: Self.region), at: Self.at(2000)))
        #expect(inferred.map(\.kind) == [.enter, .exit])
        #expect(inferred.first?.earliest == M.t0)                             // outside then, at the last fix
        #expect(inferred.first?.time == Self.at(880))                          // halfway to iOS's estimated exit
        // Not once a fix overruled iOS's side of the fence: iOS sees it differently.
        var overruled = try M.monitor()
        _ = M.walk(&overruled, [0])
        _ = overruled.handle(.regionState(identifier: Self.region, state: .inside), at: Self.at(900))
        #expect(Self.fixAnswer(&overruled, 985, at: 905).isEmpty)          // 15 m outside: iOS's inside is wrong
        #expect(Self.events(overruled.handle(.regionExited(identifier: Self.region), at: Self.at(2000))).isEmpty)
    }

    // MARK: - 3. Catching up

    @Test("every launch reason catches up: one fix decides the missed exit, marked caughtUp with its bounds")
    func relaunchCatchesUp() throws {
        for reason in LaunchReason.allCases {
            var m = try Self.relaunchedInside()
            var out = m.handle(.launched(reason: reason), at: Self.at(1000))
            #expect(out.demand == .oneFix(.best), "\(reason)")
            #expect(m.nextDeadline == Self.at(1060))
            let exit = try #require(Self.fixAnswer(&m, 0, at: 1003).first, "\(reason)")
            #expect(exit.kind == .exit && exit.timing == .caughtUp)
            #expect(exit.cause == .fix(M.fix(0, at: 1003)))
            #expect(exit.earliest == Self.at(1))                             // the last fix inside, stored
            #expect(exit.latest == Self.at(1003))
            #expect(exit.time == Self.at(502))                               // the middle of its bounds
            #expect(exit.deliveredAt == Self.at(1003))
            #expect(exit.sequence == 2)
            #expect(!m.wantsFix)
            // iOS's exit, arriving after the catch-up decided it: no duplicate.
            out = m.handle(.regionExited(identifier: Self.region), at: Self.at(1200))
            #expect(Self.events(out).isEmpty)
        }
    }

    @Test("a caught-up event decided by a moving fix is placed where its speed says it crossed")
    func caughtUpProjectedBack() throws {
        var m = try Self.relaunchedInside()
        _ = m.handle(.launched(reason: .location), at: Self.at(1000))
        // 200 m beyond the boundary (800 m east), riding at 8 m/s: crossed about 25 s before.
        let moving = Fix(coordinate: M.east(800), horizontalAccuracy: 5, speed: 8, course: 270,
                         timestamp: Self.at(1003), source: .gnss)
        let exit = try #require(Self.events(m.handle(.locations([moving]), at: Self.at(1003))).first)
        #expect(exit.timing == .caughtUp && exit.earliest == Self.at(1) && exit.latest == Self.at(1003))
        #expect(abs(exit.time.timeIntervalSince(Self.at(978))) < 0.5)
    }

    @Test("opening the app catches up unless a fresh fix is at hand")
    func foregroundCatchesUp() throws {
        var m = try M.monitor()
        _ = M.walk(&m, [0])
        _ = m.handle(.willEnterForeground, at: Self.at(10))
        #expect(!m.wantsFix)                                                 // a fresh fix: nothing to ask
        _ = m.handle(.willEnterForeground, at: Self.at(900))
        #expect(m.demands.contains(.oneFix(.best)))
        let enter = try #require(Self.fixAnswer(&m, 1200, at: 905).first)
        #expect(enter.kind == .enter && enter.timing == .caughtUp)
        #expect(enter.earliest == M.t0)
    }

    @Test("without catch-up, opening the app asks for nothing")
    func catchUpCanBeOff() throws {
        var m = try M.monitor([M.shop], .init(catchesUp: false))
        _ = M.walk(&m, [0])
        _ = m.handle(.willEnterForeground, at: Self.at(900))
        _ = m.handle(.launched(reason: .location), at: Self.at(901))
        #expect(!m.wantsFix)
    }

    @Test("a coarse significant-change fix decides far fences, never one whose boundary is within its accuracy")
    func coarseSignificantChange() throws {
        // Inside; a cell fix 300 m beyond the boundary with 1000 m accuracy cannot decide: ask for a fix.
        var m = try M.monitor()
        _ = M.walk(&m, [1200])
        var out = m.handle(.significantChange(M.fix(700, at: 600, accuracy: 1000)), at: Self.at(600))
        #expect(Self.events(out).isEmpty)
        #expect(m.presence(of: "shop") == .inside)
        #expect(out.demand == .oneFix(.best))
        let exit = try #require(Self.fixAnswer(&m, 650, at: 605).first)
        #expect(exit.kind == .exit && exit.timing == .caughtUp)

        // 1.3 km beyond with 1000 m accuracy: beyond its 68% circle, not beyond 1.5 times it (the margin).
        var near = try M.monitor()
        _ = M.walk(&near, [1200])
        #expect(Self.events(near.handle(.significantChange(M.fix(-300, at: 600, accuracy: 1000)), at: Self.at(600))).isEmpty)
        #expect(near.wantsFix)

        // Inside; a cell fix 4 km away with 1000 m accuracy decides the exit by itself.
        var far = try M.monitor()
        _ = M.walk(&far, [1200])
        out = far.handle(.significantChange(M.fix(-3000, at: 600, accuracy: 1000)), at: Self.at(600))
        let coarse = try #require(Self.events(out).first)
        #expect(coarse.kind == .exit && coarse.timing == .caughtUp)
        #expect(coarse.earliest == M.t0 && coarse.latest == Self.at(600))
        #expect(!far.wantsFix)                                               // no fence near: nothing to ask
    }

    @Test("a visit counts as a position at its place: the arrival decides, a departure asks for a fix")
    func visits() throws {
        var m = try M.monitor()
        _ = M.walk(&m, [0])
        let place = M.east(1200)
        var out = m.handle(.visit(Visit(coordinate: place, horizontalAccuracy: 30, arrival: Self.at(400), departure: nil)),
                           at: Self.at(900))
        let enter = try #require(Self.events(out).first)
        #expect(enter.kind == .enter && enter.timing == .caughtUp)
        #expect(enter.latest == Self.at(400) && enter.deliveredAt == Self.at(900))
        guard case .fix(let fix) = enter.cause else { Issue.record("not decided by the visit's position"); return }
        #expect(fix.coordinate == place && fix.horizontalAccuracy == 30 && fix.source == .fused)
        #expect(!m.wantsFix)                                                 // the place is deep inside
        out = m.handle(.visit(Visit(coordinate: place, horizontalAccuracy: 30, arrival: Self.at(400), departure: Self.at(1500))),
                       at: Self.at(1800))
        #expect(Self.events(out).isEmpty)                                    // still inside when it left
        #expect(out.demand == .oneFix(.best))                                // but where is it now?
        #expect(Self.fixAnswer(&m, 0, at: 1805).map(\.kind) == [.exit])
    }

    @Test("an old visit does not overrule a newer decision")
    func oldVisitIgnored() throws {
        var m = try M.monitor()
        _ = M.walk(&m, [0, 1200], from: 500)                                // entered at 501
        let out = m.handle(.visit(Visit(coordinate: M.east(0), horizontalAccuracy: 30, arrival: Self.at(100),
                                        departure: Self.at(200))), at: Self.at(900))
        #expect(Self.events(out).isEmpty)
        #expect(m.presence(of: "shop") == .inside)
    }

    @Test("a dwell that came due while the app was dead waits for the catch-up fix")
    func dwellHeldDuringCatchUp() throws {
        var m = try Self.relaunchedInside()                                  // dwell due at t = 121
        _ = m.handle(.launched(reason: .background), at: Self.at(1000))
        #expect(m.nextDeadline == Self.at(1060))                             // the wait, not the dwell
        #expect(Self.events(m.deadlineReached(at: Self.at(1000))).isEmpty)
        #expect(Self.fixAnswer(&m, 0, at: 1004).map(\.kind) == [.exit])     // it had left: no dwell

        var stayed = try Self.relaunchedInside()
        _ = stayed.handle(.launched(reason: .user), at: Self.at(1000))
        let dwell = try #require(Self.fixAnswer(&stayed, 1200, at: 1004).first)
        #expect(dwell.kind == .dwell && dwell.timing == .caughtUp)
        #expect(dwell.time == Self.at(121) && dwell.deliveredAt == Self.at(1004))
    }

    @Test("a catch-up gives up after the timeout or a location error, and the held timers run")
    func waitEnds() throws {
        var m = try Self.relaunchedInside()
        _ = m.handle(.launched(reason: .location), at: Self.at(1000))
        let out = m.deadlineReached(at: Self.at(1060))
        #expect(!m.wantsFix)
        #expect(Self.events(out).map(\.kind) == [.dwell])
        #expect(Self.events(out).first?.timing == .caughtUp)

        var failed = try Self.relaunchedInside()
        _ = failed.handle(.launched(reason: .location), at: Self.at(1000))
        _ = failed.handle(.locationError(.locationUnknown), at: Self.at(1010))
        #expect(!failed.wantsFix)
        #expect(failed.nextDeadline == Self.at(121))
    }

    @Test("a background task keeps the app running while it waits for the fix, and ends with the wait or on expiry")
    func backgroundTaskDuringWait() throws {
        let task = GeofenceMonitor.backgroundTaskID
        var m = try Self.relaunchedInside()
        var out = m.handle(.launched(reason: .location), at: Self.at(1000))
        #expect(out.commands == [.beginBackgroundTask(id: task)])
        out = m.handle(.locations([M.fix(0, at: 1004)]), at: Self.at(1004))
        #expect(out.commands.contains(.endBackgroundTask(id: task)))
        #expect(!out.commands.contains(.beginBackgroundTask(id: task)))

        var expiring = try Self.relaunchedInside()
        _ = expiring.handle(.launched(reason: .location), at: Self.at(1000))
        out = expiring.handle(.backgroundTaskExpired(id: task), at: Self.at(1030))
        #expect(out.commands == [.endBackgroundTask(id: task)])
        #expect(!expiring.wantsFix)
        #expect(expiring.handle(.backgroundTaskExpired(id: 7), at: Self.at(1031)).commands.isEmpty)   // not ours

        var without = try Self.relaunchedInside(.init(usesBackgroundTask: false))
        #expect(without.handle(.launched(reason: .location), at: Self.at(1000)).commands.isEmpty)
        #expect(without.wantsFix)
    }

    @Test("a region state that contradicts the presence is checked with a fix: iOS saw a crossing the monitor missed")
    func contradictingRegionState() throws {
        // Outside since t = 0; the region is registered again after the device got inside: iOS
        // sends no enter, only the state.
        var m = try M.monitor()
        _ = M.walk(&m, [0])
        let out = m.handle(.regionState(identifier: Self.region, state: .inside), at: Self.at(900))
        #expect(Self.events(out).isEmpty)
        #expect(out.demand == .oneFix(.best))
        let enter = try #require(Self.fixAnswer(&m, 1200, at: 905).first)
        #expect(enter.kind == .enter && enter.timing == .caughtUp)
        #expect(enter.earliest == M.t0 && enter.latest == Self.at(905))

        // iOS's state for a small fence it treats as 200 m: the fix finds the device outside; nothing.
        var n = try M.monitor()
        _ = M.walk(&n, [0])
        _ = n.handle(.regionState(identifier: Self.region, state: .inside), at: Self.at(900))
        #expect(Self.fixAnswer(&n, 950, at: 905).isEmpty)
        #expect(n.presence(of: "shop") == .outside && !n.wantsFix)
    }

    // MARK: - Stored forms

    @Test("events, records and states stored before the timing fields decode with their defaults")
    func backwardCompatibleDecoding() throws {
        let old = #"{"fenceID":"shop","kind":"enter","time":0,"cause":{"elapsed":{}},"sequence":3,"userData":{}}"#
        let event = try JSONDecoder().decode(FenceEvent.self, from: Data(old.utf8))
        #expect(event.latest == event.time && event.deliveredAt == event.time)
        #expect(event.earliest == nil && event.timing == .live && event.sequence == 3)
        let record = #"{"presence":"inside","announced":true,"dwellDelivered":false,"sequence":1}"#
        #expect(try JSONDecoder().decode(FenceRecord.self, from: Data(record.utf8)).decidedAt == nil)
        let state = #"{"fences":{},"records":{},"regions":{},"slotPenalty":0,"eventCount":0}"#
        #expect(try JSONDecoder().decode(GeofenceMonitor.PersistentState.self, from: Data(state.utf8)).lastObservation == nil)
        let full = FenceEvent(fenceID: "a", kind: .exit, time: Self.at(5), cause: .elapsed, sequence: 1,
                              earliest: Self.at(1), latest: Self.at(9), deliveredAt: Self.at(20), timing: .caughtUp)
        #expect(try JSONDecoder().decode(FenceEvent.self, from: JSONEncoder().encode(full)) == full)
    }
}
