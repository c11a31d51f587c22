import Foundation
import WaymarkGeo

/// Any number of geofences on a device that lets an app monitor 20 regions: keeps the nearest
/// fences registered with the OS inside the slot budget, plus a refresh fence around the device,
/// and decides entries, exits and dwells from fixes (with hysteresis) or, without fresh fixes, from
/// the OS's region events.
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
    var awaitingPosition = false
    var awaitingPolygons: Set<FenceIndex.Handle> = []
    var recentlyFailed: Set<String> = []
    var blocked = false
    var scratch: [FenceIndex.Neighbor] = []
    var orphans: Set<String> = []
    /// Fences with a pending dwell or debounce timer, and when each comes due.
    var timers: [FenceIndex.Handle: Date] = [:]

    /// Makes an empty monitor.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.stored = PersistentState()
        self.index = FenceIndex(cellDegrees: configuration.indexCellDegrees)
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
        if blocked { return 0 }
        let host = max(configuration.hostRegionCount, configuration.hostRegionIdentifiers.count)
        return max(0, configuration.regionSlots - host - configuration.reservedRegionSlots - stored.slotPenalty)
    }

    /// Every location demand of the monitor: significant changes while it has fences, and one fix
    /// while it waits for a position (after a refresh exit, or to decide a polygon the OS reports).
    public var demands: [LocationDemand] {
        var result: [LocationDemand] = []
        if configuration.usesSignificantChanges, !stored.fences.isEmpty { result.append(.significantChanges) }
        if awaitingPosition || !awaitingPolygons.isEmpty { result.append(.oneFix(configuration.fixAccuracy)) }
        return result
    }

    /// The single most urgent demand (the one-fix demand when waiting, else significant changes);
    /// an engine that merges several demands per component should use ``demands``.
    public var demand: LocationDemand { demands.last ?? .none }

    /// The earliest dwell or debounce deadline, if any.
    public var nextDeadline: Date? {
        timers.values.min()
    }

    /// Handles one device event.
    public mutating func handle(_ event: DeviceEvent, at now: Date) -> Output {
        var out = Output()
        switch event {
        case .launched:
            needsReselect = true
        case .locations(let fixes):
            for fix in fixes { consider(fix, at: now, into: &out) }
        case .significantChange(let fix):
            remember(position: fix.coordinate)
            recentlyFailed = []
            reselect(around: fix.coordinate, into: &out)
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

    /// Delivers dwell events and debounced entries that have come due.
    public mutating func deadlineReached(at now: Date) -> Output {
        var out = Output()
        runTimers(at: now, cause: .elapsed, into: &out)
        return finish(out)
    }

    func finish(_ output: Output) -> Output {
        var output = output
        output.demand = demand
        return output
    }
}
