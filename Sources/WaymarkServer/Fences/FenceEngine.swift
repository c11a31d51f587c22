import Foundation
import WaymarkGeo

/// An enter, exit or dwell event of one device at one fence.
public struct ServerFenceEvent: Hashable, Sendable {
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
/// proportional to the fences near the segment, not to the total number of fences, and a
/// precomputed box per fence settles most of those without trigonometry.
///
/// Two kinds of implausible point are kept out of the decisions. A step faster than
/// ``maximumPlausibleSpeed`` is a gap: only where the device is afterwards counts, nothing is
/// interpolated along it. A point the device itself flagged (`Fix.impliesImpossibleSpeed`,
/// sent as `"impossible_speed":true`) is stored but skipped altogether: it causes no event and the next
/// point is compared with the last unflagged one.
///
/// A pure, immutable `Sendable` value: share one per fence set.
///
/// ```swift
/// let engine = FenceEngine(fences: fences)
/// var state = DeviceFenceState()
/// let events = engine.evaluate(positions, state: &state)
/// ```
public struct FenceEngine: Sendable {
    /// The fences, in the order given.
    public let fences: [ServerFence]
    let index: ServerFenceGrid
    private let positionsByID: [String: Int32]
    /// What the evaluation loop reads per fence, parallel to ``fences``.
    private let entries: [Entry]

    /// Builds the engine and its spatial index.
    public init(fences: [ServerFence]) {
        self.fences = fences
        self.index = ServerFenceGrid(fences: fences)
        var byID: [String: Int32] = [:]
        for (i, fence) in fences.enumerated() { byID[fence.id] = Int32(i) }
        self.positionsByID = byID
        self.entries = fences.map(Entry.init)
    }

    /// Whether a fence with this id is in the engine (a dictionary lookup).
    func hasFence(id: String) -> Bool { positionsByID[id] != nil }

    /// The ids of the fences that contain `point`, in fence order; uses the spatial index.
    public func fenceIDs(containing point: Coordinate) -> [String] {
        var candidates: [Int32] = []
        index.candidates(point, point, into: &candidates)
        var probe = Probe(point)
        return candidates.compactMap { i in contains(Int(i), &probe) ? fences[Int(i)].id : nil }
    }

    /// The events caused by `positions` (all of one device), updating `state`, with no limit on their number.
    public func evaluate(_ positions: [Position], state: inout DeviceFenceState) -> [ServerFenceEvent] {
        // With no limit nothing can be refused.
        (try? evaluate(positions, state: &state, limits: .unlimited)) ?? []
    }

    /// The events caused by `positions` (all of one device), updating `state`.
    ///
    /// - throws: ``ServerError/Code/payloadTooLarge`` naming the limit when one point, or all of them,
    ///   would cause more events than `limits` allows; `state` is then left as it was.
    public func evaluate(_ positions: [Position], state: inout DeviceFenceState,
                         limits: FenceEventLimits) throws -> [ServerFenceEvent] {
        let original = state
        do {
            return try evaluateChecked(positions, state: &state, limits: limits)
        } catch {
            state = original
            throw error
        }
    }

    private func evaluateChecked(_ positions: [Position], state: inout DeviceFenceState,
                                 limits: FenceEventLimits) throws -> [ServerFenceEvent] {
        var events: [ServerFenceEvent] = []
        // The fences the device is inside, as ascending indices (fences no longer in the engine are left
        // to `DeviceFenceState.prune`), kept in step with `state.inside`.
        var inside = state.inside.keys.compactMap { positionsByID[$0] }.sorted()
        var candidates: [Int32] = []
        var entered: [Int32] = [], exited: [Int32] = []
        let ordered = Self.inTimeOrder(positions)
        for k in ordered.indices {
            // Only the coordinate and time are read per point; the device id (a string) only for events.
            let here = ordered[k].fix.coordinate, now = ordered[k].fix.timestamp
            if let last = state.lastTimestamp, now <= last { continue }
            // A point the device flagged as implying an impossible speed is stored, but it is no evidence of
            // where the device went: it causes no event and is not the reference for the next point.
            if ordered[k].fix.impliesImpossibleSpeed { continue }
            // A jump no vehicle can make (bad data, a spoofed track) is a gap: only where the device is
            // now counts, and nothing is interpolated along it.
            let previous = state.lastCoordinate.flatMap { c in state.lastTimestamp.map { (c, $0) } }
                .flatMap { Self.isPlausibleStep(from: $0.0, at: $0.1, to: here, at: now) ? $0 : nil }
            index.candidates(previous?.0 ?? here, here, into: &candidates)
            var probe = Probe(here)
            let segment = previous.map { Segment(from: $0.0, to: here) }
            let eventsBefore = events.count
            entered.removeAll(keepingCapacity: true)
            exited.removeAll(keepingCapacity: true)
            // Candidates and the fences the device is inside, merged in ascending fence order.
            var c = 0, n = 0
            while c < candidates.count || n < inside.count {
                let i: Int32, wasInside: Bool
                if n == inside.count || (c < candidates.count && candidates[c] < inside[n]) {
                    i = candidates[c]; wasInside = false; c += 1
                } else {
                    i = inside[n]; wasInside = true
                    if c < candidates.count, candidates[c] == i { c += 1 }
                    n += 1
                }
                let isInside = contains(Int(i), &probe)
                if !isInside, !wasInside {
                    // The common case: outside before and after; only a segment through the fence matters.
                    guard let segment, let (from, then) = previous, entries[Int(i)].box.touches(segment),
                          let crossing = crossing(Int(i), segment: segment, from: from, to: here) else { continue }
                    let interpolate = { (t: Double) -> (Date, Coordinate) in
                        let time = then.addingTimeInterval(now.timeIntervalSince(then) * t)
                        let lat = from.latitude + (here.latitude - from.latitude) * t
                        let lon = Coordinate.normalizedLongitude(from.longitude + segment.longitudeChange * t)
                        return (time, Coordinate(uncheckedLatitude: lat, longitude: lon))
                    }
                    let (enterTime, enterPoint) = interpolate(crossing.enter)
                    let (exitTime, exitPoint) = interpolate(crossing.exit)
                    let id = fences[Int(i)].id, device = ordered[k].deviceID
                    events.append(ServerFenceEvent(deviceID: device, fenceID: id, kind: .enter, timestamp: enterTime, coordinate: enterPoint))
                    events.append(ServerFenceEvent(deviceID: device, fenceID: id, kind: .exit, timestamp: exitTime, coordinate: exitPoint))
                    continue
                }
                let id = fences[Int(i)].id, device = ordered[k].deviceID
                if isInside, !wasInside {
                    events.append(ServerFenceEvent(deviceID: device, fenceID: id, kind: .enter, timestamp: now, coordinate: here))
                    state.inside[id] = now
                    entered.append(i)
                } else if !isInside {
                    events.append(ServerFenceEvent(deviceID: device, fenceID: id, kind: .exit, timestamp: now, coordinate: here))
                    state.inside[id] = nil
                    state.dwelled.remove(id)
                    exited.append(i)
                }
                if isInside, let dwell = entries[Int(i)].dwellSeconds, let since = state.inside[id],
                   now.timeIntervalSince(since) >= dwell, !state.dwelled.contains(id) {
                    events.append(ServerFenceEvent(deviceID: device, fenceID: id, kind: .dwell, timestamp: now, coordinate: here))
                    state.dwelled.insert(id)
                }
            }
            if events.count - eventsBefore > limits.perPoint {
                throw ServerError(.payloadTooLarge, "the point at \(ISO8601DateFormatter().string(from: now)) causes "
                                  + "\(events.count - eventsBefore) fence events, more than the limit of \(limits.perPoint) per point")
            }
            if events.count > limits.perRequest {
                throw ServerError(.payloadTooLarge, "the request causes more than \(limits.perRequest) fence events, the limit "
                                  + "per request (the first \(k + 1) of its new points in time order already do); send smaller batches")
            }
            if !entered.isEmpty || !exited.isEmpty {
                inside.removeAll { exited.contains($0) }
                inside += entered
                inside.sort()
            }
            state.lastTimestamp = now
            state.lastCoordinate = here
        }
        return events
    }

    /// The fastest a device may move between two points for the segment between them to count (m/s):
    /// 400 m/s (1,440 km/h) is beyond any airliner's ground speed. A faster jump is a gap.
    public static let maximumPlausibleSpeed = 400.0
    /// Distance always allowed for a step, whatever the time (metres): two fixes' position errors.
    public static let jumpAllowanceMeters = 1_000.0

    /// Whether the step from `a` (at `then`) to `b` (at `now`) is one a device can make: at most
    /// ``jumpAllowanceMeters`` plus ``maximumPlausibleSpeed`` times the time between them.
    public static func isPlausibleStep(from a: Coordinate, at then: Date, to b: Coordinate, at now: Date) -> Bool {
        let seconds = max(0, now.timeIntervalSince(then))
        return Geodesy.haversineDistance(a, b) <= jumpAllowanceMeters + maximumPlausibleSpeed * seconds
    }

    /// `positions` sorted by time (stable), without copying when they already are.
    private static func inTimeOrder(_ positions: [Position]) -> [Position] {
        for k in positions.indices.dropFirst() where positions[k].fix.timestamp < positions[k - 1].fix.timestamp {
            return positions.sorted { $0.fix.timestamp < $1.fix.timestamp }
        }
        return positions
    }

    /// Whether fence `i` contains the probe's point: the box first, then the exact test
    /// (the same arithmetic as ``ServerFence/contains(_:)``, with the cosines computed once).
    @inline(__always)
    private func contains(_ i: Int, _ probe: inout Probe) -> Bool {
        let entry = entries[i]
        guard entry.box.contains(probe.point) else { return false }
        switch entry.circle {
        case let (center, radius, _, cosCenter)?:
            // Geodesy.haversineDistance(center, point) <= radius, term for term.
            let phi1 = center.latitude * .pi / 180, phi2 = probe.point.latitude * .pi / 180
            let s1 = sin((phi2 - phi1) / 2), s2 = sin((probe.point.longitude - center.longitude) * .pi / 180 / 2)
            let h = s1 * s1 + cosCenter * probe.cosLatitude * s2 * s2
            return 2 * Geodesy.meanEarthRadius * asin(min(1, h.squareRoot())) <= radius
        case nil:
            return entry.polygon?.contains(probe.point) ?? fences[i].contains(probe.point)
        }
    }

    /// ``SegmentCrossing/crossing(_:from:to:)`` for fence `i`.
    @inline(__always)
    private func crossing(_ i: Int, segment: Segment, from: Coordinate, to: Coordinate) -> (enter: Double, exit: Double)? {
        if let (center, radius, scale, _) = entries[i].circle {
            return SegmentCrossing.circleCrossing(center: center, radius: radius, scale: scale, from: from, to: to)
        }
        if let polygon = entries[i].polygon { return polygon.crossing(from: from, to: to) }
        return SegmentCrossing.crossing(fences[i], from: from, to: to)
    }
}
