import Foundation
import WaymarkGeo

extension GeofenceMonitor {
    /// Slots, margins and timings of a ``GeofenceMonitor``. Distances in metres, times in seconds.
    ///
    /// A `Sendable` value type.
    public struct Configuration: Hashable, Sendable {
        /// Regions the app may monitor in all (iOS: 20).
        public var regionSlots: Int
        /// Identifiers of regions the host app monitors itself; Waymark never touches them.
        public var hostRegionIdentifiers: Set<String>
        /// How many regions the host app monitors, when the identifiers are not known.
        public var hostRegionCount: Int
        /// Slots kept free for other Waymark components (the ``EngineCore`` keeps one for the ride's
        /// wake fence); the monitor never uses them.
        public var reservedRegionSlots: Int
        /// The prefix of every region identifier Waymark creates.
        public var regionPrefix: String
        /// How far inside the boundary a fix must be to enter (at least; grows with the fix's accuracy).
        ///
        /// 20 m: a stationary receiver's error wanders past its reported accuracy (10–18 m against a
        /// reported 8 m in the simulator's Gauss–Markov model), so 10 m let a rider standing just
        /// outside a fence be entered now and then (about 2–19 false enters in 10,000 events on the
        /// geofence experiment's ride); at 20 m there were none, at the cost of a few seconds.
        public var enterDepthMeters: Double
        /// How far beyond the boundary a fix must be to exit (at least; grows with the fix's accuracy).
        public var exitMarginMeters: Double
        /// Fixes with a worse horizontal accuracy are not used for decisions.
        public var maximumDecisionAccuracyMeters: Double
        /// A re-entry this soon after a delivered exit is held back until the window ends inside.
        public var reentryDebounce: TimeInterval
        /// A fix younger than this overrides the OS's (late) region events.
        public var fixFreshness: TimeInterval
        /// Smallest and largest radius of the refresh fence.
        public var refreshRadiusRange: ClosedRange<Double>
        /// Report the state found at registration as an enter event (cause: the deciding fix or state).
        public var reportsInitialState: Bool
        /// Demand significant-change monitoring while there are fences (reselection, relaunch).
        public var usesSignificantChanges: Bool
        /// The accuracy of the one-fix demands.
        public var fixAccuracy: DesiredAccuracy
        /// The spatial index's cell side, degrees (bulk replacements pick one from the data).
        public var indexCellDegrees: Double

        // Timing and catch-up (issue #14: iOS region events are minutes late and sometimes missing).

        /// A fix-decided event is ``FenceEvent/Timing/live`` when its fix followed the previous
        /// decision-grade fix by at most this and reached the monitor within this of being measured;
        /// a dwell is live when handled within this of coming due. Otherwise it is
        /// ``FenceEvent/Timing/caughtUp``. Covers the ride tracker's GNSS rests (at most 25 s).
        public var liveGap: TimeInterval
        /// The typical delay of an iOS region event after the crossing, used to estimate an
        /// OS-delayed event's ``FenceEvent/time`` (clamped to its bounds). Default 240 s: Apple
        /// documents "within 3 to 5 minutes on average" (PLATFORM.md §5, [S26]).
        public var regionDelayEstimate: TimeInterval
        /// An iOS region event that contradicts the fence's presence, and has the same kind as a
        /// crossing the monitor decided from a position no longer ago than this, may be iOS's late
        /// echo of that crossing (iOS reports minutes late, with a tail of 30 min to 3 h after a
        /// termination, PLATFORM.md §5 [S28]): it is checked with a fix instead of being delivered,
        /// and one that agrees is not taken for a missed crossing. Default 3 h.
        public var echoWindow: TimeInterval
        /// How long the monitor waits for a fix it asked for (a catch-up or a check) before it goes on
        /// without one: iOS answers a one-shot request within about 10 s (PLATFORM.md §3, [S42]).
        public var fixWaitTimeout: TimeInterval
        /// A fix or visit coarser than ``maximumDecisionAccuracyMeters`` decides only the fences whose
        /// boundary is farther from it than this many times its accuracy (and only while no fresh
        /// decision-grade fix is known); nearer fences wait for a better fix. The accuracy is the
        /// radius of a 68% circle (σ ≈ accuracy / 1.51 per axis): a normally distributed error exceeds
        /// 1.5 times it about 8% of the time, twice it about 1%, and 2.5 times it about 0.1%. This
        /// factor (default 1.5) applies to ``GeofenceMode/regions`` fences, whose missed crossings
        /// only coarse positions catch up; balanced and precise fences use
        /// ``trackedCoarseMarginFactor``.
        public var coarseMarginFactor: Double
        /// ``coarseMarginFactor`` for ``GeofenceMode/balanced`` and ``GeofenceMode/precise`` fences
        /// (default 2.5). Their nearer boundaries wait for the fix the monitor asks for, so a coarse
        /// position decides only when it is beyond reasonable doubt. At 1.5 one 456 m fix at a
        /// wake-up gave three false exits in the geofence experiment (precise, commute, iOS 17
        /// backend, seed 1); at 2.5 the experiment's false events of those modes fell from 31 to 10
        /// (seeds 1–3, three layouts, both backends, pocket and foreground). Regions fences keep 1.5:
        /// at 2.0 or 2.5 for them too, their reported crossings fell by up to 7 points (park).
        ///
        /// It also applies to decision-grade fixes less accurate than ``enterDepthMeters`` (Wi-Fi,
        /// 30–100 m) near balanced and precise fences, which those modes' trackers decide with GNSS:
        /// with the fix's accuracy as the margin, such fixes gave 14 false events over the
        /// experiment's balanced and precise runs (seeds 1–3, three layouts, foreground, pocket and
        /// force-quit, both backends); with this factor 2, and reported fell by at most 1.5 points.
        public var trackedCoarseMarginFactor: Double
        /// Fixes and visits coarser than this are not used for decisions at all (reduced-accuracy
        /// fixes are 1–20 km off, PLATFORM.md §2 [S9]).
        public var maximumCoarseAccuracyMeters: Double
        /// Ask for one fix (``fixAccuracy``) to decide every fence when the app is launched or
        /// opened, and after a significant change or visit that cannot decide the fences near it,
        /// unless a fresh fix is at hand. Without it, missed iOS events are found only by the next
        /// fix that happens to come.
        public var catchesUp: Bool
        /// Hold a background task (``GeofenceMonitor/backgroundTaskID``) while waiting for a fix:
        /// a location wake gives the app about 10 s, a one-shot GNSS fix may take longer, and an
        /// answer that arrives after the app is suspended waits for its next wake (PLATFORM.md §3,
        /// §4 [S41]). The task is ended when the wait ends or expires.
        public var usesBackgroundTask: Bool
        /// When iOS reports a crossing to the side the monitor already has the device on (an exit
        /// from a fence it never saw the device enter), with no fresh fix and no crossing of that
        /// kind decided by a position for iOS to echo, deliver the crossing iOS missed and then
        /// iOS's own (both ``FenceEvent/Timing/osDelayed``). iOS misses region events now and then
        /// (PLATFORM.md §5 [S26][S28]).
        public var infersMissedCrossings: Bool
        /// The smallest circle for which a missed crossing is inferred: iOS treats radii under about
        /// 200 m as about 200 m ([S27]), so its side of a smaller fence is not the fence's side.
        public var minimumInferenceRadiusMeters: Double
        /// Standard updates near ``GeofenceMode/precise`` fences (``ProximityTracking``).
        public var proximity: ProximityTracking
        /// The ``GeofenceMode/balanced`` mode's settings (``BalancedTracking``).
        public var balanced: BalancedTracking

        /// Makes a configuration; the defaults suit GNSS fixes and iOS's 20 regions.
        public init(regionSlots: Int = 20, hostRegionIdentifiers: Set<String> = [], hostRegionCount: Int = 0,
                    reservedRegionSlots: Int = 0, regionPrefix: String = "waymark.", enterDepthMeters: Double = 20, exitMarginMeters: Double = 20,
                    maximumDecisionAccuracyMeters: Double = 50, reentryDebounce: TimeInterval = 60,
                    fixFreshness: TimeInterval = 20, refreshRadiusRange: ClosedRange<Double> = 150...5000,
                    reportsInitialState: Bool = false, usesSignificantChanges: Bool = true,
                    fixAccuracy: DesiredAccuracy = .best, indexCellDegrees: Double = 0.01,
                    liveGap: TimeInterval = 60, regionDelayEstimate: TimeInterval = 240, echoWindow: TimeInterval = 10_800,
                    fixWaitTimeout: TimeInterval = 60, coarseMarginFactor: Double = 1.5, trackedCoarseMarginFactor: Double = 2.5,
                    maximumCoarseAccuracyMeters: Double = 3000, catchesUp: Bool = true,
                    usesBackgroundTask: Bool = true, infersMissedCrossings: Bool = true,
                    minimumInferenceRadiusMeters: Double = 200, proximity: ProximityTracking = ProximityTracking(),
                    balanced: BalancedTracking = BalancedTracking()) {
            self.regionSlots = regionSlots
            self.hostRegionIdentifiers = hostRegionIdentifiers
            self.hostRegionCount = hostRegionCount
            self.reservedRegionSlots = reservedRegionSlots
            self.regionPrefix = regionPrefix
            self.enterDepthMeters = enterDepthMeters
            self.exitMarginMeters = exitMarginMeters
            self.maximumDecisionAccuracyMeters = maximumDecisionAccuracyMeters
            self.reentryDebounce = reentryDebounce
            self.fixFreshness = fixFreshness
            self.refreshRadiusRange = refreshRadiusRange
            self.reportsInitialState = reportsInitialState
            self.usesSignificantChanges = usesSignificantChanges
            self.fixAccuracy = fixAccuracy
            self.indexCellDegrees = indexCellDegrees
            self.liveGap = liveGap
            self.regionDelayEstimate = regionDelayEstimate
            self.echoWindow = echoWindow
            self.fixWaitTimeout = fixWaitTimeout
            self.coarseMarginFactor = coarseMarginFactor
            self.trackedCoarseMarginFactor = trackedCoarseMarginFactor
            self.maximumCoarseAccuracyMeters = maximumCoarseAccuracyMeters
            self.catchesUp = catchesUp
            self.usesBackgroundTask = usesBackgroundTask
            self.infersMissedCrossings = infersMissedCrossings
            self.minimumInferenceRadiusMeters = minimumInferenceRadiusMeters
            self.proximity = proximity
            self.balanced = balanced
        }

        /// The identifier of the refresh fence.
        public var refreshRegionIdentifier: String { regionPrefix + "refresh" }

        /// The identifier of the stationary region the balanced mode registers while the device is still.
        public var stillRegionIdentifier: String { regionPrefix + "still" }

        /// The region identifier of a fence.
        public func regionIdentifier(forFence id: String) -> String { regionPrefix + "fence." + id }

        /// Whether the monitor created the region (a fence's region or the refresh fence); regions of
        /// other Waymark components (such as `waymark.ride.wake`) and of the host app are not its own.
        public func ownsRegion(_ identifier: String) -> Bool {
            identifier == refreshRegionIdentifier || identifier == stillRegionIdentifier
                || fenceIdentifier(forRegion: identifier) != nil
        }

        /// The fence identifier of a region Waymark created, nil for other regions.
        public func fenceIdentifier(forRegion identifier: String) -> String? {
            let prefix = regionPrefix + "fence."
            return identifier.hasPrefix(prefix) ? String(identifier.dropFirst(prefix.count)) : nil
        }
    }
}

extension GeofenceMonitor.Configuration {
    /// What breaks ``GeofenceMonitor``'s contract (see `ContractCheck`); empty for a usable configuration.
    var contractViolations: [String] {
        var check = ContractCheck()
        check.nonNegative("regionSlots", regionSlots)
        check.nonNegative("hostRegionCount", hostRegionCount)
        check.nonNegative("reservedRegionSlots", reservedRegionSlots)
        check.nonNegative(["enterDepthMeters": enterDepthMeters, "exitMarginMeters": exitMarginMeters,
                           "reentryDebounce": reentryDebounce, "fixFreshness": fixFreshness, "liveGap": liveGap,
                           "regionDelayEstimate": regionDelayEstimate, "echoWindow": echoWindow,
                           "minimumInferenceRadiusMeters": minimumInferenceRadiusMeters])
        check.positive("maximumDecisionAccuracyMeters", maximumDecisionAccuracyMeters)
        check.positive("maximumCoarseAccuracyMeters", maximumCoarseAccuracyMeters)
        check.positive("coarseMarginFactor", coarseMarginFactor)
        check.positive("trackedCoarseMarginFactor", trackedCoarseMarginFactor)
        check.finitePositive("fixWaitTimeout", fixWaitTimeout)
        check.finitePositive("indexCellDegrees", indexCellDegrees)
        check.require(refreshRadiusRange.lowerBound > 0, "refreshRadiusRange must start above zero, not at \(refreshRadiusRange.lowerBound)")
        if proximity.enabled {
            check.finitePositive("proximity.nearMeters", proximity.nearMeters)
            check.require(proximity.approachMeters >= proximity.nearMeters,
                          "proximity.approachMeters (\(proximity.approachMeters)) must be at least nearMeters (\(proximity.nearMeters))")
            if proximity.restsGNSS {
                check.require(proximity.restSeconds.lowerBound > 0, "proximity.restSeconds must start above zero, not at \(proximity.restSeconds.lowerBound)")
            }
            check.nonNegative("proximity.gnssReacquireSeconds", proximity.gnssReacquireSeconds)
            check.nonNegative("proximity.latencyBudgetSeconds", proximity.latencyBudgetSeconds)
        }
        balanced.contractViolations(into: &check)
        return check.violations
    }
}
