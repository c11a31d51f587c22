import Foundation
import WaymarkGeo

/// Any number of geofences on a device that lets an app monitor 20 regions: keeps the nearest
/// fences registered with the OS inside the slot budget, plus a refresh fence around the device,
/// and decides entries, exits and dwells from fixes (with hysteresis) or, without fresh fixes, from
/// the OS's region events.
///
/// iOS's region events are minutes late and sometimes never come (PLATFORM.md §5), so the monitor
/// also catches up: when the app is launched (for any reason) or opened, and after a significant
/// change or a visit that cannot decide the fences near it, it asks for one fix and decides every
/// fence that fix disagrees with. Each ``FenceEvent`` says how it was found and how late it is
/// (``FenceEvent/timing``, ``FenceEvent/earliest``, ``FenceEvent/latest``, ``FenceEvent/deliveredAt``);
/// see <doc:GeofenceTiming>.
///
/// Feed it every device event with ``handle(_:at:)`` and wake it at ``nextDeadline`` with
/// ``deadlineReached(at:)``. Store ``persistentState`` whenever ``revision`` changes, and after a
/// relaunch build the monitor from it with ``init(configuration:restoring:osMonitoredRegions:)``:
/// no event is delivered twice, none is lost.
///
/// ```swift
/// var monitor = GeofenceMonitor(configuration: .init(hostRegionIdentifiers: ["host.office"]))
/// var out = try monitor.add([Fence(id: "cafe", shape: .circle(center: cafe, radiusMeters: 150))], at: now)
/// out = monitor.handle(.locations([fix]), at: now)   // commands: startMonitoring(...); updates: events
/// for case .event(let event) in out.updates { notify(event) }
/// ```
///
/// A pure state machine and a `Sendable` value type; owned by one task.
public struct GeofenceMonitor: Sendable {
    /// What a step reports.
    public enum Update: Hashable, Sendable {
        /// A fence event to deliver.
        case event(FenceEvent)
        /// A fence's presence changed (including the first decision after it was added).
        case presence(fenceID: String, FencePresence)
        /// The regions Waymark now monitors with the OS (for diagnostics), sorted by identifier.
        case monitoredRegions([MonitoredRegion])
    }

    /// The output of every step.
    public typealias Output = ComponentOutput<Update>

    /// The configuration in force.
    public let configuration: Configuration
    /// Everything that must survive a relaunch.
    public internal(set) var stored: PersistentState
    /// Bumped whenever ``persistentState`` changed; store the state when it moves.
    public internal(set) var revision = 0

    var index: FenceIndex
    var handles: [String: FenceIndex.Handle] = [:]
    var ids: ContiguousArray<String> = []
    var geometry: ContiguousArray<FenceGeometry?> = []
    var presence: ContiguousArray<FencePresence> = []
    var stamps: ContiguousArray<UInt32> = []
    var stamp: UInt32 = 0
    var insideHandles: Set<FenceIndex.Handle> = []
    var unknownHandles: Set<FenceIndex.Handle> = []
    var lastFix: Fix?
    var needsReselect = true
    /// The device time of the step being handled (an event's ``FenceEvent/deliveredAt``).
    var now = Date.distantPast
    /// Per fence: the last time a position placed the device on the side of its presence (runtime;
    /// the stored record keeps the one of the last decision).
    var confirmed: ContiguousArray<Date?> = []
    /// The timestamp of the position the last evaluation used.
    var lastEvaluationTime: Date?
    /// The wait for a fix (a catch-up, a position for a reselection, a check of an OS event).
    var wait = FixWait()
    /// The region slots.
    var budget: RegionBudget
    /// OS region events waiting for a fix to check them (a polygon's circle entered, a possible echo).
    var pending: [FenceIndex.Handle: PendingRegionEvent] = [:]
    /// Whether the monitor holds its background task (``backgroundTaskID``).
    var holdsBackgroundTask = false
    var recentlyFailed: Set<String> = []
    var scratch: [FenceIndex.Neighbor] = []
    var orphans: Set<String> = []
    /// Fences with a pending dwell or debounce timer, and when each comes due.
    var timers: [FenceIndex.Handle: Date] = [:]
    /// Per fence (by handle): its own ``Fence/mode``.
    var modes: ContiguousArray<GeofenceMode> = []
    /// How many fences ask for each mode.
    var modeCounts: [GeofenceMode: Int] = [:]
    /// Whether Always authorization with full accuracy allows updates in the background (the
    /// balanced and precise modes need it).
    var trackingAllowed = false
    /// Updates near precise fences (``ProximityTracking``).
    var preciseTracker: ProximityTracker
    /// Updates near balanced fences while the device moves (``BalancedTracking``).
    var balancedTracker: ProximityTracker
    /// Still or moving, for the balanced mode.
    var gate: MotionGate
    /// Whether this process started motion and visit updates for balanced fences.
    var balancedServicesStarted = false

    /// Makes an empty monitor.
    ///
    /// - precondition: `configuration` is usable: no negative slot counts, distances or durations,
    ///   positive accuracy limits, fix-wait timeout, index cell and refresh radius, and (when proximity
    ///   tracking is on) its near distance within the approach distance (the message names every
    ///   offending field).
    public init(configuration: Configuration = Configuration()) {
        ContractCheck.require(configuration.contractViolations, in: "GeofenceMonitor.Configuration")
        self.configuration = configuration
        self.stored = PersistentState()
        self.index = FenceIndex(cellDegrees: configuration.indexCellDegrees)
        self.budget = RegionBudget(configuration: configuration)
        self.preciseTracker = ProximityTracker(settings: configuration.proximity.trackerSettings)
        self.balancedTracker = ProximityTracker(settings: configuration.balanced.trackerSettings)
        self.gate = MotionGate(settings: configuration.balanced)
    }

    /// The state to store on the device; restore it with ``init(configuration:restoring:osMonitoredRegions:)``.
    public var persistentState: PersistentState { stored }

    /// The fences, by identifier.
    public var fences: [String: Fence] { stored.fences }

    /// The distance in metres from `point` to the nearest fence boundary, if one is within
    /// `horizon` metres (nil otherwise): how far the device may travel unobserved without
    /// possibly skipping a crossing.
    ///
    /// For a polygon the boundary is the polygon's own; far outside its enclosing circle the gap
    /// to that circle stands in (a lower bound, so the answer is never too large).
    public func nearestBoundaryDistance(to point: Coordinate, within horizon: Double) -> Double? {
        var nearest = Double.infinity
        index.forEachCircle(near: point, slack: horizon) { handle, d in
            guard let shape = geometry[Int(handle)] else { return }
            nearest = min(nearest, abs(shape.signedDistance(to: point, centerDistance: d)))
        }
        return nearest <= horizon ? nearest : nil
    }

    /// The regions Waymark monitors with the OS, by identifier (diagnostics).
    public var monitoredRegions: [String: MonitoredRegion] { stored.regions }

    /// The presence of one fence (nil for an unknown identifier).
    public func presence(of id: String) -> FencePresence? {
        guard stored.fences[id] != nil else { return nil }
        return stored.records[id]?.presence ?? .unknown
    }

    /// The identifiers of the fences the device is inside.
    public var insideFenceIDs: Set<String> { Set(insideHandles.map { ids[Int($0)] }) }

    /// The slots the monitor may use now: granted minus the host's, minus the reserved ones, minus
    /// slots the OS refused.
    public var slotBudget: Int {
        // The balanced mode keeps one slot for the stationary region.
        budget.available(penalty: stored.slotPenalty, keepsStillSlot: hasFences(in: .balanced))
    }

    /// Every location demand of the monitor: significant changes while it has fences, standard
    /// updates while the device is near precise fences (``Configuration/proximity``) or moves where
    /// a balanced fence's boundary can be reached (``Configuration/balanced``), and one fix while it
    /// waits for a position (a catch-up, after a refresh exit, or to check an OS region event: a
    /// polygon's circle entered, a possible late echo).
    public var demands: [LocationDemand] {
        var result: [LocationDemand] = []
        if configuration.usesSignificantChanges, !stored.fences.isEmpty { result.append(.significantChanges) }
        result += trackerDemands
        if wantsFix { result.append(.oneFix(configuration.fixAccuracy)) }
        return result
    }

    /// Whether the monitor waits for a fix (see ``demands``).
    public var wantsFix: Bool { wait.wantsFix || !pending.isEmpty }

    /// The single most urgent demand (the one-fix demand when waiting, else significant changes);
    /// an engine that merges several demands per component should use ``demands``.
    public var demand: LocationDemand { demands.last ?? .none }

    /// The earliest deadline, if any: a dwell or debounce timer, the end of a wait for a fix, or
    /// the end of a GNSS rest near fences (``ProximityTracking/restsGNSS``, ``BalancedTracking/restSeconds``).
    /// Timers are held while a catch-up waits for its fix (the device may have left meanwhile).
    public var nextDeadline: Date? {
        let timer = wait.holdsTimers ? nil : timers.values.min()
        return [timer, wait.deadline, preciseTracker.restUntil, balancedTracker.restUntil].compactMap { $0 }.min()
    }

    /// Handles one device event.
    ///
    /// Launches (whatever their ``LaunchReason``), ``DeviceEvent/willEnterForeground``, significant
    /// changes and visits start a catch-up (see the type's discussion).
    public mutating func handle(_ event: DeviceEvent, at now: Date) -> Output {
        var out = Output()
        self.now = now
        proximityEvent(event)
        switch event {
        case .launched:
            needsReselect = true
            beginCatchUp()
        case .willEnterForeground:
            beginCatchUp()
        case .locations(let fixes):
            for fix in fixes { consider(fix, into: &out) }
        case .significantChange(let fix):
            significantChange(fix, into: &out)
        case .visit(let visit):
            visited(visit, into: &out)
        case .locationError:
            endWait(into: &out)
        case .backgroundTaskExpired(let id) where id == Self.backgroundTaskID:
            endWait(into: &out)
        case .regionEntered(let identifier):
            regionCrossed(identifier, entered: true, at: now, into: &out)
        case .regionExited(let identifier):
            regionCrossed(identifier, entered: false, at: now, into: &out)
        case .regionState(let identifier, let state):
            regionState(identifier, state, at: now, into: &out)
        case .regionMonitoringFailed(let identifier, let reason):
            regionFailed(identifier, reason, into: &out)
        case .authorizationChanged(let auth):
            authorizationChanged(auth, into: &out)
        default:
            break
        }
        return finish(out)
    }

    /// Delivers dwell events and debounced entries that have come due, and gives up a wait for a
    /// fix that did not come in time (a catch-up goes without; OS events waiting for a check are dropped).
    public mutating func deadlineReached(at now: Date) -> Output {
        var out = Output()
        self.now = now
        if wait.expired(at: now) { endWait(into: &out) }
        endProximityRest(at: now)
        if !wait.holdsTimers { runTimers(at: now, cause: .elapsed, into: &out) }
        return finish(out)
    }

    /// The identifier of the background task the monitor holds while it waits for a fix (see
    /// ``Configuration/usesBackgroundTask``); apps number their own tasks from 0 upwards.
    public static let backgroundTaskID = Int.min + 1

    /// Ends a step: holds a background task exactly while a fix is wanted, and states the demand.
    mutating func finish(_ output: Output) -> Output {
        var output = output
        updateProximityTier()
        balancedServices(into: &output)
        wait.settle(wanted: wantsFix)
        let hold = wantsFix && configuration.usesBackgroundTask
        if hold != holdsBackgroundTask {
            holdsBackgroundTask = hold
            output.commands.append(hold ? .beginBackgroundTask(id: Self.backgroundTaskID)
                                        : .endBackgroundTask(id: Self.backgroundTaskID))
        }
        output.demand = demand
        return output
    }
}
