import Foundation
import WaymarkGeo

extension GeofenceMonitor {
    /// Registers the nearest fences (by boundary distance) inside the slot budget, plus a refresh
    /// fence around `position` reaching to the nearest fence left out; stops what is no longer
    /// wanted. Only regions Waymark created are ever stopped.
    mutating func reselect(around position: Coordinate, into out: inout Output) {
        needsReselect = false
        let budget = slotBudget
        var desired: [MonitoredRegion] = []
        var refreshRadius: Double?
        if budget > 0, !stored.fences.isEmpty {
            let total = stored.fences.count
            let fenceSlots = total <= budget ? total : budget - 1
            index.nearest(to: position, count: fenceSlots + 1, into: &scratch)
            if total > fenceSlots {
                let leftOut = scratch.count > fenceSlots ? scratch[fenceSlots].boundaryDistance : .infinity
                let radius = min(configuration.refreshRadiusRange.upperBound,
                                 max(configuration.refreshRadiusRange.lowerBound, leftOut))
                refreshRadius = radius
                desired.append(MonitoredRegion(identifier: configuration.refreshRegionIdentifier,
                                               center: position, radiusMeters: radius))
            }
            for neighbor in scratch.prefix(fenceSlots) {
                let id = ids[Int(neighbor.handle)]
                let region = configuration.regionIdentifier(forFence: id)
                guard !recentlyFailed.contains(region), let shape = geometry[Int(neighbor.handle)] else { continue }
                desired.append(MonitoredRegion(identifier: region, center: shape.center, radiusMeters: shape.radius))
            }
        }
        var wanted = Set(desired.map(\.identifier))
        // The balanced mode's stationary region is managed by `balancedServices(into:)`.
        if stored.regions[configuration.stillRegionIdentifier] != nil { wanted.insert(configuration.stillRegionIdentifier) }
        var changedRegions = false
        for id in orphans.sorted() { out.commands.append(.stopMonitoring(identifier: id)) }
        orphans = []
        for id in stored.regions.keys.sorted() where !wanted.contains(id) {
            out.commands.append(.stopMonitoring(identifier: id))
            stored.regions[id] = nil
            changedRegions = true
        }
        for region in desired where stored.regions[region.identifier] != region {
            out.commands.append(.startMonitoring(region))
            stored.regions[region.identifier] = region
            changedRegions = true
        }
        stored.selectionCenter = position
        stored.refreshRadiusMeters = refreshRadius
        changed()
        if changedRegions {
            out.updates.append(.monitoredRegions(stored.regions.values.sorted { $0.identifier < $1.identifier }))
        }
    }

    /// Whether a fix fresh enough to overrule the OS's region events is known. While GNSS rests
    /// near fences the last GNSS fix stays fresh: the rest was planned so that the device cannot
    /// reach a boundary before its last ``ProximityTracking/latencyBudgetSeconds`` (``ProximityTracking/restsGNSS``),
    /// and the fix after it decides any crossing in those seconds, long before iOS's event about it
    /// (minutes late, PLATFORM.md §5).
    func hasFreshFix(at now: Date) -> Bool {
        if let until = gnssRestUntil, now < until, lastFix != nil { return true }
        guard let fix = lastFix else { return false }
        return now.timeIntervalSince(fix.timestamp) <= configuration.fixFreshness
    }

    /// An OS region event: the refresh fence triggers a reselection; a fence's event decides it when
    /// no fresh fix does, marked ``FenceEvent/Timing/osDelayed``.
    ///
    /// An event that contradicts the presence is checked with a fix instead of being delivered when
    /// it may be iOS's late echo of a crossing a position decided within ``Configuration/echoWindow``
    /// (see ``FenceRecord/unechoedEnters``), or when it is a polygon's enclosing circle entered.
    /// An event that agrees with the presence is iOS's echo of a crossing already decided (a
    /// catch-up, fixes), or else tells of a crossing iOS did not report: an exit from a fence the
    /// monitor never saw the device enter means it entered meanwhile, so both are delivered (see
    /// ``Configuration/infersMissedCrossings``).
    mutating func regionCrossed(_ identifier: String, entered: Bool, at now: Date, into out: inout Output) {
        if identifier == configuration.refreshRegionIdentifier {
            guard !entered else { return }
            recentlyFailed = []
            if hasFreshFix(at: now), let fix = lastFix {
                reselect(around: fix.coordinate, into: &out)
            } else {
                needsReselect = true
                wait.awaitPosition(at: now, timeout: configuration.fixWaitTimeout)
            }
            return
        }
        guard let fenceID = configuration.fenceIdentifier(forRegion: identifier), let handle = handles[fenceID],
              stored.regions[identifier] != nil else { return }
        let echo = consumeEcho(fenceID, entered: entered, at: now)
        guard !hasFreshFix(at: now) else { return }
        let i = Int(handle)
        let claimed: FencePresence = entered ? .inside : .outside
        let cause = FenceEvent.Cause.region(identifier: identifier, entered: entered)
        if presence[i] == claimed {
            guard !echo, infersMissedCrossing(handle) else { return }
            transition(fenceID, to: entered ? .outside : .inside, basis: .osInferred(cause, receivedAt: now), crossing: true,
                       into: &out)
            transition(fenceID, to: claimed, basis: .os(cause, receivedAt: now), crossing: true, into: &out)
            return
        }
        let polygonEntered = geometry[i]?.polygon != nil && entered
        // With proximity tracking on, an app that asked for fixes near fences gets one more rather
        // than trust iOS's side of a small circle, which is not the fence's side (under about
        // 200 m iOS watches a larger one, PLATFORM.md §5).
        let mode = effectiveMode(handle)
        let smallCircleChecked = mode == .precise && (geometry[i]?.radius ?? 0) < configuration.minimumInferenceRadiusMeters
        // A balanced fence's crossing that iOS reports first is confirmed with a fix; iOS's event
        // stands if none comes in time (``BalancedTracking``).
        // iOS's side of a circle under about 200 m, or of a polygon's circle, is not the fence's
        // (PLATFORM.md §5): only a big circle's event stands without a fix.
        let confirmed = mode == .balanced
        let standsAlone = geometry[i]?.polygon == nil && (geometry[i]?.radius ?? 0) >= configuration.minimumInferenceRadiusMeters
        if polygonEntered || echo || smallCircleChecked || confirmed {
            pending[handle] = PendingRegionEvent(entered: entered, receivedAt: now, disagreement: false,
                                                 fallsBack: confirmed && standsAlone && !echo)
            startWait()
            return
        }
        transition(fenceID, to: claimed, basis: .os(cause, receivedAt: now), crossing: true, into: &out)
    }

    /// Takes the oldest crossing of this kind a position decided and iOS has not reported yet
    /// (within the echo window): iOS's event at `now` may be its late echo. False when there is none.
    mutating func consumeEcho(_ fenceID: String, entered: Bool, at now: Date) -> Bool {
        guard var record = stored.records[fenceID] else { return false }
        let list = entered ? record.unechoedEnters : record.unechoedExits
        guard let list, !list.isEmpty else { return false }
        var kept = list.filter { now.timeIntervalSince($0) <= configuration.echoWindow }
        let echo = !kept.isEmpty
        if echo { kept.removeFirst() }
        let stored: [Date]? = kept.isEmpty ? nil : kept
        if entered { record.unechoedEnters = stored } else { record.unechoedExits = stored }
        self.stored.records[fenceID] = record
        changed()
        return echo
    }

    /// Whether an iOS event that agrees with the fence's presence reveals a crossing iOS missed:
    /// the presence is decided, iOS has not been overruled on it (``FenceRecord/osDisagrees``), and
    /// the fence is a circle big enough that iOS's side is the fence's side (iOS treats radii under
    /// about 200 m as about 200 m, PLATFORM.md §5 [S27]; a polygon's circle is not the polygon).
    func infersMissedCrossing(_ handle: FenceIndex.Handle) -> Bool {
        guard configuration.infersMissedCrossings, let shape = geometry[Int(handle)], shape.polygon == nil,
              shape.radius >= configuration.minimumInferenceRadiusMeters,
              let record = stored.records[ids[Int(handle)]], record.presence != .unknown else { return false }
        return record.osDisagrees != true
    }

    /// An OS region-state answer decides a fence that is still undecided (silently, as an initial
    /// state). One that contradicts a decided fence, with no fresh fix, means iOS saw a crossing the
    /// monitor missed (a region registered after the device had crossed gets no enter or exit, only
    /// its state): it is checked with a fix, since iOS treats small radii as about 200 m.
    mutating func regionState(_ identifier: String, _ state: RegionState, at now: Date, into out: inout Output) {
        guard state != .unknown, let fenceID = configuration.fenceIdentifier(forRegion: identifier),
              let handle = handles[fenceID], !hasFreshFix(at: now) else { return }
        let claimed: FencePresence = state == .inside ? .inside : .outside
        let current = presence[Int(handle)]
        guard current != claimed else { return }
        if current != .unknown || (geometry[Int(handle)]?.polygon != nil && state == .inside) {
            pending[handle] = PendingRegionEvent(entered: state == .inside, receivedAt: now, disagreement: current != .unknown)
            startWait()
            return
        }
        transition(fenceID, to: claimed,
                   basis: .os(.regionState(identifier: identifier, state: state), receivedAt: now), into: &out)
    }

    /// A refused registration: the slot is taken off the budget (tooManyRegions); monitoring is
    /// blocked until authorization changes only when it cannot work at all (denied, unavailable:
    /// review 2, M2 and M3); a failure of one region (``RegionFailure/failed``,
    /// ``RegionFailure/radiusTooLarge``) drops that region alone. Then a reselection with what is
    /// left, which never retries a region refused since the last move: the next move, or the
    /// refresh fence's exit, retries it, so a region that keeps failing costs one try per move.
    mutating func regionFailed(_ identifier: String, _ reason: RegionFailure, into out: inout Output) {
        // Every refusal of a Waymark region is one start the OS could not take, even when a
        // reselection already dropped the region before its refusal arrived.
        guard configuration.ownsRegion(identifier) else { return }
        stored.regions[identifier] = nil
        changed()
        recentlyFailed.insert(identifier)
        stored.slotPenalty += budget.refused(reason)
        let before = out.updates.count
        if let center = stored.selectionCenter { reselect(around: center, into: &out) }
        if !out.updates[before...].contains(where: { if case .monitoredRegions = $0 { true } else { false } }) {
            out.updates.append(.monitoredRegions(stored.regions.values.sorted { $0.identifier < $1.identifier }))
        }
    }

    /// Location authorization came back: monitoring may start again.
    mutating func authorizationChanged(_ auth: LocationAuthorization, into out: inout Output) {
        let allowed = auth.servicesEnabled && (auth.status == .authorizedAlways || auth.status == .authorizedWhenInUse)
        guard allowed, budget.authorizationAllows() else { return }
        recentlyFailed = []
        reselectIfPossible(into: &out)
    }
}
