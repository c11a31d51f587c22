import Foundation
import WaymarkGeo

/// Location updates near the boundaries of one mode's fences, owned by a ``GeofenceMonitor`` (one for
/// ``GeofenceMode/precise`` fences, one for ``GeofenceMode/balanced`` ones).
///
/// It keeps the last position, whether iOS paused the updates, and a GNSS rest, and returns
/// verdicts: a ``Tier`` (nothing, hundred-metre updates, best accuracy), the standard-updates
/// demand of that tier, and when a planned GNSS rest ends. The monitor tells it how far the
/// nearest boundary of its fences is (`nearest`), so a fence of another mode never changes what
/// this tracker asks for.
struct ProximityTracker: Sendable {
    /// How close the device is to a boundary of the tracker's fences.
    enum Tier: Hashable, Sendable {
        /// Nothing: no boundary within the approach distance (or the tracker may not run).
        case far
        /// Hundred-metre updates (Wi-Fi): enough to see the device come near, and to keep the app running.
        case approach
        /// Best accuracy, resting between fixes while no boundary can be reached.
        case near
    }

    /// The distances and rests of one tracker (``ProximityTracking`` and ``BalancedTracking`` map onto it).
    struct Settings: Hashable, Sendable {
        /// A boundary this near (beyond the position's accuracy) asks for best accuracy; left at 1.5 times it.
        var nearMeters: Double
        /// Whether GNSS rests between fixes near the boundaries.
        var restsGNSS: Bool
        /// The shortest and longest rest, seconds.
        var restSeconds: ClosedRange<Double>
        /// Seconds of travel the rest keeps as margin for GNSS to give a fix again.
        var gnssReacquireSeconds: Double
        /// How long a rest may run past the earliest moment the device could reach a boundary: a
        /// crossing is then reported up to this much later, for that much less GNSS.
        var latencyBudgetSeconds: Double = 0
        /// Whether iOS's pause of the updates (`pausesLocationUpdatesAutomatically`) is allowed.
        var pausesAutomatically: Bool
        /// The distance filter of the hundred-metre updates (nil: every fix); it saves the app's
        /// wakes to take fixes, not the radio's power (PLATFORM.md §3).
        var approachDistanceFilterMeters: Double? = nil
        /// Whether a GNSS fix (20 m or better) stands for the position until its uncertainty, grown
        /// at its speed plus 1 m/s, is worse than a later coarse position's accuracy: coarse Wi-Fi
        /// fixes between GNSS fixes then do not pull the tier near and back (each switch to GNSS
        /// costs a reacquisition).
        var holdsGNSSPosition = false
    }

    let settings: Settings
    /// The tier set by the last ``updateTier(active:approachMeters:enterDepth:nearest:)``.
    private(set) var tier = Tier.far
    /// GNSS rests (hundred-metre accuracy) until then.
    private(set) var restUntil: Date?
    /// When the last rest ended, until a GNSS fix came after it.
    private var reacquiringSince: Date?
    private var position: (coordinate: Coordinate, accuracy: Double)?
    private var gnss: (coordinate: Coordinate, accuracy: Double, time: Date, speed: Double)?
    private var paused = false
    private var pausedAt: Coordinate?

    init(settings: Settings) {
        self.settings = settings
    }

    /// The distance filter of the hundred-metre updates while GNSS rests (metres): the positions
    /// then only watch for a crossing the rest may let happen, and fewer of them do that too.
    static let restDistanceFilterMeters = 25.0

    /// The last position the tracker took, with its accuracy.
    var lastPosition: (coordinate: Coordinate, accuracy: Double)? { position }

    /// Whether iOS paused the updates and they were not asked for again.
    var isPaused: Bool { paused }

    /// The standard-updates demand of the tier, if any.
    var demand: LocationDemand? {
        let accuracy: DesiredAccuracy
        switch tier {
        case .far: return nil
        case .approach: accuracy = .hundredMeters
        case .near: accuracy = restUntil == nil ? .best : .hundredMeters
        }
        let filter = tier == .approach ? settings.approachDistanceFilterMeters : restUntil != nil ? Self.restDistanceFilterMeters : nil
        // The tracker watches boundaries and states no activity: a ride's activity type holds beside it.
        return .standard(StandardDemand(accuracy: accuracy, distanceFilterMeters: filter, background: true, activityType: .other,
                                        pausesAutomatically: settings.pausesAutomatically, statesActivity: false))
    }

    /// Takes a position (a fix, a significant change, a visit), measured at `time` with `speed` when known.
    mutating func note(_ coordinate: Coordinate, accuracy: Double, at time: Date? = nil, speed: Double? = nil) {
        position = (coordinate, accuracy)
        if accuracy <= 20, let time {
            gnss = (coordinate, accuracy, time, max(speed ?? 0, 0))
            reacquiringSince = nil
        }
    }

    /// Whether GNSS is coming back after a rest at `time`: the rest ended less than three times
    /// ``Settings/gnssReacquireSeconds`` ago and no GNSS fix came since. The positions iOS gives
    /// meanwhile are Wi-Fi's, and a rest may have brought the device to a boundary
    /// (``Settings/latencyBudgetSeconds``), where one of them would decide a fence on its error.
    func isReacquiring(at time: Date) -> Bool {
        guard let since = reacquiringSince, tier == .near else { return false }
        return time.timeIntervalSince(since) <= 3 * settings.gnssReacquireSeconds
    }

    /// The position the tier is set from at `now`: the last one, or (``Settings/holdsGNSSPosition``)
    /// the last GNSS fix with its accuracy grown at its speed plus 1 m/s while that is better.
    func tierPosition(at now: Date?) -> (coordinate: Coordinate, accuracy: Double)? {
        guard let position else { return nil }
        guard settings.holdsGNSSPosition, let gnss, let now else { return position }
        let grown = gnss.accuracy + (gnss.speed + 1) * max(0, now.timeIntervalSince(gnss.time))
        return grown < position.accuracy ? (gnss.coordinate, grown) : position
    }

    /// Handles iOS's pause of the updates and the signs that the device moves again: a launch, the
    /// app opening, a region event, a significant change away from where they paused (iOS also
    /// delivers them to a still device at least every 15 minutes: Apple, Energy Efficiency Guide
    /// for iOS Apps), a visit's departure. iOS never resumes paused updates itself (Apple,
    /// `locationManagerDidPauseLocationUpdates(_:)`).
    mutating func handle(_ event: DeviceEvent) {
        switch event {
        case .locationUpdatesPaused:
            paused = true
            restUntil = nil
            pausedAt = position?.coordinate
        case .launched, .willEnterForeground, .regionEntered, .regionExited:
            paused = false
        case .significantChange(let fix):
            if let pausedAt, LocalApproximation.distance(pausedAt, fix.coordinate) <= max(200, fix.horizontalAccuracy ?? 0) { break }
            paused = false
        case .visit(let visit):
            if visit.departure != nil { paused = false }
        default:
            break
        }
    }

    /// Sets the tier from the last position: near when a boundary is within ``Settings/nearMeters``
    /// (1.5 times that to leave the tier) beyond the position's accuracy, approach within
    /// `approachMeters`, else far; far whenever the tracker may not run (`active` false) or is paused.
    ///
    /// `nearest(point, horizon)` is the distance to the nearest boundary of the tracker's fences
    /// within `horizon` metres, nil when none is.
    mutating func updateTier(active: Bool, approachMeters: Double, at now: Date? = nil,
                             nearest: (Coordinate, Double) -> Double?) {
        guard active, !paused, let (point, accuracy) = tierPosition(at: now),
              let distance = nearest(point, max(approachMeters, settings.nearMeters * 1.5) + accuracy) else {
            tier = .far
            restUntil = nil
            return
        }
        let nearLimit = settings.nearMeters * (tier == .near ? 1.5 : 1)
        if distance - accuracy <= nearLimit {
            tier = .near
        } else if distance - accuracy <= approachMeters {
            tier = .approach
        } else {
            tier = .far
        }
        if tier != .near { restUntil = nil; reacquiringSince = nil }
    }

    /// A boundary a GNSS rest is planned against: how far it is, and how far past it the device
    /// may go before it could have passed through the fence unseen.
    struct Boundary: Hashable, Sendable {
        /// The distance to the boundary, metres.
        var distance: Double
        /// How far past the boundary the device may travel before a crossing of this fence could
        /// be missed altogether: infinite from inside (an exit cannot be undone unseen), twice the
        /// radius less twice the enter depth for a circle from outside, 0 for a polygon from outside.
        var passMeters: Double
    }

    /// After a GNSS fix near the boundaries: lets GNSS rest until the device could first reach a
    /// boundary (at 1.5 times its speed plus 2 m/s, at least 4 m/s, less the enter depth, the fix's
    /// accuracy and ``Settings/gnssReacquireSeconds`` of travel), plus
    /// ``Settings/latencyBudgetSeconds`` but never so long that it could pass through a fence. A rest
    /// shorter than the minimum is not taken; one longer than the maximum is cut to it.
    ///
    /// `boundaries(horizon)` lists the boundaries within `horizon` metres of the fix.
    mutating func planRest(after fix: Fix, enterDepth: Double, boundaries: (Double) -> [Boundary]) {
        guard settings.restsGNSS, tier == .near, restUntil == nil,
              let accuracy = fix.horizontalAccuracy, accuracy <= enterDepth else { return }
        let rest = Self.restSeconds(speed: fix.speed, accuracy: accuracy, enterDepth: enterDepth, settings: settings,
                                    boundaries: boundaries)
        guard let rest else { return }
        restUntil = fix.timestamp.addingTimeInterval(rest)
    }

    /// The rest GNSS may take after a fix with this speed and accuracy, nil when it is under the
    /// minimum (pure: the tests read it on both sides of each threshold).
    ///
    /// For each boundary within the horizon: the time until the device could reach it, plus the
    /// latency budget or, if shorter, the time to travel its ``Boundary/passMeters``; the rest is the
    /// least of those, cut to the maximum.
    static func restSeconds(speed: Double?, accuracy: Double, enterDepth: Double, settings: Settings,
                            boundaries: (Double) -> [Boundary]) -> Double? {
        let reach = reachSpeed(speed)
        let margin = enterDepth + accuracy + reach * settings.gnssReacquireSeconds
        let horizon = reach * settings.restSeconds.upperBound + margin
        var rest = settings.restSeconds.upperBound
        for boundary in boundaries(horizon) {
            let overrun = min(settings.latencyBudgetSeconds, max(0, boundary.passMeters) / reach)
            rest = min(rest, (boundary.distance - margin) / reach + overrun)
        }
        return rest >= settings.restSeconds.lowerBound ? rest : nil
    }

    /// The speed the device could reach from a measured one: 1.5 times it plus 2 m/s, at least
    /// 4 m/s (and that when the speed is unknown).
    static func reachSpeed(_ speed: Double?) -> Double {
        max(max(speed ?? 0, 0) * 1.5 + 2, 4)
    }

    /// Ends a rest before its time (a position during it suggests a crossing); GNSS comes back.
    mutating func cutRest(at now: Date) {
        guard let until = restUntil, until > now else { return }
        restUntil = nil
        reacquiringSince = now
    }

    /// Ends a rest that has come due.
    mutating func endRest(at now: Date) {
        if let until = restUntil, until <= now {
            restUntil = nil
            reacquiringSince = until
        }
    }
}
