import Foundation
import WaymarkGeo

/// An enter, exit or dwell event of one device at one fence.
public struct FenceEvent: Hashable, Sendable {
    /// What happened.
    public enum Kind: String, Hashable, Sendable, Codable {
        /// The device went inside.
        case enter
        /// The device went outside.
        case exit
        /// The device has been inside for the fence's dwell time.
        case dwell
    }

    /// The device.
    public var deviceID: String
    /// The fence.
    public var fenceID: String
    /// What happened.
    public var kind: Kind
    /// When: a point's time, or for a crossing between two points the time interpolated along the segment.
    public var timestamp: Date
    /// Where: the point, or the interpolated crossing point.
    public var coordinate: Coordinate

    /// Makes an event.
    public init(deviceID: String, fenceID: String, kind: Kind, timestamp: Date, coordinate: Coordinate) {
        self.deviceID = deviceID
        self.fenceID = fenceID
        self.kind = kind
        self.timestamp = timestamp
        self.coordinate = coordinate
    }
}

/// What the engine remembers about one device between requests. A `Sendable` value; persist it.
public struct DeviceFenceState: Hashable, Sendable {
    /// The last evaluated point (time and place).
    public var lastTimestamp: Date?
    /// Where the last evaluated point was.
    public var lastCoordinate: Coordinate?
    /// Fences the device is inside, with the time it entered.
    public var inside: [String: Date] = [:]
    /// Fences whose dwell event has been emitted during the current stay.
    public var dwelled: Set<String> = []

    /// An empty state: no point seen yet.
    public init() {}
}

/// Decides enter, exit and dwell events for positions against any number of fences.
///
/// Decisions are made on the segment between consecutive points, so a device that jumps
/// across a fence between two fixes still enters and exits it (at interpolated times).
/// Positions are sorted by time first; points not newer than the last evaluated one are
/// ignored (a late point cannot rewrite past events). A grid index keeps evaluation cost
/// proportional to the fences near the segment, not to the total number of fences.
/// A pure, immutable `Sendable` value: share one per fence set.
///
/// ```swift
/// let engine = FenceEngine(fences: fences)
/// var state = DeviceFenceState()
/// let events = engine.evaluate(positions, state: &state)
/// ```
public struct FenceEngine: Sendable {
    /// The fences, in the order given.
    public let fences: [Fence]
    let index: FenceIndex
    private let positionsByID: [String: Int32]

    /// Builds the engine and its spatial index.
    public init(fences: [Fence]) {
        self.fences = fences
        self.index = FenceIndex(fences: fences)
        var byID: [String: Int32] = [:]
        for (i, fence) in fences.enumerated() { byID[fence.id] = Int32(i) }
        self.positionsByID = byID
    }

    /// Whether a fence with this id is in the engine (a dictionary lookup).
    func hasFence(id: String) -> Bool { positionsByID[id] != nil }

    /// The ids of the fences that contain `point`, in fence order; uses the spatial index.
    public func fenceIDs(containing point: Coordinate) -> [String] {
        index.candidates(point, point).compactMap { i in
            let fence = fences[Int(i)]
            return fence.contains(point) ? fence.id : nil
        }
    }

    /// The events caused by `positions` (all of one device), updating `state`.
    public func evaluate(_ positions: [Position], state: inout DeviceFenceState) -> [FenceEvent] {
        var events: [FenceEvent] = []
        for p in positions.sorted(by: { $0.fix.timestamp < $1.fix.timestamp }) {
            if let last = state.lastTimestamp, p.fix.timestamp <= last { continue }
            let here = p.fix.coordinate, now = p.fix.timestamp
            let previous = state.lastCoordinate.flatMap { c in state.lastTimestamp.map { (c, $0) } }
            var candidates = index.candidates(previous?.0 ?? here, here)
            if !state.inside.isEmpty {
                var all = Set(candidates)
                for id in state.inside.keys { if let i = positionsByID[id] { all.insert(i) } }
                candidates = all.sorted()
            }
            for i in candidates {
                let fence = fences[Int(i)]
                let wasInside = state.inside[fence.id] != nil
                let isInside = fence.contains(here)
                func event(_ kind: FenceEvent.Kind, _ at: Date, _ where: Coordinate) {
                    events.append(FenceEvent(deviceID: p.deviceID, fenceID: fence.id, kind: kind, timestamp: at, coordinate: `where`))
                }
                if isInside, !wasInside {
                    event(.enter, now, here)
                    state.inside[fence.id] = now
                } else if !isInside, wasInside {
                    event(.exit, now, here)
                    state.inside[fence.id] = nil
                    state.dwelled.remove(fence.id)
                } else if !isInside, let (from, then) = previous,
                          let crossing = FenceGeometry.crossing(fence, from: from, to: here) {
                    let interpolate = { (t: Double) -> (Date, Coordinate) in
                        let time = then.addingTimeInterval(now.timeIntervalSince(then) * t)
                        let lat = from.latitude + (here.latitude - from.latitude) * t
                        let lon = Coordinate.normalizedLongitude(from.longitude + remainder(here.longitude - from.longitude, 360) * t)
                        return (time, Coordinate(uncheckedLatitude: lat, longitude: lon))
                    }
                    let (enterTime, enterPoint) = interpolate(crossing.enter)
                    let (exitTime, exitPoint) = interpolate(crossing.exit)
                    event(.enter, enterTime, enterPoint)
                    event(.exit, exitTime, exitPoint)
                }
                if isInside, let dwell = fence.dwellSeconds, let since = state.inside[fence.id],
                   !state.dwelled.contains(fence.id), now.timeIntervalSince(since) >= dwell {
                    event(.dwell, now, here)
                    state.dwelled.insert(fence.id)
                }
            }
            state.lastTimestamp = now
            state.lastCoordinate = here
        }
        return events
    }
}
