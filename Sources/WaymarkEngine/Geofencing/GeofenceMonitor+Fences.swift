import Foundation
import WaymarkGeo

extension GeofenceMonitor {
    /// Adds fences (a fence whose identifier exists replaces it: same shape keeps its state,
    /// a new shape starts undecided), then reselects the OS regions.
    ///
    /// A fence added while a fresh fix is known is decided at once, without an event unless
    /// ``Configuration/reportsInitialState``.
    /// - throws: `GeoError` (`GeoError.Code.invalidValue`) naming the first invalid fence (a bad
    ///   shape, or a loitering delay that is negative, infinite or NaN); nothing is added then.
    public mutating func add(_ fences: [Fence], at now: Date) throws(GeoError) -> Output {
        self.now = now
        var prepared: [(Fence, FenceGeometry)] = []
        prepared.reserveCapacity(fences.count)
        for fence in fences { prepared.append((fence, try Self.checkedGeometry(fence))) }
        if stored.fences.isEmpty, prepared.count > 64 {
            index = FenceIndex(cellDegrees: FenceIndex.suggestedCellDegrees(for: prepared.map(\.1.center)))
        }
        var out = Output()
        var added: [FenceIndex.Handle] = []
        for (fence, shape) in prepared {
            if let old = stored.fences[fence.id], old.shape == fence.shape {
                stored.fences[fence.id] = fence
                if let handle = handles[fence.id] {
                    updateTimer(handle)
                    let i = Int(handle)
                    if modes[i] != fence.mode {
                        modeCounts[modes[i], default: 1] -= 1
                        modeCounts[fence.mode, default: 0] += 1
                        modes[i] = fence.mode
                    }
                }
                continue
            }
            removeFence(fence.id)
            insert(fence, geometry: shape, record: FenceRecord())
            added.append(handles[fence.id]!)
            out.updates.append(.presence(fenceID: fence.id, .unknown))
        }
        if let fix = lastFix, now.timeIntervalSince(fix.timestamp) <= configuration.fixFreshness, !added.isEmpty {
            evaluate(fix, live: true, coarse: false, into: &out)
        }
        changed()
        reselectIfPossible(into: &out)
        return finish(out)
    }

    /// Removes the fences with these identifiers (unknown ones are ignored) and reselects.
    public mutating func remove(_ ids: [String], at now: Date) -> Output {
        self.now = now
        var out = Output()
        for id in ids where stored.fences[id] != nil { removeFence(id) }
        changed()
        reselectIfPossible(into: &out)
        return finish(out)
    }

    /// Replaces the whole set: fences not in `fences` are removed, the others added or updated.
    /// - throws: `GeoError` naming the first invalid fence; nothing changes then.
    public mutating func replaceAll(with fences: [Fence], at now: Date) throws(GeoError) -> Output {
        for fence in fences { _ = try Self.checkedGeometry(fence) }
        let keep = Set(fences.map(\.id))
        var out = remove(stored.fences.keys.filter { !keep.contains($0) }.sorted(), at: now)
        let added = try add(fences, at: now)
        out.commands += added.commands
        out.updates += added.updates
        return finish(out)
    }

    /// The geometry of a fence from the app (perhaps decoded from a file or a server), checked: a
    /// valid shape and a finite loitering delay of zero or more seconds (a fence that should never
    /// dwell leaves `.dwell` out of its triggers).
    /// - throws: `GeoError` (`invalidValue` or `invalidCoordinate`) naming the fence.
    static func checkedGeometry(_ fence: Fence) throws(GeoError) -> FenceGeometry {
        guard fence.loiteringDelay >= 0, fence.loiteringDelay.isFinite else {
            throw GeoError(.invalidValue, "fence \"\(fence.id)\": loiteringDelay must be a finite number of seconds, zero or more, not \(fence.loiteringDelay)")
        }
        do {
            return try FenceGeometry(fence.shape)
        } catch {
            throw GeoError(error.code, "fence \"\(fence.id)\": \(error.message)")
        }
    }

    /// Records that the stored state changed.
    mutating func changed() { revision &+= 1 }

    /// Stores the condition states the app last heard (iOS 17/18 backend), when they changed.
    public mutating func rememberConditionStates(_ states: [String: MonitorConditionState]) {
        guard stored.conditionStates ?? [:] != states else { return }
        stored.conditionStates = states
        changed()
    }

    /// Remembers the device's position for selections.
    mutating func remember(position: Coordinate) {
        stored.lastPosition = position
    }

    /// Reselects around the best known position, or waits for one.
    mutating func reselectIfPossible(into out: inout Output) {
        if let p = lastFix?.coordinate ?? stored.lastPosition {
            reselect(around: p, into: &out)
        } else {
            needsReselect = true
        }
    }
}
