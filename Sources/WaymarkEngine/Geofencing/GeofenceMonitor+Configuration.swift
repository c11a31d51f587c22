import Foundation

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

        /// Makes a configuration; the defaults suit GNSS fixes and iOS's 20 regions.
        public init(regionSlots: Int = 20, hostRegionIdentifiers: Set<String> = [], hostRegionCount: Int = 0,
                    reservedRegionSlots: Int = 0, regionPrefix: String = "waymark.", enterDepthMeters: Double = 10, exitMarginMeters: Double = 20,
                    maximumDecisionAccuracyMeters: Double = 50, reentryDebounce: TimeInterval = 60,
                    fixFreshness: TimeInterval = 20, refreshRadiusRange: ClosedRange<Double> = 150...5000,
                    reportsInitialState: Bool = false, usesSignificantChanges: Bool = true,
                    fixAccuracy: DesiredAccuracy = .best, indexCellDegrees: Double = 0.01) {
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
        }

        /// The identifier of the refresh fence.
        public var refreshRegionIdentifier: String { regionPrefix + "refresh" }

        /// The region identifier of a fence.
        public func regionIdentifier(forFence id: String) -> String { regionPrefix + "fence." + id }

        /// Whether the monitor created the region (a fence's region or the refresh fence); regions of
        /// other Waymark components (such as `waymark.ride.wake`) and of the host app are not its own.
        public func ownsRegion(_ identifier: String) -> Bool {
            identifier == refreshRegionIdentifier || fenceIdentifier(forRegion: identifier) != nil
        }

        /// The fence identifier of a region Waymark created, nil for other regions.
        public func fenceIdentifier(forRegion identifier: String) -> String? {
            let prefix = regionPrefix + "fence."
            return identifier.hasPrefix(prefix) ? String(identifier.dropFirst(prefix.count)) : nil
        }
    }
}
