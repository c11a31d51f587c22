import Foundation
import WaymarkGeo

/// What a ``GeofenceMonitor`` knows about one fence beyond its definition; part of the stored state.
///
/// A `Sendable`, `Codable` value type.
public struct FenceRecord: Hashable, Sendable, Codable {
    /// The decided presence.
    public var presence: FencePresence = .unknown
    /// Whether the current stay inside counts for the user: announced by an enter, or found at
    /// registration. False while a re-entry is held back by the debounce window.
    public var announced = false
    /// When the current stay inside began.
    public var since: Date?
    /// Whether this stay's dwell event was delivered.
    public var dwellDelivered = false
    /// When the last exit was delivered (for the re-entry debounce).
    public var lastExit: Date?
    /// The number of events delivered for this fence (the last event's ``FenceEvent/sequence``).
    public var sequence: UInt64 = 0
    /// When the presence was last decided: the deciding position's timestamp, or when the OS's
    /// region event or state arrived. A position older than this does not change the fence.
    public var decidedAt: Date?
    /// The timestamp of the position that decided the presence (nil when the OS decided it): the
    /// device was on that side then, which bounds the next crossing (``FenceEvent/earliest``).
    public var confirmedAt: Date?
    /// When positions decided entries that iOS has not reported yet (oldest first, within
    /// ``GeofenceMonitor/Configuration/echoWindow``): an iOS enter event that arrives meanwhile is
    /// taken for the late echo of the oldest one.
    public var unechoedEnters: [Date]?
    /// When positions decided exits that iOS has not reported yet (see ``unechoedEnters``).
    public var unechoedExits: [Date]?
    /// Whether iOS reported the other side since the presence was decided and a fix overruled it
    /// (iOS treats the fence differently, e.g. as a 200 m circle): no missed crossing is inferred
    /// from iOS's events until the presence changes.
    public var osDisagrees: Bool?

    /// Makes a record for a fence that was never decided.
    public init() {}
}

extension GeofenceMonitor {
    /// Everything a ``GeofenceMonitor`` must find again after the app was terminated: the fences,
    /// their records, the regions Waymark registered with the OS and the selection.
    ///
    /// Encode it (JSON, a database row) after every step that changed ``GeofenceMonitor/revision``.
    /// A `Sendable`, `Codable` value type.
    public struct PersistentState: Hashable, Sendable, Codable {
        /// The fences, by identifier.
        public var fences: [String: Fence] = [:]
        /// Per-fence records, by fence identifier.
        public var records: [String: FenceRecord] = [:]
        /// The regions Waymark registered, by region identifier.
        public var regions: [String: MonitoredRegion] = [:]
        /// Where the last selection was made.
        public var selectionCenter: Coordinate?
        /// The refresh fence's radius at the last selection, metres.
        public var refreshRadiusMeters: Double?
        /// Slots the OS refused (tooManyRegions), taken off the budget.
        public var slotPenalty = 0
        /// The last known position.
        public var lastPosition: Coordinate?
        /// Events delivered over all fences.
        public var eventCount: UInt64 = 0
        /// The latest position the monitor decided from (a fix or a visit), with its accuracy and
        /// time: after a relaunch it bounds the crossings caught up (``FenceEvent/earliest``). Like
        /// ``lastPosition`` it is stored with the next change of the state.
        public var lastObservation: Fix?
        /// On the iOS 17/18 backend, the last state the app heard for each `CLMonitor` condition
        /// (``ModernBackendAdapter/conditions``), so a new process reads a re-emitted state that
        /// differs as the crossing it is, as a legacy region reports `didEnterRegion` at a relaunch.
        /// Nil in states stored before it existed.
        public var conditionStates: [String: MonitorConditionState]?
        /// Where the device rests, while the balanced mode's motion gate says it is still: a new
        /// process starts still there (a significant change near it keeps it still, one away from it,
        /// or a region exit, makes it moving). Nil while moving, and in states stored before it existed.
        public var restingPlace: Coordinate?

        /// An empty state.
        public init() {}
    }

    /// Rebuilds a monitor after a relaunch from the stored state.
    ///
    /// - parameter configuration: slots, margins and timings, as for a new monitor.
    /// - parameter state: the ``GeofenceMonitor/persistentState`` the previous process stored, or nil
    ///   for an empty monitor. Fences whose shape or loitering delay is not valid are dropped.
    /// - parameter osMonitoredRegions: the identifiers the OS reports as monitored (iOS:
    ///   `CLLocationManager.monitoredRegions`), when known. Waymark regions the OS lost are
    ///   registered again at the next selection; regions of the monitor the state does not know are stopped.
    ///   Other regions are never touched.
    public init(configuration: Configuration = Configuration(), restoring state: PersistentState?,
                osMonitoredRegions: Set<String>? = nil) {
        self.init(configuration: configuration)
        guard let state else { return }
        let fences = state.fences.values.sorted { $0.id < $1.id }
        index = FenceIndex(cellDegrees: FenceIndex.suggestedCellDegrees(for: fences.compactMap {
            (try? FenceGeometry($0.shape))?.center }))
        stored = state
        stored.fences = [:]
        for fence in fences {
            guard let shape = try? Self.checkedGeometry(fence) else { continue }
            insert(fence, geometry: shape, record: state.records[fence.id] ?? FenceRecord())
        }
        if let place = state.restingPlace { gate = MotionGate(settings: configuration.balanced, restingAt: place) }
        if let osMonitoredRegions { _ = reconcile(osMonitoredRegions: osMonitoredRegions) }
        needsReselect = true
    }

    /// Brings the stored regions in line with what the OS monitors for the app (iOS:
    /// `CLLocationManager.monitoredRegions`, which survives relaunches and reinstalls from a
    /// backup): a Waymark region the OS lost is registered again at the next selection, and a
    /// region of this monitor the stored state does not know (stored state lost or restored from
    /// an older copy) is stopped then. Regions of the host app and of other components are never
    /// touched.
    public mutating func reconcile(osMonitoredRegions: Set<String>) -> Output {
        var out = Output()
        let lost = stored.regions.keys.filter { !osMonitoredRegions.contains($0) }
        for id in lost { stored.regions[id] = nil }
        orphans = osMonitoredRegions.filter { configuration.ownsRegion($0) && stored.regions[$0] == nil }
        if !lost.isEmpty || !orphans.isEmpty {
            needsReselect = true
            changed()
            out.updates.append(.monitoredRegions(stored.regions.values.sorted { $0.identifier < $1.identifier }))
        }
        return out
    }

    /// Adds one fence to the runtime structures with its record.
    mutating func insert(_ fence: Fence, geometry shape: FenceGeometry, record: FenceRecord) {
        let handle = index.insert(center: shape.center, radiusMeters: shape.radius)
        let i = Int(handle)
        // The stamp of the last evaluation: a fence added since was not there to be reached by it.
        if i == ids.count {
            ids.append(fence.id); geometry.append(shape); presence.append(record.presence); stamps.append(stamp)
            confirmed.append(nil); modes.append(fence.mode)
        } else {
            ids[i] = fence.id; geometry[i] = shape; presence[i] = record.presence; stamps[i] = stamp
            confirmed[i] = nil; modes[i] = fence.mode
        }
        modeCounts[fence.mode, default: 0] += 1
        handles[fence.id] = handle
        stored.fences[fence.id] = fence
        stored.records[fence.id] = record
        switch record.presence {
        case .inside: insideHandles.insert(handle)
        case .unknown: unknownHandles.insert(handle)
        case .outside: break
        }
        updateTimer(handle)
    }

    /// Takes one fence out of the runtime structures and the stored state.
    mutating func removeFence(_ id: String) {
        guard let handle = handles.removeValue(forKey: id) else { return }
        modeCounts[modes[Int(handle)], default: 1] -= 1
        index.remove(handle)
        geometry[Int(handle)] = nil
        insideHandles.remove(handle)
        unknownHandles.remove(handle)
        pending[handle] = nil
        timers[handle] = nil
        stored.fences[id] = nil
        stored.records[id] = nil
    }
}
