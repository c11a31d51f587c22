import WaymarkEngine

/// The policies of the battery experiment: four baselines and Waymark's default.
///
/// The baselines run the same `RideTracker` (same filters, stop detection and recovery) with one
/// setting everywhere and no low-power watch or duty cycling, so only the accuracy policy differs.
public enum RidePolicyChoice: String, Hashable, Sendable, CaseIterable {
    /// A: always best accuracy, no distance filter.
    case alwaysBest = "A"
    /// B: best accuracy with a 10 m distance filter.
    case bestTenMeterFilter = "B"
    /// C: hundred-metre accuracy (Wi-Fi, no GNSS).
    case hundredMeters = "C"
    /// D: the field report's motion switch (cycling: ten-metre accuracy, 10 m filter; otherwise three-kilometre).
    case motionSwitch = "D"
    /// Waymark's default policy table with the low-power watch and duty cycling.
    case waymark = "W"

    /// A short label for tables.
    public var label: String {
        switch self {
        case .alwaysBest: "A best"
        case .bestTenMeterFilter: "B best+10m"
        case .hundredMeters: "C 100m"
        case .motionSwitch: "D switch"
        case .waymark: "Waymark"
        }
    }

    /// The tracker configuration for this policy.
    public var configuration: RideTracker.Configuration {
        switch self {
        case .alwaysBest: .baseline(.init(accuracy: .best))
        case .bestTenMeterFilter: .baseline(.init(accuracy: .best, distanceFilterMeters: 10))
        case .hundredMeters:
            // Wi-Fi fixes (30–100 m) would all fail the 35 m gate; C records what it gets.
            { var c = RideTracker.Configuration.baseline(.init(accuracy: .hundredMeters)); c.maximumAccuracyMeters = 150; return c }()
        case .motionSwitch:
            { var c = RideTracker.Configuration(policy: .fieldReportMotionSwitch); c.dutyCycle.enabled = false; return c }()
        case .waymark: RideTracker.Configuration()
        }
    }
}
