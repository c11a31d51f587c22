import Foundation

/// The ride's accuracy policy as ONE table: rows keyed by motion activity, confidence and speed,
/// each naming the location settings to use while moving.
///
/// The first row that matches wins: a row matches when its ``Row/activity`` is nil or equals the
/// current activity with at least ``Row/minimumConfidence``, and the speed (the latest filtered
/// speed in m/s; 0 when unknown) lies in ``Row/minimumSpeed``..<``Row/maximumSpeed``. When no row
/// matches, ``fallback`` applies. While the rider stands still the tracker uses ``watch``
/// instead (three-kilometre accuracy, so GNSS is off; iOS serves it from Wi-Fi where it can).
///
/// ```swift
/// let policy = RideAccuracyPolicy.waymark
/// let setting = policy.setting(for: MotionActivity(.cycling, confidence: .low), speed: 5)
/// // setting.accuracy == .best, setting.dutyCycle == true
/// ```
///
/// A `Sendable`, `Codable` value type; edit ``rows`` to configure it.
public struct RideAccuracyPolicy: Hashable, Sendable, Codable {
    /// What to ask of the location service.
    public struct Setting: Hashable, Sendable, Codable {
        /// The desired accuracy (selects GNSS, Wi-Fi or cell, and so the power).
        public var accuracy: DesiredAccuracy
        /// The OS distance filter in metres; nil delivers every fix.
        public var distanceFilterMeters: Double?
        /// Whether iOS may pause updates on its own when the device is still.
        public var pausesAutomatically: Bool
        /// Whether GNSS may be switched off for short spells on steady, straight stretches.
        public var dutyCycle: Bool

        /// Makes a setting.
        public init(accuracy: DesiredAccuracy, distanceFilterMeters: Double? = nil, pausesAutomatically: Bool = false,
                    dutyCycle: Bool = false) {
            self.accuracy = accuracy
            self.distanceFilterMeters = distanceFilterMeters
            self.pausesAutomatically = pausesAutomatically
            self.dutyCycle = dutyCycle
        }

        /// Whether this setting turns the GNSS receiver on.
        public var usesGNSS: Bool { [.best, .bestForNavigation, .nearestTenMeters].contains(accuracy) }
    }

    /// One row of the table.
    public struct Row: Hashable, Sendable, Codable {
        /// The activity this row is for; nil for any.
        public var activity: MotionActivity.Kind?
        /// The least confidence at which ``activity`` counts.
        public var minimumConfidence: MotionActivity.Confidence
        /// The lowest speed, m/s, inclusive.
        public var minimumSpeed: Double
        /// The highest speed, m/s, exclusive.
        public var maximumSpeed: Double
        /// The setting to use.
        public var setting: Setting

        /// Makes a row.
        public init(activity: MotionActivity.Kind?, minimumConfidence: MotionActivity.Confidence = .low,
                    minimumSpeed: Double = 0, maximumSpeed: Double = .infinity, setting: Setting) {
            self.activity = activity
            self.minimumConfidence = minimumConfidence
            self.minimumSpeed = minimumSpeed
            self.maximumSpeed = maximumSpeed
            self.setting = setting
        }

        /// Whether the row applies to `activity` at `speed` m/s.
        public func matches(_ activity: MotionActivity?, speed: Double) -> Bool {
            guard speed >= minimumSpeed, speed < maximumSpeed else { return false }
            guard let wanted = self.activity else { return true }
            guard let activity else { return false }
            return activity.kind == wanted && activity.confidence >= minimumConfidence
        }
    }

    /// The rows, first match wins.
    public var rows: [Row]
    /// The setting when no row matches.
    public var fallback: Setting
    /// The setting while stationary (the low-power watch); nil keeps the moving setting while paused.
    public var watch: Setting?

    /// Makes a policy.
    public init(rows: [Row], fallback: Setting, watch: Setting?) {
        self.rows = rows
        self.fallback = fallback
        self.watch = watch
    }

    /// The setting for an activity and speed (m/s).
    public func setting(for activity: MotionActivity?, speed: Double?) -> Setting {
        let speed = speed ?? 0
        return rows.first { $0.matches(activity, speed: speed) }?.setting ?? fallback
    }

    /// The same setting everywhere, with no low-power watch (the baselines of the battery experiment).
    public static func uniform(_ setting: Setting) -> RideAccuracyPolicy {
        RideAccuracyPolicy(rows: [], fallback: setting, watch: nil)
    }
}

extension RideAccuracyPolicy.Setting {
    /// Cycling: GNSS at full rate, duty-cycled on steady straight stretches.
    public static let cycling = Self(accuracy: .best, distanceFilterMeters: nil, dutyCycle: true)
    /// Walking (pushing the bike): ten-metre GNSS with a 5 m filter, duty-cycled on steady straight
    /// stretches down to ``RideTracker/DutyCycle/minimumSpeed``. One Doppler reading's course is
    /// noisy at a walking pace (±11° at 1.5 m/s), but the steadiness check allows for that noise,
    /// the prediction uses the mean of the stretch's readings, and the check after each spell
    /// catches a turn; a spell at 1.5 m/s covers at most 40 m.
    public static let walking = Self(accuracy: .nearestTenMeters, distanceFilterMeters: 5, dutyCycle: true)
    /// Running: as walking. A runner at 3–4 m/s on a straight road is as predictable as a cyclist;
    /// the check after each spell catches turns.
    public static let running = Self(accuracy: .nearestTenMeters, distanceFilterMeters: 5, dutyCycle: true)
    /// Driving: GNSS with a 20 m filter, duty-cycled on steady stretches.
    public static let driving = Self(accuracy: .best, distanceFilterMeters: 20, dutyCycle: true)
    /// The stationary watch: three-kilometre updates (no GNSS) that iOS never pauses. Current iOS
    /// serves them from Wi-Fi (about 100 m, at Wi-Fi cost) where Wi-Fi is known, from cell towers
    /// elsewhere (PLATFORM.md §3); the name is historical.
    public static let cellWatch = Self(accuracy: .threeKilometers)
}

extension RideAccuracyPolicy {
    /// Waymark's default table for a cycling app; speeds in m/s.
    ///
    /// | activity | confidence | speed | setting |
    /// |---|---|---|---|
    /// | automotive | ≥ medium | any | driving |
    /// | cycling | ≥ low | any | cycling |
    /// | walking | ≥ medium | < 4 | walking (ten-metre GNSS, duty-cycled) |
    /// | running | ≥ medium | < 4 | running (as walking) |
    /// | any | — | ≥ 12 | driving |
    /// | any | — | 4 ..< 12 | cycling |
    /// | (fallback) | | | cycling |
    /// | (watch, stationary) | | | three-kilometre, no GNSS |
    public static let waymark = RideAccuracyPolicy(
        rows: [
            Row(activity: .automotive, minimumConfidence: .medium, setting: .driving),
            Row(activity: .cycling, minimumConfidence: .low, setting: .cycling),
            Row(activity: .walking, minimumConfidence: .medium, maximumSpeed: 4, setting: .walking),
            Row(activity: .running, minimumConfidence: .medium, maximumSpeed: 4, setting: .running),
            Row(activity: nil, minimumSpeed: 12, setting: .driving),
            Row(activity: nil, minimumSpeed: 4, maximumSpeed: 12, setting: .cycling),
        ],
        fallback: .cycling,
        watch: .cellWatch)

    /// The field report's motion switch: ten-metre accuracy and a 10 m filter while cycling, else
    /// three-kilometre accuracy and no filter.
    public static let fieldReportMotionSwitch = RideAccuracyPolicy(
        rows: [Row(activity: .cycling, minimumConfidence: .low,
                   setting: Setting(accuracy: .nearestTenMeters, distanceFilterMeters: 10))],
        fallback: Setting(accuracy: .threeKilometers),
        watch: nil)
}
