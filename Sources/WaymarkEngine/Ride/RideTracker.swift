import Foundation
import WaymarkGeo

/// Records a ride: states, an accuracy policy, filtering, live statistics, a low-power watch at
/// stops, and recovery after the app was terminated.
///
/// A pure state machine like the engine's other components: feed it device events with
/// ``handle(_:at:)`` and the rider's taps with ``start(rideID:at:)``, ``pause(at:)``,
/// ``resume(at:)`` and ``stop(at:)``; wake it at ``nextDeadline`` with ``deadlineReached(at:)``.
/// Each step returns commands (motion updates, the wake fence), updates (state, recorded fixes,
/// gaps, statistics, checkpoints) and its location demand; ``demands`` lists every demand
/// (standard updates and significant changes) for the ``DemandResolver``.
///
/// While moving, the ``RideAccuracyPolicy`` row for the current motion activity and speed decides
/// the location settings. When the rider stops, one wake fence (`waymark.ride.wake`, one of the
/// app's 20 region slots) goes up around the stop and GNSS stays on for
/// ``Configuration/holdSeconds`` (a traffic light); then the low-power watch takes over: coarse
/// updates without GNSS that iOS never pauses, and significant changes. Motion, a coarse fix or a
/// significant change clearly away from the stop wakes GNSS to check; leaving the fence resumes at
/// once. ``Configuration/watchSeconds`` after the hold only significant changes and the fence
/// remain, so iOS may suspend the app; its idle wakes and cached fixes near the stop do not turn
/// GNSS on.
///
/// After a termination the app restores the tracker from the last ``RideSnapshot``; the
/// `launched` event (a significant-change or region relaunch, or the user opening the app after a
/// force-quit) resumes the ride, and the span without fixes is reported as a ``GapMarker``.
///
/// ```swift
/// var tracker = RideTracker(restoring: storedSnapshot)
/// var out = tracker.handle(.launched(reason: .user), at: now)
/// if !tracker.state.isActive { out = tracker.start(rideID: "ride-1", at: now) }
/// commands += out.commands + resolver.resolve(tracker.demands)
/// ```
///
/// A `Sendable` value type owned by one task; no clock, no OS.
public struct RideTracker: Sendable {
    /// The output of every step.
    public typealias Output = ComponentOutput<RideUpdate>

    /// The identifier prefix of the tracker's region; the wake fence is the only one.
    public static let regionPrefix = "waymark.ride."
    /// The wake fence's identifier.
    public static let wakeFenceIdentifier = regionPrefix + "wake"
    /// How many OS region slots the tracker may use at once (the wake fence).
    public static let regionSlots = 1

    /// What the location service is doing for the ride.
    enum Phase: Hashable, Sendable {
        case recording
        case coasting(until: Date)
        case holding(until: Date?)
        case watching(until: Date?)
        case sleeping
    }

    /// The configuration in force.
    public let configuration: Configuration
    /// The ride's persistent state, nil before the first ride.
    public internal(set) var snapshot: RideSnapshot?
    /// The latest motion activity.
    public internal(set) var activity: MotionActivity?
    /// How many times GNSS was switched off by duty cycling.
    public var dutyCycleSpells: Int { dutyCycle.spells }
    /// How far, in metres, the rider may travel while GNSS rests; nil for no limit.
    ///
    /// An engine with geofences sets it before each fix to the distance to the nearest fence
    /// boundary (looking ``restHorizonMeters(after:)`` ahead), so that a rest never skips a
    /// crossing: a spell is shortened to end short of the boundary, or not taken. Not stored.
    public var restLimitMeters: Double?

    var phase: Phase = .recording
    var pipeline: Pipeline
    var lastFilteredAt: Date?
    var freshSince: Date?
    var lastSpeed: Double?
    /// When the rider stopped, and when they move again.
    var stops = StopDetector()
    var pendingGap: (start: Date, reason: GapMarker.Reason)?
    var signalLost = false
    var countsMovingTime = true
    /// GNSS rests on steady stretches.
    var dutyCycle: GNSSDutyCycle
    /// Automatic tracking while no ride is under way; nil when it is off or a ride is active.
    var still: StillPhase?
    /// Where the device rests while still, if known.
    var restingPlace: RestingPlace?
    /// Whether the stationary region is registered while no snapshot records it.
    var stillFenceActive = false
    /// False after the rider stopped a ride, until the device has rested: no automatic start.
    var automaticArmed = true
    /// The wake fence as the OS monitors it at this process's launch (``EngineCore/osWakeRegion``).
    var osWakeRegion: MonitoredRegion?
    /// The start of a ``GapMarker/Reason/departureNotRecorded`` gap, due at the next recorded fix.
    var pendingDeparture: Date?
    /// Fixes in a row, during a check, at the resume speed / clearly outside the stationary region.
    var departureSpeedStreak = 0, departureFarStreak = 0
    /// During a check made only to find the resting place: fixes that confirmed it so far.
    var locatingFixes: Int?
    /// Whether motion activity is unavailable to the tracker (no coprocessor, or the permission
    /// refused); the engine sets it from the permission answer. Automatic tracking then falls back
    /// to ``AutomaticTracking/withoutMotion``.
    public var motionUnavailable = false

    typealias Pipeline = FixFilterChain<FixFilterChain<FixFilterChain<TimestampOrderFilter, AccuracyGate>, SpeedOutlierFilter>, KalmanFilter>

    /// Makes a tracker for a new process, resuming from `snapshot` if the app stored one.
    ///
    /// With ``Configuration/automatic`` enabled and no ride under way, the tracker is still from
    /// the process's `launched` event on (see ``AutomaticTracking``).
    ///
    /// - precondition: `configuration` is usable: no negative or NaN limits, durations or distances,
    ///   a positive accuracy limit, speed limit, process noise and stationary radius, and the duty
    ///   cycle's initial rest no longer than its longest (the message names every offending field).
    public init(configuration: Configuration = Configuration(), restoring snapshot: RideSnapshot? = nil) {
        ContractCheck.require(configuration.contractViolations, in: "RideTracker.Configuration")
        self.configuration = configuration
        self.snapshot = snapshot
        self.pipeline = Self.makePipeline(configuration)
        self.dutyCycle = GNSSDutyCycle(configuration.dutyCycle)
    }

    static func makePipeline(_ c: Configuration) -> Pipeline {
        TimestampOrderFilter()
            .then(AccuracyGate(maximumHorizontalAccuracy: c.maximumAccuracyMeters, acceptsUnknownAccuracy: false))
            .then(SpeedOutlierFilter(maximumSpeed: c.maximumSpeed, mode: .flag))   // kept flagged, never dropped
            .then(KalmanFilter(processNoise: c.kalmanProcessNoise, defaultHorizontalAccuracy: c.maximumAccuracyMeters))
    }

    /// The ride state.
    public var state: RideState { snapshot?.state ?? .idle }

    /// The live statistics of the current ride.
    public var statistics: RideStatistics { snapshot?.statistics ?? RideStatistics() }

    /// The setting the policy picks now for moving (activity and latest filtered speed).
    public var movingSetting: RideAccuracyPolicy.Setting {
        configuration.policy.setting(for: configuration.usesMotion ? activity : nil, speed: lastSpeed)
    }

    /// When to call ``deadlineReached(at:)``; nil when nothing is timed.
    public var nextDeadline: Date? {
        if let still {
            if case .checking(let until) = still { return until }
            return nil
        }
        return [phaseDeadline, stopTimeoutDeadline, windowEndDeadline].compactMap { $0 }.min()
    }

    /// The end of the current phase (a spell, the hold, the watch).
    var phaseDeadline: Date? {
        guard state.isActive else { return nil }
        switch phase {
        case .coasting(let until): return until
        case .holding(let until), .watching(let until): return until
        case .recording, .sleeping: return nil
        }
    }

    /// Every location demand of the ride: standard updates (per phase) and significant changes
    /// while a ride is active (they relaunch the app after a termination).
    public var demands: [LocationDemand] {
        if let still { return stillDemands(still) }
        guard state.isActive else { return [] }
        if state == .userPaused { return [.significantChanges] }
        guard let setting = currentSetting else { return [.significantChanges] }
        return [standardDemand(setting), .significantChanges]
    }

    /// Standard updates in the background with `setting`.
    func standardDemand(_ setting: RideAccuracyPolicy.Setting) -> LocationDemand {
        .standard(StandardDemand(accuracy: setting.accuracy, distanceFilterMeters: setting.distanceFilterMeters,
                                 background: true, activityType: configuration.activityType,
                                 pausesAutomatically: setting.pausesAutomatically))
    }

    /// The standard-updates setting in force, nil when standard updates are off.
    public var currentSetting: RideAccuracyPolicy.Setting? {
        guard state == .moving || state == .autoPaused else { return nil }
        switch phase {
        case .recording, .holding: return movingSetting
        case .coasting: return configuration.policy.watch ?? .cellWatch
        case .watching: return configuration.policy.watch ?? movingSetting
        case .sleeping: return nil
        }
    }

    func output(_ commands: [DeviceCommand] = [], _ updates: [RideUpdate] = []) -> Output {
        let standard = demands.first { if case .standard = $0 { true } else { false } }
        return Output(commands: commands, updates: updates, demand: standard ?? .none)
    }
}
