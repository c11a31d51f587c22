import Foundation
import WaymarkGeo

/// One delivered geofence event: which fence, what happened, when, and what decided it.
///
/// `sequence` counts the events of one fence from 1 and survives relaunches, so a consumer can
/// tell a new event from one it has already seen.
///
/// ```swift
/// if event.kind == .enter, case .fix(let fix) = event.cause { print(event.fenceID, fix.horizontalAccuracy ?? -1) }
/// ```
///
/// A `Sendable`, `Codable` value type.
public struct FenceEvent: Hashable, Sendable, Codable {
    /// The fence's identifier.
    public var fenceID: String
    /// What happened.
    public var kind: Kind
    /// When it happened: the deciding fix's timestamp, else the time of the deciding OS event or deadline.
    public var time: Date
    /// What decided it.
    public var cause: Cause
    /// The fence's event counter after this event (1 for the first event of the fence).
    public var sequence: UInt64
    /// The fence's user data.
    public var userData: [String: String]

    /// Makes an event.
    public init(fenceID: String, kind: Kind, time: Date, cause: Cause, sequence: UInt64, userData: [String: String] = [:]) {
        self.fenceID = fenceID
        self.kind = kind
        self.time = time
        self.cause = cause
        self.sequence = sequence
        self.userData = userData
    }

    /// The event kinds.
    public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
        /// The device entered the fence.
        case enter
        /// The device left the fence (beyond the boundary by the exit margin).
        case exit
        /// The device stayed inside for the loitering delay.
        case dwell
    }

    /// What decided an event.
    public enum Cause: Hashable, Sendable, Codable {
        /// A location fix.
        case fix(Fix)
        /// An OS region event (entered or exited) for this region identifier, with no fresh fix to check it.
        case region(identifier: String, entered: Bool)
        /// An OS region-state answer (initial state reports).
        case regionState(identifier: String, state: RegionState)
        /// The loitering delay (dwell) or the re-entry debounce window ran out while inside.
        case elapsed
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
