import Foundation
import WaymarkGeo

/// One delivered geofence event: which fence, what happened, when it happened, when the engine
/// learnt it, and what decided it.
///
/// `sequence` counts the events of one fence from 1 and survives relaunches, so a consumer can
/// tell a new event from one it has already seen.
///
/// ## Timing
///
/// iOS reports region crossings minutes late, sometimes much later or never, and not at all while
/// the app is dead unless it relaunches it (see <doc:GeofenceTiming>). Every event therefore
/// carries both sides of its timing:
///
/// - ``time`` is the engine's best estimate of when the crossing happened;
/// - ``earliest`` and ``latest`` bound it: the crossing happened after ``earliest`` (when known:
///   the last moment a position placed the device on the old side) and no later than ``latest``;
/// - ``deliveredAt`` is when the engine decided and published it;
/// - ``timing`` says how the event was found: ``Timing/live`` from a steady stream of fixes,
///   ``Timing/osDelayed`` from an iOS region event, ``Timing/caughtUp`` from a position found after
///   a gap (a relaunch, the app opening, a significant change, a visit).
///
/// What a developer can rely on: `earliest ≤ time ≤ latest ≤ deliveredAt` (except that a fix
/// stamped in the future by its source is not corrected), and ``delay`` (`deliveredAt − time`) is
/// how late the event is. A live event's ``time`` is its deciding fix's timestamp (seconds after
/// the boundary, within the hysteresis); an OS-delayed event's ``time`` is an estimate from iOS's
/// typical latency, clamped to its bounds; a caught-up event's ``time`` is projected back from its
/// deciding fix with the fix's speed (the time it took from the boundary to where the fix is),
/// and without a speed it is the middle of its bounds (or ``latest`` when ``earliest`` is unknown).
///
/// For live and caught-up events the bounds come from positions, so the crossing the engine
/// decided lies between them (up to the positions' own errors). For OS-delayed events
/// ``earliest`` assumes that iOS reports a crossing made after the engine's last position on the
/// old side; iOS is sometimes later than that, and then the crossing (and the device's return,
/// which iOS reports next) happened before ``earliest``.
///
/// ```swift
/// if event.timing != .live { print("\(event.fenceID): \(event.kind) about \(Int(event.delay)) s ago") }
/// ```
///
/// Decoding is backward compatible: an event stored before these fields existed decodes with
/// ``latest`` and ``deliveredAt`` equal to ``time``, no ``earliest`` and ``Timing/live``.
///
/// A `Sendable`, `Codable` value type.
public struct FenceEvent: Hashable, Sendable, Codable {
    /// The fence's identifier.
    public var fenceID: String
    /// What happened.
    public var kind: Kind
    /// The best estimate of when it happened (see the type's discussion, "Timing").
    ///
    /// For a live event the deciding fix's timestamp; for a dwell or a debounced entry the moment
    /// its delay ran out inside.
    public var time: Date
    /// What decided it.
    public var cause: Cause
    /// The fence's event counter after this event (1 for the first event of the fence).
    public var sequence: UInt64
    /// The fence's user data.
    public var userData: [String: String]
    /// The lower bound of the crossing, when known: the last moment a position (a fix or a visit)
    /// placed the device on the side the event says it left. Nil when the engine has no such
    /// position (a fence never observed, or decided only by iOS).
    public var earliest: Date?
    /// The upper bound of the crossing: the deciding position's timestamp, the moment iOS delivered
    /// its region event, or the moment a dwell or debounce delay ran out.
    public var latest: Date
    /// When the engine decided and published the event (the device time of that step).
    public var deliveredAt: Date
    /// How the event was found, and so how late it may be.
    public var timing: Timing

    /// Makes an event; `latest` and `deliveredAt` default to `time`.
    public init(fenceID: String, kind: Kind, time: Date, cause: Cause, sequence: UInt64, userData: [String: String] = [:],
                earliest: Date? = nil, latest: Date? = nil, deliveredAt: Date? = nil, timing: Timing = .live) {
        self.fenceID = fenceID
        self.kind = kind
        self.time = time
        self.cause = cause
        self.sequence = sequence
        self.userData = userData
        self.earliest = earliest
        self.latest = latest ?? time
        self.deliveredAt = deliveredAt ?? time
        self.timing = timing
    }

    /// How late the event was delivered: ``deliveredAt`` minus ``time``, seconds.
    public var delay: TimeInterval { deliveredAt.timeIntervalSince(time) }

    /// The event kinds.
    public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
        /// The device entered the fence.
        case enter
        /// The device left the fence (beyond the boundary by the exit margin).
        case exit
        /// The device stayed inside for the loitering delay.
        case dwell
    }

    /// How an event was found (see the type's discussion, "Timing").
    public enum Timing: String, Hashable, Sendable, Codable, CaseIterable {
        /// Decided from a fix that followed the previous fix within
        /// ``GeofenceMonitor/Configuration/liveGap`` and reached the engine within that time of
        /// being measured (or a dwell or debounce delay handled on time): seconds late at most.
        case live
        /// Decided from an iOS region event with no fresh fix to check it: iOS delivers these
        /// minutes after the crossing (Apple: 3–5 min on average), sometimes much later.
        case osDelayed
        /// Found by a position after a gap in observation: the first fix after a relaunch, the app
        /// opening, a significant change or a visit, a fix delivered late, or a delay handled late.
        /// The crossing lies between ``FenceEvent/earliest`` and ``FenceEvent/latest``.
        case caughtUp
    }

    /// What decided an event.
    public enum Cause: Hashable, Sendable, Codable {
        /// A location fix (a visit counts as a fix at its place, with its accuracy and source
        /// `fused`, at its arrival or departure time).
        case fix(Fix)
        /// An OS region event (entered or exited) for this region identifier, with no fresh fix to
        /// check it. Also the cause of the crossing iOS missed that the monitor infers from it (an
        /// enter delivered just before the exit of a fence it never saw the device enter; see
        /// ``GeofenceMonitor/Configuration/infersMissedCrossings``).
        case region(identifier: String, entered: Bool)
        /// An OS region-state answer (initial state reports).
        case regionState(identifier: String, state: RegionState)
        /// The loitering delay (dwell) or the re-entry debounce window ran out while inside.
        case elapsed
    }

    enum CodingKeys: String, CodingKey {
        case fenceID, kind, time, cause, sequence, userData, earliest, latest, deliveredAt, timing
    }

    /// Decodes an event; fields added later take their defaults when absent (see the type's discussion).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        fenceID = try c.decode(String.self, forKey: .fenceID)
        kind = try c.decode(Kind.self, forKey: .kind)
        time = try c.decode(Date.self, forKey: .time)
        cause = try c.decode(Cause.self, forKey: .cause)
        sequence = try c.decode(UInt64.self, forKey: .sequence)
        userData = try c.decodeIfPresent([String: String].self, forKey: .userData) ?? [:]
        earliest = try c.decodeIfPresent(Date.self, forKey: .earliest)
        latest = try c.decodeIfPresent(Date.self, forKey: .latest) ?? time
        deliveredAt = try c.decodeIfPresent(Date.self, forKey: .deliveredAt) ?? time
        timing = try c.decodeIfPresent(Timing.self, forKey: .timing) ?? .live
    }
}

/// Whether the device is inside a fence, as the ``GeofenceMonitor`` last decided.
public enum FencePresence: String, Hashable, Sendable, Codable, CaseIterable {
    /// Not decided yet (no fix or region state since the fence was added).
    case unknown
    /// Inside.
    case inside
    /// Outside.
    case outside
}
