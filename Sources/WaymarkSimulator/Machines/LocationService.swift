import Foundation
import WaymarkEngine
import WaymarkGeo

/// The location service's sessions (PLATFORM.md §3–§9), owned by ``Simulation``: standard or live
/// updates, one-shot requests, significant-change and visit monitoring, the last fix the system
/// knows, and the fixes it holds for a suspended app.
///
/// It owns which sessions exist, their transitions and how their fixes are measured (the per-tick
/// steps are in `LocationService+Fixes` and `+SystemEvents`); whether and when an event reaches
/// the app stays with the simulation (`Simulation+Location`, `+SignificantChanges`, `+Visits`,
/// `+HeldFixes`). Standard updates and one-shots end with the process; significant changes and
/// visits persist across launches.
struct LocationService: Sendable {
    /// Standard updates (or iOS 17 live updates) of the current process.
    private(set) var standard: StandardUpdates?
    /// Pending one-shot requests, in the order made.
    private(set) var oneShots: [OneShot] = []
    private var nextOneShotID = 0
    /// Significant-change monitoring (persists across launches).
    private(set) var significant: SignificantChanges?
    /// Visit monitoring (persists across launches).
    private(set) var visits: VisitMonitoring?
    /// The most recent fix the system measured.
    private(set) var lastKnownFix: Fix?
    /// Fixes the system holds for a suspended app, oldest first (see `Simulation+HeldFixes`).
    private(set) var heldFixes: [Fix] = []
    /// The receiver's correlated position error.
    private var errorModel: PositionError

    /// A location service with nothing running, whose position error stays correlated over
    /// `errorTimeConstant` seconds (``PlatformConstants/positionErrorTimeConstantSeconds``).
    init(errorTimeConstant: Double = PlatformConstants().positionErrorTimeConstantSeconds) {
        errorModel = PositionError(timeConstant: errorTimeConstant)
    }

    // MARK: standard and live updates

    /// Starts standard (or, `live`, iOS 17 live) updates.
    mutating func startStandard(_ config: LocationConfiguration, waitingForAuthorization: Bool, live: Bool = false) {
        var updates = StandardUpdates(config: config, waitingForAuthorization: waitingForAuthorization)
        updates.live = live
        standard = updates
    }

    /// A new configuration for running updates.
    mutating func reconfigureStandard(_ config: LocationConfiguration) {
        standard?.config = config
    }

    /// A new start after an automatic pause: the receiver starts again and the pause timer restarts.
    mutating func restartStandardAfterPause(_ config: LocationConfiguration) {
        guard var s = standard else { return }
        s.config = config
        s.paused = false
        s.stillSince = nil
        s.wasProducing = false
        standard = s
    }

    /// Updates waiting for authorization start; returns false when none were waiting.
    mutating func authorizeStandard() -> Bool {
        guard standard?.waitingForAuthorization == true else { return false }
        standard?.waitingForAuthorization = false
        return true
    }

    /// `stopUpdatingLocation` (or authorization lost); returns whether updates were running.
    @discardableResult
    mutating func stopStandard() -> Bool {
        defer { standard = nil }
        return standard != nil
    }

    /// Keeps the result of a tick's step on standard updates, unless they were stopped meanwhile.
    mutating func commitStandardStep(_ s: StandardUpdates) {
        if standard != nil { standard = s }
    }

    // MARK: one-shot requests

    /// `requestLocation`: a new request; returns its id.
    mutating func addOneShot(_ accuracy: DesiredAccuracy, waitingForAuthorization: Bool) -> Int {
        nextOneShotID += 1
        oneShots.append(OneShot(id: nextOneShotID, accuracy: accuracy, waitingForAuthorization: waitingForAuthorization))
        return nextOneShotID
    }

    /// Requests waiting for authorization start, each under a new id (so a pending authorization
    /// timeout no longer finds it); returns the new ids in request order.
    mutating func authorizeOneShots() -> [Int] {
        var ids: [Int] = []
        for i in oneShots.indices where oneShots[i].waitingForAuthorization {
            oneShots[i].waitingForAuthorization = false
            nextOneShotID += 1
            oneShots[i].id = nextOneShotID
            ids.append(nextOneShotID)
        }
        return ids
    }

    /// The request with `id`.
    func oneShot(_ id: Int) -> OneShot? { oneShots.first { $0.id == id } }

    /// Whether a GNSS request will get a GNSS fix before it times out.
    mutating func setOneShotAccurate(_ id: Int, _ accurate: Bool) {
        if let i = oneShots.firstIndex(where: { $0.id == id }) { oneShots[i].accurate = accurate }
    }

    /// Completes (removes) the request with `id`, if still pending.
    mutating func completeOneShot(_ id: Int) -> OneShot? {
        guard let i = oneShots.firstIndex(where: { $0.id == id }) else { return nil }
        return oneShots.remove(at: i)
    }

    // MARK: significant changes and visits

    /// Significant-change monitoring left running by an earlier launch (an existing install).
    mutating func resumeSignificantChanges() {
        significant = SignificantChanges()
    }

    /// `startMonitoringSignificantLocationChanges` at `position`: the next event needs `threshold`
    /// metres of movement from there.
    mutating func startSignificantChanges(at position: Coordinate, time: Double, threshold: Double) {
        var s = significant ?? SignificantChanges()
        s.lastPosition = position
        s.lastTime = time
        s.threshold = threshold
        significant = s
    }

    mutating func stopSignificantChanges() {
        significant = nil
    }

    /// Keeps the result of a tick's step on significant changes, unless they were stopped meanwhile.
    mutating func commitSignificantStep(_ s: SignificantChanges) {
        if significant != nil { significant = s }
    }

    /// `startMonitoringVisits`; false when visits were already monitored.
    mutating func startVisits(at now: Double) -> Bool {
        guard visits == nil else { return false }
        visits = VisitMonitoring(startedAt: now)
        return true
    }

    /// `stopMonitoringVisits`; returns how many reports were still waiting for delivery.
    mutating func stopVisits() -> Int {
        defer { visits = nil }
        return visits?.reports.count ?? 0
    }

    /// Keeps the result of a tick's step on visit monitoring, unless it was stopped meanwhile.
    mutating func commitVisitStep(_ v: VisitMonitoring) {
        if visits != nil { visits = v }
    }

    // MARK: measuring

    /// A measured fix of the true state with correlated error of the source's size.
    mutating func measure(_ truth: Trajectory.State, source: Fix.Source, range: (Double, Double), quality: Double,
                          at now: Double, positioning: Positioning, rng: inout SeededRandom) -> Fix {
        let accuracy = range.0 + (range.1 - range.0) * quality
        let sigma = accuracy / PositionError.radiusPerSigma
        let (east, north) = errorModel.sample(at: now, sigma: sigma, rng: &rng)
        let coordinate = PositionError.offset(truth.coordinate, east: east, north: north)
        let precise = source == .gnss
        // Doppler velocity noise (about 0.3 m/s) is the same across and along the track: the
        // speed is off by it, the course by its angle at the current speed.
        let speedNoise = 0.3 * rng.normal(), crossNoise = 0.3 * rng.normal()
        let course = (truth.course + atan2(crossNoise, max(truth.speed, 0.5)) * 180 / .pi + 360)
            .truncatingRemainder(dividingBy: 360)
        return Fix(coordinate: coordinate, horizontalAccuracy: accuracy,
                   verticalAccuracy: precise ? accuracy * 1.5 : nil,
                   speed: precise ? max(0, truth.speed + speedNoise) : nil,
                   course: precise && truth.speed > 0.5 ? course : nil,
                   timestamp: positioning.date(now), source: source,
                   sourceInformation: positioning.world?.locationSource?.information(at: now))
    }

    /// The receiver starts again: the next error is drawn afresh, not correlated with the last.
    mutating func forgetPositionError() {
        errorModel.reset()
    }

    // MARK: fixes

    /// Records the most recent fix the system measured.
    mutating func record(_ fix: Fix) {
        lastKnownFix = fix
    }

    /// Holds fixes for a suspended app, keeping at most `limit` (the oldest are dropped).
    mutating func hold(_ fixes: [Fix], limit: Int) {
        heldFixes.append(contentsOf: fixes)
        let excess = heldFixes.count - max(0, limit)
        if excess > 0 { heldFixes.removeFirst(excess) }
    }

    /// Takes every held fix, oldest first.
    mutating func takeHeldFixes() -> [Fix] {
        defer { heldFixes = [] }
        return heldFixes
    }

    /// The process ended: its standard updates and one-shot requests end with it.
    mutating func endProcess() {
        standard = nil
        oneShots = []
    }
}
