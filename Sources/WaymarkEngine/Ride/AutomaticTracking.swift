import Foundation
import WaymarkGeo

/// Automatic tracking: rides that start when the device sets off and end when it has stood still
/// for a while, with no tap; off by default.
///
/// While no ride is under way the ``RideTracker`` is *still*: GNSS is off, and four watchers that
/// iOS runs for the app even while it is suspended or terminated look for movement: a
/// *stationary region* around the place the device rests (the tracker's wake fence), significant
/// location changes, visits, and the motion coprocessor. Any of them (a fence exit, a significant
/// change or a visit departure away from the place, a moving activity) makes GNSS *check* for
/// ``RideTracker/Configuration/verifySeconds``; a ride starts only when the fixes show the device
/// clearly away from the place (the same test that ends an auto-pause), so the receiver's wander
/// at a desk never starts one. The ride then records with the ``RideAccuracyPolicy`` as usual.
/// Auto-paused for ``stopTimeoutSeconds``, it ends, and the tracker is still again around the
/// place it stopped.
///
/// A start noticed late (the app was suspended or terminated, so only a fence exit or a
/// significant change could wake it, several hundred metres on) still begins at the resting place:
/// with ``startsAtRestingPlace`` the ride's first point is the place's fix, stamped with the last
/// time the device was known to be there, and a ``GapMarker`` with reason
/// ``GapMarker/Reason/departureNotRecorded`` covers the stretch until the first fix on the move.
///
/// The rider's taps win: ``RideTracker/start(rideID:at:)`` starts a ride at once, and after
/// ``RideTracker/stop(at:)`` automatic starts wait until the device has rested (a stationary motion
/// activity or a visit arrival), so a rider who stops recording and rides on gets no new ride.
///
/// ```swift
/// var ride = RideTracker.Configuration()
/// ride.automatic = AutomaticTracking(enabled: true, stationaryRadiusMeters: 150, stopTimeoutSeconds: 300,
///                                    movingActivities: [.cycling, .running])
/// let engine = Engine(device: device, configuration: EngineCore.Configuration(ride: ride), ride: storedSnapshot)
/// ```
///
/// Distances in metres, times in seconds. A `Sendable` value type.
public struct AutomaticTracking: Hashable, Sendable {
    /// Without motion activity (no motion coprocessor, or the permission denied), what watches for
    /// movement while still.
    public enum MotionFallback: String, Hashable, Sendable, Codable, CaseIterable {
        /// The stationary region, significant changes and visits only: as cheap as with motion,
        /// but a start is noticed only when one of them wakes the app, typically a few hundred
        /// metres to a few kilometres on.
        case locationEvents
        /// Also coarse location updates without GNSS (Wi-Fi or cell positions), which keep the app
        /// running: a fix clearly away from the resting place makes GNSS check at once. Costs the
        /// Wi-Fi or cell radio and the running app for the whole still time (PLATFORM.md §8).
        case coarseUpdates
    }

    /// Whether rides start and end by themselves (default false: a ride exists only after
    /// ``RideTracker/start(rideID:at:)``, as before).
    public var enabled: Bool
    /// The radius of the stationary region around the resting place (default 150 m). iOS counts an
    /// exit only well outside the boundary and treats radii under about 200 m as about 200 m
    /// (PLATFORM.md §5), so a smaller radius notices nothing sooner.
    public var stationaryRadiusMeters: Double
    /// How long a ride stays auto-paused before it ends and the tracker is still again (default 300 s).
    public var stopTimeoutSeconds: TimeInterval
    /// The motion activities that make GNSS check for a start (default walking, running, cycling
    /// and automotive: any movement, as Transistor's motion-driven mode; a cycling app may narrow it
    /// to `[.cycling]`, though iOS classifies cycling later and less reliably, PLATFORM.md §6).
    public var movingActivities: Set<MotionActivity.Kind>
    /// The least confidence of a moving activity that counts (default low: iOS often reports
    /// cycling with low confidence, PLATFORM.md §6, and a hint only makes GNSS check).
    public var minimumMotionConfidence: MotionActivity.Confidence
    /// What watches for movement when motion activity is unavailable (default ``MotionFallback/locationEvents``).
    public var withoutMotion: MotionFallback
    /// Whether significant location changes watch for movement while still (default false). They
    /// relaunch a terminated app after about 500 m in a city, a second chance when a region event
    /// is late or missed (PLATFORM.md §5), and wake it at least every 15 minutes, which dates the
    /// last time the device was seen at the resting place (PLATFORM.md §4). They cost twice as much
    /// as the region (§8): over fifteen hours still about 0.12 of a ridden hour's energy in the
    /// simulator, which is why they are off by default.
    public var usesSignificantChanges: Bool
    /// Whether visit departures watch for movement while still (default true). iOS reports a
    /// departure minutes late with the place and about when the device left it (Apple, `CLVisit`);
    /// it relaunches a terminated app, though not a force-quit one (PLATFORM.md §3–§4). The
    /// departure dates the ride's first point at the resting place, and locates the place when a
    /// terminated app had none stored. They cost as much as the region (§8). A region exit after a
    /// termination can take hours (§5), so without visits or significant changes a terminated app
    /// may notice a start only much later.
    public var usesVisits: Bool
    /// Whether a start noticed late begins at the resting place, with a gap marker up to the first
    /// fix on the move (default true).
    public var startsAtRestingPlace: Bool
    /// The prefix of automatic rides' identifiers, followed by the start time in UTC (default `"auto-"`,
    /// giving `auto-2026-11-28T14:29:33Z`).
    public var rideIDPrefix: String
    /// The hours in which rides may start by themselves (default nil: at any time). Outside them no
    /// hint makes GNSS check, and an automatic ride ends when its window closes (``TrackingWindows``).
    public var windows: TrackingWindows?

    /// Makes a configuration; `AutomaticTracking()` keeps automatic tracking off.
    public init(enabled: Bool = false, stationaryRadiusMeters: Double = 150, stopTimeoutSeconds: TimeInterval = 300,
                movingActivities: Set<MotionActivity.Kind> = [.walking, .running, .cycling, .automotive],
                minimumMotionConfidence: MotionActivity.Confidence = .low,
                withoutMotion: MotionFallback = .locationEvents, usesSignificantChanges: Bool = false,
                usesVisits: Bool = true, startsAtRestingPlace: Bool = true, rideIDPrefix: String = "auto-",
                windows: TrackingWindows? = nil) {
        self.enabled = enabled
        self.stationaryRadiusMeters = stationaryRadiusMeters
        self.stopTimeoutSeconds = stopTimeoutSeconds
        self.movingActivities = movingActivities
        self.minimumMotionConfidence = minimumMotionConfidence
        self.withoutMotion = withoutMotion
        self.usesSignificantChanges = usesSignificantChanges
        self.usesVisits = usesVisits
        self.startsAtRestingPlace = startsAtRestingPlace
        self.rideIDPrefix = rideIDPrefix
        self.windows = windows
    }

    /// Whether rides may start by themselves at `date` (inside a window, or no windows set).
    public func allowsStart(at date: Date) -> Bool {
        windows?.contains(date) ?? true
    }

    /// The identifier of an automatic ride that starts at `date`.
    func rideID(startingAt date: Date) -> RideID {
        var formatter = Date.ISO8601FormatStyle()
        formatter.timeZone = TimeZone(identifier: "UTC")!
        return RideID(rideIDPrefix + date.formatted(formatter))
    }

    /// What breaks the tracker's contract (see `ContractCheck`).
    func contractViolations(into check: inout ContractCheck) {
        check.positive("automatic.stationaryRadiusMeters", stationaryRadiusMeters)
        check.nonNegative("automatic.stopTimeoutSeconds", stopTimeoutSeconds)
    }
}

extension AutomaticTracking {
    /// Where automatic tracking stands (``RideTracker/automaticState``).
    public enum State: String, Hashable, Sendable, Codable, CaseIterable {
        /// Automatic tracking is off.
        case off
        /// No ride; GNSS off; the stationary region, significant changes, visits and motion watch.
        case still
        /// No ride yet; GNSS checks whether a hint of movement is real (or finds the resting place).
        case checking
        /// A ride is under way (started automatically or by the rider).
        case riding
    }
}
