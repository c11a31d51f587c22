import Foundation
import WaymarkGeo

/// The monitor's wait for one fix, owned by a ``GeofenceMonitor``: when it began, when it gives up,
/// and why it waits (a catch-up that decides every fence, or a position for a reselection after
/// the refresh fence's exit). OS events waiting for a check are the monitor's own (`pending`).
///
/// It returns verdicts: whether a fix answers it (``answers(_:freshness:)``), whether timers are held
/// (``holdsTimers``), and the deadline to wake at.
struct FixWait: Sendable {
    /// When the current wait for a fix began.
    private(set) var since: Date?
    /// When the wait gives up.
    private(set) var deadline: Date?
    /// When the pending catch-up began (a fix is wanted to decide every fence).
    private(set) var catchUpSince: Date?
    /// Whether a position is wanted for a reselection (after the refresh fence's exit).
    private(set) var awaitingPosition = false

    /// Whether a catch-up or a reselection wants a fix (OS events waiting for a check are counted by the monitor).
    var wantsFix: Bool { awaitingPosition || catchUpSince != nil }

    /// Whether dwell and debounce timers are held: a catch-up waits for its fix (the device may
    /// have left meanwhile).
    var holdsTimers: Bool { catchUpSince != nil }

    /// Starts (or extends) the wait: it began at the first start, and now gives up `timeout` after `now`.
    mutating func start(at now: Date, timeout: TimeInterval) {
        if since == nil { since = now }
        deadline = now.addingTimeInterval(timeout)
    }

    /// Starts a catch-up (one already waiting keeps its start, with a fresh timeout).
    mutating func beginCatchUp(at now: Date, timeout: TimeInterval) {
        if catchUpSince == nil { catchUpSince = now }
        start(at: now, timeout: timeout)
    }

    /// Waits for a position for a reselection.
    mutating func awaitPosition(at now: Date, timeout: TimeInterval) {
        awaitingPosition = true
        start(at: now, timeout: timeout)
    }

    /// A decision-grade position came: the reselection no longer waits for one.
    mutating func positionCame() { awaitingPosition = false }

    /// Whether `fix` answers the wait: it was measured after the wait began, less the `freshness`
    /// a one-shot answer may have.
    func answers(_ fix: Fix, freshness: TimeInterval) -> Bool {
        guard let since else { return false }
        return fix.timestamp >= since.addingTimeInterval(-freshness)
    }

    /// Whether the wait has given up by `now`.
    func expired(at now: Date) -> Bool { deadline.map { $0 <= now } ?? false }

    /// Ends the wait (answered, failed or given up): the catch-up is over too.
    mutating func end() {
        self = FixWait()
    }

    /// Forgets the start and the deadline when nothing wants a fix any more (`wanted` false).
    mutating func settle(wanted: Bool) {
        guard !wanted else { return }
        since = nil
        deadline = nil
    }
}

/// The OS region slots a ``GeofenceMonitor`` may use, owned by it: what the app grants, less the
/// host's regions, the reserved ones, the balanced mode's stationary region and the slots the OS
/// refused; none while region monitoring cannot work at all (denied, unavailable) until the
/// authorization changes.
struct RegionBudget: Sendable {
    let slots: Int
    let hostRegions: Int
    let reserved: Int
    /// Whether a refusal (denied, unavailable) blocked monitoring until the authorization changes.
    private(set) var blocked = false

    init(configuration: GeofenceMonitor.Configuration) {
        slots = configuration.regionSlots
        hostRegions = max(configuration.hostRegionCount, configuration.hostRegionIdentifiers.count)
        reserved = configuration.reservedRegionSlots
    }

    /// The slots for the fences and the refresh fence: `penalty` slots the OS refused are gone,
    /// and one is kept for the stationary region when `keepsStillSlot`.
    func available(penalty: Int, keepsStillSlot: Bool) -> Int {
        if blocked { return 0 }
        return max(0, slots - hostRegions - reserved - (keepsStillSlot ? 1 : 0) - penalty)
    }

    /// A refusal: returns how many slots it takes off for good (one for tooManyRegions); denied
    /// and unavailable block monitoring; a failure of one region changes nothing here.
    mutating func refused(_ reason: RegionFailure) -> Int {
        switch reason {
        case .tooManyRegions: return 1
        case .denied, .unavailable: blocked = true
        case .failed, .radiusTooLarge: break
        }
        return 0
    }

    /// The authorization changed to one that allows monitoring: returns whether that lifted a block.
    mutating func authorizationAllows() -> Bool {
        defer { blocked = false }
        return blocked
    }
}
