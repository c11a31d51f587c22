import Foundation
import WaymarkEngine
import WaymarkGeo

/// The system's region monitor (PLATFORM.md §5), owned by ``Simulation``: the registered regions,
/// the side iOS has committed each to, pending crossings, and events waiting for delivery.
///
/// It decides *what* happens to each region on a tick (``step(at:position:distances:constants:)``);
/// the simulation decides *when* an event comes (latency, misses: `Simulation+RegionDelivery`) and
/// delivers it. Registrations persist across launches, so the monitor is not reset with the process.
struct RegionMonitoring: Sendable {
    /// What a tick decided for one region, in region order.
    enum StepResult: Sendable {
        /// A region registered before authorization starts working now that authorization is granted.
        case authorizationStarted(identifier: String)
        /// iOS committed a crossing (the device has been beyond the system distance for the dwell time).
        case crossed(identifier: String, enter: Bool)
        /// The state of a new registration is known: `didDetermineState` is due once.
        case determined(identifier: String, state: RegionState, isCondition: Bool)
    }

    private(set) var monitors: [RegionMonitor] = []
    private var serial = 0

    var isEmpty: Bool { monitors.isEmpty }
    var count: Int { monitors.count }
    /// Identifiers of the regions monitored, in registration order.
    var identifiers: [String] { monitors.map(\.region.identifier) }

    /// The monitor of the region with `identifier`.
    func monitor(_ identifier: String) -> RegionMonitor? {
        monitors.first { $0.region.identifier == identifier }
    }

    /// Registers a region, replacing any with the same identifier; a region registered before
    /// authorization (`awaitingAuthorization`) decides nothing and starts in `unknown`.
    mutating func register(_ region: MonitoredRegion, effectiveRadius: Double, state: RegionState,
                           determinedAt: Double, persisted: Bool, awaitingAuthorization: Bool = false) {
        serial += 1
        stop(region.identifier)
        var monitor = RegionMonitor(region: region, effectiveRadius: effectiveRadius,
                                    state: awaitingAuthorization ? .unknown : state, serial: serial,
                                    determinedAt: determinedAt)
        monitor.registrationStateReported = persisted
        monitor.awaitingAuthorization = awaitingAuthorization
        monitors.append(monitor)
    }

    /// Marks a region as a `CLMonitor` condition (reported as monitor events, not enter/exit).
    mutating func markCondition(_ identifier: String) {
        if let i = index(identifier) { monitors[i].isCondition = true }
    }

    /// `stopMonitoring(for:)`.
    mutating func stop(_ identifier: String) {
        monitors.removeAll { $0.region.identifier == identifier }
    }

    /// Removes a `CLMonitor` condition (a legacy region of the same name stays).
    mutating func removeCondition(_ identifier: String) {
        monitors.removeAll { $0.region.identifier == identifier && $0.isCondition }
    }

    /// Forgets every pending crossing: nothing can be decided now (no authorization, no precise
    /// position, or no position at all), so the dwell starts again.
    mutating func restartPendingCrossings() {
        for i in monitors.indices { monitors[i].candidate = nil }
    }

    /// One tick with the device at `position`: starts regions waiting for authorization, commits
    /// crossings once the device has been beyond the boundary by `distances` for the dwell time, and
    /// reports a new registration's state once it is known. The results come in region order.
    mutating func step(at now: Double, position: Coordinate, distances: RegionCrossingDistances,
                       constants: PlatformConstants) -> [StepResult] {
        var results: [StepResult] = []
        for i in monitors.indices {
            var m = monitors[i]
            let d = Geodesy.haversineDistance(position, m.region.center)
            if m.awaitingAuthorization {
                m.awaitingAuthorization = false
                m.state = distances.side(distance: d, radius: m.effectiveRadius) ?? .unknown
                m.determinedAt = now + constants.regionStateDeterminationSeconds
                m.registrationStateReported = false
                results.append(.authorizationStarted(identifier: m.region.identifier))
            }
            if let beyond = distances.side(distance: d, radius: m.effectiveRadius), beyond != m.state {
                if m.candidate != beyond { m.candidate = beyond; m.candidateSince = now }
                if now - m.candidateSince >= constants.regionDwellSeconds {
                    let previous = m.state
                    m.state = beyond
                    m.candidate = nil
                    if previous != .unknown { results.append(.crossed(identifier: m.region.identifier, enter: beyond == .inside)) }
                }
            } else {
                m.candidate = nil
            }
            if !m.registrationStateReported, now >= m.determinedAt, m.state != .unknown {
                m.registrationStateReported = true
                results.append(.determined(identifier: m.region.identifier, state: m.state, isCondition: m.isCondition))
            }
            monitors[i] = m
        }
        return results
    }

    /// Records that the next event of `identifier` comes due at `due` or later, and returns when it
    /// comes due: events of one region arrive in the order of their crossings. Returns nil for a
    /// region no longer monitored.
    mutating func scheduleEvent(_ identifier: String, due: Double) -> (due: Double, serial: Int)? {
        guard let i = index(identifier) else { return nil }
        let at = max(due, monitors[i].lastEventDue)
        monitors[i].lastEventDue = at
        return (at, monitors[i].serial)
    }

    /// Queues an event that came due behind the region's held events; false if the region was
    /// stopped or replaced since it was scheduled (`serial` differs).
    mutating func hold(_ event: HeldRegionEvent, identifier: String, serial: Int) -> Bool {
        guard let i = monitors.firstIndex(where: { $0.region.identifier == identifier && $0.serial == serial }) else { return false }
        monitors[i].held.append(event)
        return true
    }

    /// Identifiers of regions with held events, in region order.
    var identifiersWithHeldEvents: [String] { monitors.filter { !$0.held.isEmpty }.map(\.region.identifier) }

    /// The oldest held event of a region.
    func firstHeld(_ identifier: String) -> HeldRegionEvent? { monitor(identifier)?.held.first }

    /// Removes the oldest held event of a region.
    mutating func removeFirstHeld(_ identifier: String) {
        if let i = index(identifier), !monitors[i].held.isEmpty { monitors[i].held.removeFirst() }
    }

    /// Drops every held event of a region and returns how many there were.
    mutating func dropHeld(_ identifier: String) -> Int {
        guard let i = index(identifier) else { return 0 }
        defer { monitors[i].held = [] }
        return monitors[i].held.count
    }

    private func index(_ identifier: String) -> Int? {
        monitors.firstIndex { $0.region.identifier == identifier }
    }
}

/// How far beyond a region's boundary the device must be before iOS commits to a side [S27][S28].
struct RegionCrossingDistances: Sendable {
    /// How far inside an entry counts (at most half the radius).
    var entry: Double
    /// How far outside an exit counts.
    var exit: Double

    /// The side the system can commit to at `distance` from the centre of a region of `radius`, or
    /// nil while the device is too near the boundary to tell.
    func side(distance d: Double, radius: Double) -> RegionState? {
        if d < radius - min(entry, radius / 2) { return .inside }
        if d > radius + exit { return .outside }
        return nil
    }
}

/// A monitored region and the system's view of the device relative to it.
struct RegionMonitor: Sendable {
    var region: MonitoredRegion
    /// Added as a `CLMonitor` condition (iOS 17): reported as monitor events, not enter/exit.
    var isCondition = false
    var effectiveRadius: Double
    var state: RegionState
    var candidate: RegionState?
    var candidateSince = 0.0
    var serial: Int
    /// Virtual time from which a state request is answered with the state rather than `unknown`.
    var determinedAt: Double

    // Region fidelity (issue #14; see `Simulation+Regions`, `Simulation+RegionDelivery`).
    /// Registered before location authorization was granted: accepted, but nothing is decided until
    /// it is; the state is determined then, as at a registration [S30].
    var awaitingAuthorization = false
    /// Whether `didDetermineState` has fired for the registration (persisted regions: already did) [S29].
    var registrationStateReported = true
    /// When the last event of this region comes (or came) due: events of one region arrive in order.
    var lastEventDue = -Double.infinity
    /// Crossings whose event came due but could not be delivered yet (no network, or an entry held
    /// after a push launch), oldest first; they are late, not lost.
    var held: [HeldRegionEvent] = []
}

/// A region event waiting for delivery (issue #14).
struct HeldRegionEvent: Sendable {
    var enter: Bool
    /// Held until the app is next in the foreground (an entry after a push launch, and what queues behind it).
    var untilForeground: Bool
}
