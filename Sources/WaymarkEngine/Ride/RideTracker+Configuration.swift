import Foundation
import WaymarkGeo

extension RideTracker {
    /// Everything the tracker can be tuned with; speeds in m/s, distances in metres, times in seconds.
    ///
    /// A `Sendable` value type.
    public struct Configuration: Hashable, Sendable {
        /// The accuracy table.
        public var policy: RideAccuracyPolicy
        /// The activity type given to the location service.
        public var activityType: ActivityType
        /// Fixes with a worse horizontal accuracy are not recorded (default 35 m: urban GNSS passes, Wi-Fi does not).
        public var maximumAccuracyMeters: Double
        /// Fixes implying a faster speed than this from the last accepted one are recorded flagged
        /// (`Fix.impliesImpossibleSpeed`) and left out of the ride (default 40 m/s).
        public var maximumSpeed: Double
        /// Fixes older than this when location was (re)requested are stale, like the cached fix iOS hands out (default 10 s).
        public var maximumFixAge: TimeInterval
        /// Acceleration noise of the Kalman filter, m²/s³ (default 2, for cycling).
        public var kalmanProcessNoise: Double
        /// Below this filtered speed the rider counts as slow (default 0.8 m/s).
        public var stopSpeed: Double
        /// Slow for this long means stopped: the ride auto-pauses (default 20 s).
        public var stopSeconds: TimeInterval
        /// Three fixes at or above this speed, away from the stop, resume the ride (default 1.0 m/s).
        public var resumeSpeed: Double
        /// A filtered fix this far from where the rider stopped resumes the ride (default 30 m).
        public var resumeDistanceMeters: Double
        /// How long GNSS stays on at a stop before the low-power watch (default 120 s: traffic lights stay cheap to resume).
        public var holdSeconds: TimeInterval
        /// How long the coarse watch runs, counted from the end of the hold, before only significant
        /// changes and the wake fence remain (default 3600 s); nil keeps it for the whole stop.
        /// Checks during the watch do not prolong it. While the watch keeps the app running, motion
        /// activity reaches it and GNSS checks 30–90 s after the rider moves off. Once iOS has
        /// suspended the app, only a fence exit (about 200 m outside its ~200 m effective radius,
        /// then 3–5 minutes late on average), a significant change away from the stop or the motion
        /// delivered with one of iOS's idle wakes (every 15 minutes) notices, typically 1–3 km of
        /// riding later, and that stretch is recorded as a straight line (PLATFORM.md §4–§5). Where
        /// Wi-Fi is known, iOS serves the watch's three-kilometre accuracy from Wi-Fi at Wi-Fi cost:
        /// about 0.16 per second with the running app, so an hour costs as much as 10 minutes of
        /// GNSS; most breaks on a ride are shorter, and a parked commuter pays it once.
        public var watchSeconds: TimeInterval?
        /// The wake fence's radius around the stop (default 100 m). iOS treats radii under about
        /// 200 m as about 200 m, so a smaller radius notices nothing sooner. With automatic tracking
        /// on, the wake fence is the stationary region and ``AutomaticTracking/stationaryRadiusMeters`` applies.
        public var wakeFenceRadiusMeters: Double
        /// How long GNSS runs to check a hint of movement (motion activity, a significant change) during the watch (default 90 s).
        public var verifySeconds: TimeInterval
        /// A span without recorded fixes longer than this while moving, after losing the signal, is a gap (default 30 s).
        public var gapThresholdSeconds: TimeInterval
        /// How long after asking for GNSS again (a spell ends, a stop is left, a relaunch) fixes without
        /// a Doppler speed are skipped once the ride has recorded fixes, seconds (default 10). The
        /// receiver was off and needs a hot start (about 3 s); iOS fills the wait with Wi-Fi positions
        /// (30–100 m, no speed), whose best pass the accuracy gate but would bend the track by tens of metres.
        public var restartWaitSeconds: TimeInterval
        /// Duty cycling of GNSS on steady straight stretches (used where the policy's setting allows it).
        public var dutyCycle: DutyCycle
        /// Whether the tracker starts motion-activity updates and uses them (default true).
        public var usesMotion: Bool
        /// Automatic tracking: rides that start and end by themselves (default off).
        public var automatic: AutomaticTracking

        /// Makes a configuration with Waymark's defaults.
        public init(policy: RideAccuracyPolicy = .waymark, activityType: ActivityType = .fitness,
                    maximumAccuracyMeters: Double = 35, maximumSpeed: Double = 40, maximumFixAge: TimeInterval = 10,
                    kalmanProcessNoise: Double = 2, stopSpeed: Double = 0.8, stopSeconds: TimeInterval = 20,
                    resumeSpeed: Double = 1.0, resumeDistanceMeters: Double = 30, holdSeconds: TimeInterval = 120,
                    watchSeconds: TimeInterval? = 3600, wakeFenceRadiusMeters: Double = 100, verifySeconds: TimeInterval = 90,
                    gapThresholdSeconds: TimeInterval = 30, restartWaitSeconds: TimeInterval = 10,
                    dutyCycle: DutyCycle = DutyCycle(), usesMotion: Bool = true,
                    automatic: AutomaticTracking = AutomaticTracking()) {
            self.automatic = automatic
            self.policy = policy
            self.restartWaitSeconds = restartWaitSeconds
            self.activityType = activityType
            self.maximumAccuracyMeters = maximumAccuracyMeters
            self.maximumSpeed = maximumSpeed
            self.maximumFixAge = maximumFixAge
            self.kalmanProcessNoise = kalmanProcessNoise
            self.stopSpeed = stopSpeed
            self.stopSeconds = stopSeconds
            self.resumeSpeed = resumeSpeed
            self.resumeDistanceMeters = resumeDistanceMeters
            self.holdSeconds = holdSeconds
            self.watchSeconds = watchSeconds
            self.wakeFenceRadiusMeters = wakeFenceRadiusMeters
            self.verifySeconds = verifySeconds
            self.gapThresholdSeconds = gapThresholdSeconds
            self.dutyCycle = dutyCycle
            self.usesMotion = usesMotion
        }
    }

    /// When and for how long GNSS may rest on a steady, straight stretch.
    ///
    /// After ``steadySeconds`` of recorded fixes whose course stays within ``courseToleranceDegrees``
    /// and whose speed stays within ``speedTolerance`` (a fraction, plus twice
    /// ``speedNoiseMetersPerSecond`` for the receiver's own speed noise) above ``minimumSpeed``, GNSS is
    /// switched to cell-level accuracy for an off spell, then back. The first fix after the spell is
    /// compared with the prediction from the stretch's mean velocity: within
    /// ``predictionToleranceMeters`` the stretch is proven steady, so the next spell, 1.5 times
    /// longer (up to ``maximumOffSeconds``), follows after only ``confirmSeconds`` of fixes that
    /// keep the same course and speed; otherwise it starts again from ``initialOffSeconds`` after
    /// ``steadySeconds`` of steady fixes. A spell never runs past ``RideTracker/restLimitMeters``
    /// (a fence boundary ahead). A `Sendable` value type.
    public struct DutyCycle: Hashable, Sendable {
        /// Whether duty cycling is allowed at all (the policy's setting must allow it too).
        public var enabled: Bool
        /// Seconds of steady fixes before a spell.
        public var steadySeconds: TimeInterval
        /// Seconds of fixes after a spell whose prediction held before the next spell: they only
        /// confirm that the course and speed still hold (default 3).
        public var confirmSeconds: TimeInterval
        /// Largest deviation of the course from the stretch's mean, degrees.
        public var courseToleranceDegrees: Double
        /// Largest relative spread of the speed.
        public var speedTolerance: Double
        /// Slowest speed at which GNSS may rest, m/s (default 1.5: a brisk walk pushing the bike).
        /// Below it a spell covers too little ground to be worth a GNSS restart, and the stop
        /// detection needs GNSS.
        public var minimumSpeed: Double
        /// The noise of one Doppler speed reading (about one standard deviation), m/s: at a
        /// runner's pace it alone spreads ten readings by a third, so the spread allows for it.
        public var speedNoiseMetersPerSecond: Double
        /// The first spell's length, seconds.
        public var initialOffSeconds: TimeInterval
        /// The longest spell, seconds.
        public var maximumOffSeconds: TimeInterval
        /// Largest distance between the prediction and the first fix after a spell, metres.
        public var predictionToleranceMeters: Double

        /// Makes a duty-cycle configuration.
        public init(enabled: Bool = true, steadySeconds: TimeInterval = 10, courseToleranceDegrees: Double = 8,
                    speedTolerance: Double = 0.3, minimumSpeed: Double = 1.5, initialOffSeconds: TimeInterval = 10,
                    maximumOffSeconds: TimeInterval = 25, predictionToleranceMeters: Double = 15,
                    speedNoiseMetersPerSecond: Double = 0.3, confirmSeconds: TimeInterval = 3) {
            self.confirmSeconds = confirmSeconds
            self.speedNoiseMetersPerSecond = speedNoiseMetersPerSecond
            self.enabled = enabled
            self.steadySeconds = steadySeconds
            self.courseToleranceDegrees = courseToleranceDegrees
            self.speedTolerance = speedTolerance
            self.minimumSpeed = minimumSpeed
            self.initialOffSeconds = initialOffSeconds
            self.maximumOffSeconds = maximumOffSeconds
            self.predictionToleranceMeters = predictionToleranceMeters
        }
    }
}

extension RideTracker.Configuration {
    /// A configuration for one of the battery experiment's baselines: the same tracker with a
    /// uniform setting, no low-power watch and no duty cycling.
    public static func baseline(_ setting: RideAccuracyPolicy.Setting) -> RideTracker.Configuration {
        var configuration = RideTracker.Configuration(policy: .uniform(setting))
        configuration.dutyCycle.enabled = false
        return configuration
    }
}

extension RideTracker.Configuration {
    /// The wake fence's radius in force: the stationary radius with automatic tracking on.
    var effectiveWakeRadiusMeters: Double {
        automatic.enabled ? automatic.stationaryRadiusMeters : wakeFenceRadiusMeters
    }

    /// What breaks ``RideTracker``'s contract (see `ContractCheck`); empty for a usable configuration.
    var contractViolations: [String] {
        var check = ContractCheck()
        check.positive("maximumAccuracyMeters", maximumAccuracyMeters)
        check.positive("maximumSpeed", maximumSpeed)
        check.nonNegative("maximumFixAge", maximumFixAge)
        check.finitePositive("kalmanProcessNoise", kalmanProcessNoise)
        check.nonNegative(["stopSpeed": stopSpeed, "stopSeconds": stopSeconds, "resumeSpeed": resumeSpeed,
                           "resumeDistanceMeters": resumeDistanceMeters, "holdSeconds": holdSeconds,
                           "wakeFenceRadiusMeters": wakeFenceRadiusMeters, "verifySeconds": verifySeconds,
                           "gapThresholdSeconds": gapThresholdSeconds, "restartWaitSeconds": restartWaitSeconds])
        if let watchSeconds { check.nonNegative("watchSeconds", watchSeconds) }
        let d = dutyCycle
        check.nonNegative(["dutyCycle.steadySeconds": d.steadySeconds, "dutyCycle.confirmSeconds": d.confirmSeconds,
                           "dutyCycle.courseToleranceDegrees": d.courseToleranceDegrees,
                           "dutyCycle.speedTolerance": d.speedTolerance, "dutyCycle.minimumSpeed": d.minimumSpeed,
                           "dutyCycle.speedNoiseMetersPerSecond": d.speedNoiseMetersPerSecond,
                           "dutyCycle.initialOffSeconds": d.initialOffSeconds, "dutyCycle.maximumOffSeconds": d.maximumOffSeconds,
                           "dutyCycle.predictionToleranceMeters": d.predictionToleranceMeters])
        automatic.contractViolations(into: &check)
        check.require(!(d.initialOffSeconds > d.maximumOffSeconds),
                      "dutyCycle.initialOffSeconds (\(d.initialOffSeconds)) must not exceed maximumOffSeconds (\(d.maximumOffSeconds))")
        return check.violations
    }
}
