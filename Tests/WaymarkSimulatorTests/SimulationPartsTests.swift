import Foundation
import Testing
@testable import WaymarkSimulator
import WaymarkEngine
import WaymarkGeo

/// The simulation's owned parts on their own (#16): each is driven directly, without a scenario,
/// so a rule can be read and checked where it lives.
@Suite("simulation parts: region monitor, permission centre, app process, location service, classifier, link")
struct SimulationPartsTests {
    static let centre = Coordinate(uncheckedLatitude: 46.05, longitude: 14.5)
    static let distances = RegionCrossingDistances(entry: 100, exit: 200)

    static func point(metresEast d: Double) -> Coordinate {
        Geodesy.destination(from: centre, bearing: 90, distance: d)
    }

    static func region(_ id: String = "r") -> MonitoredRegion {
        MonitoredRegion(identifier: id, center: centre, radiusMeters: 300)
    }

    // MARK: region monitor

    @Test("a side counts only beyond the system distance, after the dwell, once per crossing")
    func regionCrossingNeedsDistanceAndDwell() {
        let constants = PlatformConstants()
        var monitor = RegionMonitoring()
        monitor.register(Self.region(), effectiveRadius: 300, state: .outside, determinedAt: 0, persisted: true)
        #expect(Self.distances.side(distance: 250, radius: 300) == nil)   // within the entry depth (100 m)
        #expect(Self.distances.side(distance: 199, radius: 300) == .inside)
        #expect(Self.distances.side(distance: 501, radius: 300) == .outside)
        #expect(RegionCrossingDistances(entry: 400, exit: 0).side(distance: 149, radius: 300) == .inside)   // at most half the radius

        var t = 0.0
        var crossings: [Bool] = []
        while t < constants.regionDwellSeconds + 2 {
            for case .crossed(_, let enter) in monitor.step(at: t, position: Self.point(metresEast: 100), distances: Self.distances,
                                                             constants: constants) {
                crossings.append(enter)
            }
            if t == 0 { #expect(crossings.isEmpty) }
            t += 1
        }
        #expect(crossings == [true])
        #expect(monitor.monitor("r")?.state == .inside)
        // Standing on the boundary decides nothing.
        let onBoundary = monitor.step(at: t, position: Self.point(metresEast: 300), distances: Self.distances, constants: constants)
        #expect(onBoundary.isEmpty)
    }

    @Test("a registration before authorization starts undecided, then reports its state once")
    func regionAwaitingAuthorization() {
        let constants = PlatformConstants()
        var monitor = RegionMonitoring()
        monitor.register(Self.region(), effectiveRadius: 300, state: .inside, determinedAt: 0, persisted: false,
                         awaitingAuthorization: true)
        #expect(monitor.monitor("r")?.state == .unknown)
        let first = monitor.step(at: 10, position: Self.centre, distances: Self.distances, constants: constants)
        guard case .authorizationStarted = first.first else { Issue.record("no start: \(first)"); return }
        var determined = 0
        var t = 11.0
        while t < 10 + constants.regionStateDeterminationSeconds + 5 {
            for case .determined(_, let state, _) in monitor.step(at: t, position: Self.centre, distances: Self.distances,
                                                                   constants: constants) {
                #expect(state == .inside)
                determined += 1
            }
            t += 1
        }
        #expect(determined == 1)
    }

    @Test("events of one region come due in crossing order; a replaced region's events are refused")
    func regionEventOrder() {
        var monitor = RegionMonitoring()
        monitor.register(Self.region(), effectiveRadius: 300, state: .outside, determinedAt: 0, persisted: true)
        let first = monitor.scheduleEvent("r", due: 500)
        let second = monitor.scheduleEvent("r", due: 200)
        #expect(first?.due == 500)
        #expect(second?.due == 500)
        let gone = monitor.scheduleEvent("gone", due: 1)
        #expect(gone == nil)
        let serial = first!.serial
        let held = monitor.hold(HeldRegionEvent(enter: true, untilForeground: false), identifier: "r", serial: serial)
        #expect(held)
        #expect(monitor.identifiersWithHeldEvents == ["r"])
        monitor.register(Self.region(), effectiveRadius: 300, state: .outside, determinedAt: 0, persisted: true)
        let heldAfterReplace = monitor.hold(HeldRegionEvent(enter: false, untilForeground: false), identifier: "r", serial: serial)
        #expect(!heldAfterReplace)
        #expect(monitor.count == 1)
        #expect(monitor.identifiersWithHeldEvents.isEmpty)
    }

    // MARK: permission centre

    @Test("'Allow While Using' on a prompt raised for Always gives provisional Always; keeping only while using falls back")
    func provisionalAlways() {
        let constants = PlatformConstants()
        var centre = PermissionCentre(device: DeviceSetup())
        let serial = centre.show(.locationWhenInUse)
        centre.markWhenInUsePromptForAlways(constants.provisionalAlwaysAvailable)
        let stale = centre.dismiss(serial: serial + 1)
        #expect(stale == nil)
        let shown = centre.dismiss(serial: serial)
        #expect(shown == .locationWhenInUse)
        guard case .location(provisionalAlways: true) = centre.answer(.locationWhenInUse, with: PromptResponse(.allow),
                                                                      constants: constants) else {
            Issue.record("no provisional Always"); return
        }
        #expect(centre.authorization.status == .authorizedAlways)
        centre.beginConfirmation(holding: .regionEntered(identifier: "r"))
        centre.holdForConfirmation(.regionState(identifier: "r", state: .inside))
        guard case .confirmation(keepAlways: false) = centre.answer(.locationAlways, with: PromptResponse(.deny),
                                                                    constants: constants) else {
            Issue.record("not the confirmation"); return
        }
        let dropped = centre.endConfirmation(keepAlways: false)
        #expect(dropped.count == 2)
        #expect(centre.authorization.status == .authorizedWhenInUse)
        #expect(!centre.provisionalAlways && centre.heldForAlwaysConfirmation.isEmpty)
    }

    @Test("Allow Once lapses after the app is out of use for the lapse time, back to notDetermined")
    func allowOnceLapses() {
        let constants = PlatformConstants()
        var centre = PermissionCentre(device: DeviceSetup())
        _ = centre.answer(.locationWhenInUse, with: PromptResponse(.allowOnce), constants: constants)
        #expect(centre.allowOnce)
        let lapse = constants.temporaryAuthorizationLapseSeconds
        let steps = [(false, 100.0), (true, 150), (false, 200), (false, 200 + lapse)].map { inUse, t in
            centre.stepTemporaryGrants(inUse: inUse, at: t, lapseSeconds: lapse)
        }
        // In use again at 150: the out-of-use clock restarts at 200.
        #expect(steps == [nil, nil, nil, lapse])
        let ended = centre.clearTemporaryGrants()
        #expect(ended.allowOnce && !ended.fullAccuracy)
        #expect(centre.authorization.status == .notDetermined)
    }

    @Test("a Settings change sets what it names and ends the grants it overrides")
    func settingsChange() {
        var centre = PermissionCentre(device: DeviceSetup(install: .existing, location: .authorizedWhenInUse, preciseLocation: false))
        centre.grantTemporaryFullAccuracy()
        #expect(centre.authorization.accuracy == .full)
        centre.apply(settings: UserAction(at: 0, .settings, preciseLocation: false))
        #expect(centre.authorization.accuracy == .reduced)
        #expect(centre.authorization.status == .authorizedWhenInUse)
    }

    // MARK: app process

    @Test("the force-quit record outlives the process until the user opens the app; a launch resets the rest")
    func processForceQuitRecord() {
        var process = AppProcess()
        process.launch(generation: 1, inForeground: true)
        let begun = [process.beginTask(7), process.beginTask(7)]
        #expect(begun == [true, false])
        process.terminate(forceQuit: true)
        #expect(process.state == .notRunning && process.tasks.isEmpty && process.forceQuitBlocked)
        process.trackForceQuitPosition(SimulationPartsTests.centre)
        process.trackForceQuitPosition(SimulationPartsTests.point(metresEast: 500))
        #expect(process.forceQuitPosition == SimulationPartsTests.centre)   // where it was at the force-quit
        process.launch(generation: 2, inForeground: false)
        #expect(process.forceQuitBlocked && process.generation == 2 && process.state == .background)
        process.openedByUser()
        process.trackForceQuitPosition(SimulationPartsTests.centre)
        #expect(!process.forceQuitBlocked && process.forceQuitPosition == nil)
    }

    @Test("coming to the foreground takes a deferred authorization callback once, and only with a manager")
    func processDeferredCallback() {
        var process = AppProcess()
        process.launch(generation: 1, inForeground: true)
        process.enterBackground(at: 10)
        process.deferAuthorizationCallback()   // no location manager yet: nothing to tell
        let first = process.comeToForeground()
        #expect(first == (false, false))
        let waiting = process.createLocationManager()
        #expect(waiting.isEmpty)
        process.enterBackground(at: 20)
        process.suspend()
        process.deferAuthorizationCallback()
        let second = process.comeToForeground()
        #expect(second == (true, true))
        let third = process.comeToForeground()
        #expect(third == (false, false))
    }

    // MARK: location service

    @Test("one-shots authorized later get new ids in request order; a step's copy is dropped once updates stop")
    func locationServiceSessions() {
        var service = LocationService()
        let a = service.addOneShot(.best, waitingForAuthorization: true)
        let b = service.addOneShot(.hundredMeters, waitingForAuthorization: false)
        let c = service.addOneShot(.kilometer, waitingForAuthorization: true)
        let renamed = service.authorizeOneShots()
        #expect(renamed.count == 2 && renamed[0] > c && renamed[1] == renamed[0] + 1)
        #expect(service.oneShot(a) == nil && service.oneShot(b) != nil)
        let completed = service.completeOneShot(renamed[1])
        #expect(completed?.accuracy == .kilometer)

        service.startStandard(LocationConfiguration(), waitingForAuthorization: true)
        var copy = service.standard!
        let authorized = [service.authorizeStandard(), service.authorizeStandard()]
        #expect(authorized == [true, false])
        copy.paused = true
        let stopped = service.stopStandard()
        #expect(stopped)
        service.commitStandardStep(copy)
        #expect(service.standard == nil)
    }

    @Test("held fixes keep the newest up to the limit and are taken once")
    func heldFixLimit() {
        var service = LocationService()
        let fixes = (0..<5).map { Fix(coordinate: SimulationPartsTests.centre, timestamp: Date(timeIntervalSince1970: Double($0))) }
        service.hold(fixes, limit: 3)
        #expect(service.heldFixes.map(\.timestamp) == fixes.suffix(3).map(\.timestamp))
        let taken = [service.takeHeldFixes().count, service.takeHeldFixes().count]
        #expect(taken == [3, 0])
    }

    /// One step of the location service at virtual second `t`, the device standing at the centre
    /// (`speed` m/s), authorized with Precise Location.
    static func step(_ service: inout LocationService, at t: Double, speed: Double = 0, running: Bool = true,
                     rng: inout SeededRandom) -> [LocationOutput] {
        let positioning = Positioning(constants: PlatformConstants(), world: nil,
                                      trajectory: Trajectory(stationaryAt: centre), epoch: Date(timeIntervalSince1970: 0))
        let truth = Trajectory.State(coordinate: centre, speed: speed, course: 0, activity: .stationary)
        return service.stepStandard(LocationStep(now: t, truth: truth, precise: true, authorized: true),
                                    processRunning: running, positioning: positioning, rng: &rng)
    }

    @Test("standard updates stepped on their own: nothing while the process is not running, then a fix; the distance filter keeps near ones from the app")
    func locationServiceDistanceFilter() {
        var service = LocationService(), rng = SeededRandom(seed: 3)
        service.startStandard(LocationConfiguration(desiredAccuracy: .hundredMeters, distanceFilterMeters: 1_000,
                                                    pausesLocationUpdatesAutomatically: false),
                              waitingForAuthorization: false)
        #expect(Self.step(&service, at: 0, running: false, rng: &rng).isEmpty)
        let first = Self.step(&service, at: 1, rng: &rng)
        guard case .event(.locations(let fixes))? = first.first, first.count == 1, let fix = fixes.first else {
            Issue.record("expected one fix, got \(first)")
            return
        }
        #expect(fix.source == .wifi && service.lastKnownFix == fix)
        let later = (2...5).map { Self.step(&service, at: Double($0), rng: &rng) }
        #expect(later == Array(repeating: [.suppressedByDistanceFilter], count: 4))
        #expect(service.lastKnownFix != fix)   // measured all the same
    }

    @Test("standard updates pause after standing still for the pause time, say so once, then produce nothing")
    func locationServiceAutomaticPause() {
        var service = LocationService(), rng = SeededRandom(seed: 4)
        service.startStandard(LocationConfiguration(desiredAccuracy: .hundredMeters), waitingForAuthorization: false)
        let limit = PlatformConstants().autoPauseSeconds
        var pauses: [Double] = []
        for t in stride(from: 1.0, through: limit + 10, by: 1) {
            let out = Self.step(&service, at: t, rng: &rng)
            if out.contains(.event(.locationUpdatesPaused)) {
                #expect(out.last == .paused)
                pauses.append(t)
            }
        }
        #expect(pauses == [limit + 1])
        #expect(service.standard?.paused == true)
        #expect(Self.step(&service, at: limit + 11, speed: 5, rng: &rng).isEmpty)   // only a new start resumes
    }

    @Test("live updates pause while stationary and iOS resumes them when the device moves: the resume tick wakes, the next one delivers")
    func locationServiceLiveResume() {
        var service = LocationService(), rng = SeededRandom(seed: 5)
        service.startStandard(LocationConfiguration(desiredAccuracy: .hundredMeters), waitingForAuthorization: false, live: true)
        let stationary = PlatformConstants().liveStationarySeconds
        var paused: [LocationOutput] = []
        for t in stride(from: 1.0, through: stationary + 2, by: 1) {
            let out = Self.step(&service, at: t, rng: &rng)
            if out.contains(.paused) { paused = out }
        }
        #expect(paused.count == 3)
        if case .event(.liveUpdate(let update))? = paused.dropFirst().first {
            #expect(update.isStationary && update.fix == service.lastKnownFix)
        } else {
            Issue.record("expected a stationary live update, got \(paused)")
        }
        let resumed = Self.step(&service, at: stationary + 3, speed: 3, rng: &rng)
        #expect(resumed.count == 2 && resumed.last == .resumedByMovement)
        let next = Self.step(&service, at: stationary + 4, speed: 3, rng: &rng)
        guard case .event(.liveUpdate(let update))? = next.first else {
            Issue.record("expected a live update, got \(next)")
            return
        }
        #expect(!update.isStationary && update.fix != nil)
    }

    // MARK: classifier and link

    @Test("the classifier reports an activity only after it has been stable for the lag")
    func classifierLag() {
        let constants = PlatformConstants()
        var classifier = MotionClassifier()
        var rng = SeededRandom(seed: 1)
        let lag = constants.motionLagSeconds
        let reports = [0, lag - 1, lag, lag + 1].map { t in
            classifier.observe(.walking, at: t, constants: constants, rng: &rng)?.kind
        }
        #expect(reports == [nil, nil, .walking, nil])
        #expect(classifier.serial == 1)
    }

    @Test("the link reports reachability changes only, and radio wakes close together share one")
    func linkChangesAndRadioTail() {
        let network = SimulatedNetwork(World.Network(offline: [TimeWindow(from: 10, to: 20)]))
        var link = NetworkLink(network)
        let constants = PlatformConstants()
        let changes = [5.0, 10, 15, 20].map { link.observe(network, at: $0) }
        #expect(changes == [nil, false, nil, true])
        let first = link.energy(sending: 0, at: 100, constants: constants)
        let close = link.energy(sending: 0, at: 100 + constants.radioTailSeconds / 2, constants: constants)
        let far = link.energy(sending: 0, at: 100 + constants.radioTailSeconds * 3, constants: constants)
        #expect(first == constants.energy.radioWake && close == 0 && far == constants.energy.radioWake)
    }
}
