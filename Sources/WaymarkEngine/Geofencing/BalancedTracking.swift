import Foundation
import WaymarkGeo

/// The settings of the ``GeofenceMode/balanced`` mode, the default.
///
/// - **Still:** no location updates at all. The device counts as still when the motion coprocessor
///   reports a stationary activity (medium confidence or more), when iOS pauses the updates, when
///   a visit arrives, or when positions have stayed within their accuracy for
///   ``stillAfterSeconds``. The monitor then registers a *stationary region* of
///   ``stationaryRadiusMeters`` around the device and lets iOS suspend the app.
/// - **Moving again:** the stationary region's exit, a significant change or a visit departure away
///   from the resting place, any fence's region event (iOS commits one only after the device has
///   moved 100–200 m), a moving motion activity while the app runs, or a GNSS speed of at least
///   ``movingSpeed``. Motion never wakes a suspended app (PLATFORM.md §6), so a suspended app
///   notices a departure through those location wakes.
/// - **Moving:** hundred-metre updates (Wi-Fi) keep the app running only while a boundary of a
///   balanced fence could be reached before the next wake if they stopped: within
///   ``wakeIntervalSeconds`` of travel at the reach speed (1.5 times the last GNSS speed plus
///   2 m/s, at least 4 m/s; ``assumedSpeed`` when no GNSS speed is known), and at most
///   ``maximumApproachMeters``. GNSS runs only within
///   ``nearMeters`` of such a boundary, resting between fixes while it cannot be reached
///   (``restSeconds``). Farther away nothing runs: the app is suspended until a significant change,
///   a region event or a visit wakes it.
/// - **iOS first:** a balanced fence's region event that arrives without a fresh fix is checked with
///   one fix before it is delivered (iOS treats radii under 200 m as 200 m, PLATFORM.md §5); if no
///   fix comes in time, iOS's event is delivered, marked ``FenceEvent/Timing/osDelayed``.
///
/// Needs Always authorization with full accuracy to run updates in the background (PLATFORM.md §3);
/// without it a balanced fence is monitored as a ``GeofenceMode/regions`` one. Distances in
/// metres, times in seconds. A `Sendable` value type.
public struct BalancedTracking: Hashable, Sendable {
    /// A balanced boundary this near (beyond the position's accuracy) turns GNSS on (default 60 m;
    /// left at 1.5 times it).
    public var nearMeters: Double
    /// The longest time until the next wake once updates stop (default 300 s: significant changes
    /// come at most every 5 minutes, region events 3–5 minutes late, PLATFORM.md §4–§5).
    public var wakeIntervalSeconds: Double
    /// The reach speed assumed when no GNSS speed from the last two minutes is known (default 20 m/s).
    public var assumedSpeed: Double
    /// The farthest a balanced boundary may be for the hundred-metre updates to keep the app
    /// running (default 1000 m): beyond it the app is left to iOS's wakes (significant changes,
    /// region events, visits) even if the device could get there before the next one; a fence it
    /// reaches meanwhile is heard through its region event, confirmed with a fix.
    public var maximumApproachMeters: Double
    /// The distance filter of the hundred-metre updates (default 25 m): fewer wakes to take fixes.
    public var approachDistanceFilterMeters: Double?
    /// The shortest and longest GNSS rest near a boundary (default 15–300 s).
    public var restSeconds: ClosedRange<Double>
    /// How long GNSS takes to give a fix again after a rest (default 5 s).
    public var gnssReacquireSeconds: Double
    /// How long a GNSS rest may run past the earliest moment the device could reach a balanced
    /// boundary (default 0 s): a crossing then is decided by the first fix after the rest, up to
    /// this much later, for less GNSS (``ProximityTracking/latencyBudgetSeconds`` explains the
    /// limits). 0 keeps every rest short of any boundary the device could reach. Measured in the
    /// geofence experiment (a pocketed app, seeds 1–10, 0 → 30 s): park energy over recording
    /// 77.7% → 27.9%, reported 95.0% → 91.5%; city 106.5% → 48.8%, reported 89.4% → 88.2%;
    /// hence the default. The crossings lost came after stops, where iOS woke the suspended app
    /// later than without the budget (park, seed 9: 434 s later).
    public var latencyBudgetSeconds: Double
    /// Positions that stay within their accuracy this long make the device still (default 120 s).
    public var stillAfterSeconds: Double
    /// A GNSS speed at least this makes the device moving (default 1 m/s; the receiver's noise at
    /// rest is about 0.3 m/s).
    public var movingSpeed: Double
    /// The radius of the stationary region registered while still (default 150 m; iOS treats
    /// radii under about 200 m as about 200 m, PLATFORM.md §5).
    public var stationaryRadiusMeters: Double
    /// Whether the monitor starts motion activity updates and uses them (default true).
    public var usesMotion: Bool
    /// Whether the monitor starts visit monitoring and uses visits (default true).
    public var usesVisits: Bool

    /// Makes the settings; the defaults are the measured ones (<doc:ChoosingAGeofenceMode>).
    public init(nearMeters: Double = 60, wakeIntervalSeconds: Double = 300, assumedSpeed: Double = 20,
                maximumApproachMeters: Double = 1000, approachDistanceFilterMeters: Double? = 25,
                restSeconds: ClosedRange<Double> = 15...300, gnssReacquireSeconds: Double = 5, latencyBudgetSeconds: Double = 0,
                stillAfterSeconds: Double = 120, movingSpeed: Double = 1, stationaryRadiusMeters: Double = 150,
                usesMotion: Bool = true, usesVisits: Bool = true) {
        self.nearMeters = nearMeters
        self.wakeIntervalSeconds = wakeIntervalSeconds
        self.assumedSpeed = assumedSpeed
        self.maximumApproachMeters = maximumApproachMeters
        self.approachDistanceFilterMeters = approachDistanceFilterMeters
        self.restSeconds = restSeconds
        self.gnssReacquireSeconds = gnssReacquireSeconds
        self.latencyBudgetSeconds = latencyBudgetSeconds
        self.stillAfterSeconds = stillAfterSeconds
        self.movingSpeed = movingSpeed
        self.stationaryRadiusMeters = stationaryRadiusMeters
        self.usesMotion = usesMotion
        self.usesVisits = usesVisits
    }

    /// The proximity tracker's settings for balanced fences (iOS's automatic pause stays on: it
    /// only adds a way to notice stillness).
    var trackerSettings: ProximityTracker.Settings {
        ProximityTracker.Settings(nearMeters: nearMeters, restsGNSS: true, restSeconds: restSeconds,
                                  gnssReacquireSeconds: gnssReacquireSeconds, latencyBudgetSeconds: latencyBudgetSeconds,
                                  pausesAutomatically: true,
                                  approachDistanceFilterMeters: approachDistanceFilterMeters, holdsGNSSPosition: true)
    }

    /// What breaks the contract (see `ContractCheck`).
    func contractViolations(into check: inout ContractCheck) {
        check.finitePositive("balanced.nearMeters", nearMeters)
        check.finitePositive("balanced.wakeIntervalSeconds", wakeIntervalSeconds)
        check.finitePositive("balanced.assumedSpeed", assumedSpeed)
        check.require(maximumApproachMeters >= nearMeters,
                      "balanced.maximumApproachMeters (\(maximumApproachMeters)) must be at least nearMeters (\(nearMeters))")
        check.require(restSeconds.lowerBound > 0, "balanced.restSeconds must start above zero, not at \(restSeconds.lowerBound)")
        check.nonNegative(["balanced.gnssReacquireSeconds": gnssReacquireSeconds, "balanced.stillAfterSeconds": stillAfterSeconds,
                           "balanced.latencyBudgetSeconds": latencyBudgetSeconds,
                           "balanced.movingSpeed": movingSpeed])
        check.finitePositive("balanced.stationaryRadiusMeters", stationaryRadiusMeters)
    }
}

/// Whether the device is still or moving, for the ``GeofenceMode/balanced`` mode, from the signals
/// the ride tracker's automatic tracking uses too: motion activity, iOS's pause of the updates, the
/// stationary region, significant changes, visits, and the positions themselves. Owned by a
/// ``GeofenceMonitor``; memory only (a new process starts undecided, which counts as moving).
struct MotionGate: Sendable {
    /// The gate's verdict.
    enum Verdict: Hashable, Sendable {
        /// Nothing known yet (a new process): treated as moving.
        case unknown
        /// The device moves.
        case moving
        /// The device rests at ``MotionGate/place``.
        case still
    }

    let settings: BalancedTracking
    /// The verdict now.
    private(set) var verdict = Verdict.unknown
    /// Where the device rests (while still), with the accuracy of that position.
    private(set) var place: (coordinate: Coordinate, accuracy: Double)?
    /// The first position of the current stretch within its accuracy, and when it was taken.
    private var anchor: (coordinate: Coordinate, accuracy: Double, time: Date)?
    /// The last GNSS speed and when it was measured.
    private var speed: (value: Double, time: Date)?
    /// When a moving activity was last reported.
    private var movingActivityAt: Date?

    init(settings: BalancedTracking) {
        self.settings = settings
    }

    /// A gate that starts still at a stored resting place (a new process).
    init(settings: BalancedTracking, restingAt place: Coordinate) {
        self.settings = settings
        self.verdict = .still
        self.place = (place, 0)
    }

    /// Whether the device counts as still.
    var isStill: Bool { verdict == .still }

    /// The speed the device could reach before the next wake: 1.5 times the last GNSS speed plus
    /// 2 m/s (at least 4 m/s) when one from the last two minutes is known, else ``BalancedTracking/assumedSpeed``.
    func reachSpeed(at now: Date) -> Double {
        guard let speed, now.timeIntervalSince(speed.time) <= 120 else { return settings.assumedSpeed }
        return ProximityTracker.reachSpeed(speed.value)
    }

    /// Takes one device event. `stillRegion` is the identifier of the stationary region.
    mutating func handle(_ event: DeviceEvent, at now: Date, stillRegion: String) {
        switch event {
        case .motionActivity(let motion) where settings.usesMotion:
            if motion.kind == .stationary {
                if motion.confidence >= .medium { becomeStill(at: now) }
            } else if motion.kind != .unknown {
                movingActivityAt = now
                becomeMoving()
            }
        case .locationUpdatesPaused:
            becomeStill(at: now)
        case .regionExited(let identifier) where identifier == stillRegion:
            becomeMoving()
        case .regionEntered(let identifier) where identifier != stillRegion:
            becomeMoving()
        case .regionExited:
            becomeMoving()
        case .significantChange(let fix):
            if let accuracy = fix.horizontalAccuracy, away(fix.coordinate, accuracy: accuracy) { becomeMoving() }
        case .visit(let visit) where settings.usesVisits:
            if visit.departure != nil {
                becomeMoving()
            } else if visit.horizontalAccuracy >= 0 {
                anchor = (visit.coordinate, visit.horizontalAccuracy, now)
                becomeStill(at: now)
            }
        case .locations(let fixes):
            for fix in fixes { take(fix) }
        default:
            break
        }
    }

    /// Whether a position is clearly away from the resting place: beyond the stationary radius plus
    /// twice the accuracies (a still receiver's wander never gets there).
    func away(_ coordinate: Coordinate, accuracy: Double) -> Bool {
        guard let place else { return verdict != .still }
        return LocalApproximation.distance(place.coordinate, coordinate)
            > settings.stationaryRadiusMeters + 2 * max(accuracy, 0) + place.accuracy
    }

    /// A fix: a GNSS speed at or above ``BalancedTracking/movingSpeed`` or a position clearly away
    /// from the stretch's anchor means moving; positions within their accuracy of the anchor for
    /// ``BalancedTracking/stillAfterSeconds`` (with no moving activity meanwhile) mean still.
    mutating func take(_ fix: Fix) {
        guard let accuracy = fix.horizontalAccuracy, accuracy >= 0 else { return }
        if let measured = fix.speed, measured >= 0, accuracy <= 50 { speed = (measured, fix.timestamp) }
        if let measured = fix.speed, measured >= settings.movingSpeed, accuracy <= 50 {
            anchor = (fix.coordinate, accuracy, fix.timestamp)
            becomeMoving()
            return
        }
        guard let start = anchor else {
            anchor = (fix.coordinate, accuracy, fix.timestamp)
            return
        }
        let distance = LocalApproximation.distance(start.coordinate, fix.coordinate)
        if distance > start.accuracy + accuracy + 25 {
            // Without a recent GNSS speed, the stretch's displacement gives one.
            let dt = fix.timestamp.timeIntervalSince(start.time)
            if dt >= 10, speed.map({ fix.timestamp.timeIntervalSince($0.time) > 120 }) ?? true {
                speed = (distance / dt, fix.timestamp)
            }
            anchor = (fix.coordinate, accuracy, fix.timestamp)
            if isStill, away(fix.coordinate, accuracy: accuracy) { becomeMoving() }
            return
        }
        // A better position of the same stretch keeps its start time.
        if accuracy < start.accuracy { anchor = (fix.coordinate, accuracy, start.time) }
        let quietSince = max(start.time, movingActivityAt ?? .distantPast)
        if fix.timestamp.timeIntervalSince(quietSince) >= settings.stillAfterSeconds { becomeStill(at: fix.timestamp) }
    }

    private mutating func becomeStill(at now: Date) {
        guard verdict != .still else { return }
        verdict = .still
        if let anchor { place = (anchor.coordinate, anchor.accuracy) }
    }

    private mutating func becomeMoving() {
        verdict = .moving
        place = nil
    }
}
