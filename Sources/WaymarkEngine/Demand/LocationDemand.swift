/// What one component needs from the location service; the ``DemandResolver`` merges all of them.
///
/// Components never start or stop location services themselves: they state a demand and the
/// resolver turns the union of demands into the fewest device commands.
///
/// ```swift
/// let demand = LocationDemand.standard(StandardDemand(accuracy: .best))
/// ```
///
/// A `Sendable` value type.
public enum LocationDemand: Hashable, Sendable {
    /// Nothing.
    case none
    /// Significant-change monitoring (cell-level, very low power).
    case significantChanges
    /// Standard location updates with this accuracy, filter and background need.
    case standard(StandardDemand)
    /// One fix at this accuracy (`requestLocation`).
    case oneFix(DesiredAccuracy)
}

/// The parameters of a standard-updates demand.
///
/// A `Sendable` value type.
public struct StandardDemand: Hashable, Sendable {
    /// The accuracy wanted (selects the source and so the power).
    public var accuracy: DesiredAccuracy
    /// Minimum movement between deliveries in metres; nil for every fix.
    public var distanceFilterMeters: Double?
    /// Whether updates must continue in the background.
    public var background: Bool
    /// The activity type (affects automatic pausing).
    public var activityType: ActivityType
    /// Whether iOS may pause updates when the device is still.
    public var pausesAutomatically: Bool
    /// Whether ``activityType`` says what the device is doing (a ride, a one-off request: true), or
    /// only what the component would use alone (a monitor of fence boundaries: false). A demand
    /// that does not state the activity never sets the merged type while another demand does
    /// (``DemandResolver/mergedActivityType(_:)``).
    public var statesActivity: Bool

    /// Makes a demand; the defaults suit a foreground, one-off need.
    public init(accuracy: DesiredAccuracy, distanceFilterMeters: Double? = nil, background: Bool = false,
                activityType: ActivityType = .other, pausesAutomatically: Bool = true, statesActivity: Bool = true) {
        self.accuracy = accuracy
        self.distanceFilterMeters = distanceFilterMeters
        self.background = background
        self.activityType = activityType
        self.pausesAutomatically = pausesAutomatically
        self.statesActivity = statesActivity
    }
}

extension DesiredAccuracy {
    /// Rank from finest (0, `bestForNavigation`) to coarsest (`reduced`).
    var fineness: Int {
        switch self {
        case .bestForNavigation: 0
        case .best: 1
        case .nearestTenMeters: 2
        case .hundredMeters: 3
        case .kilometer: 4
        case .threeKilometers: 5
        case .reduced: 6
        }
    }
}
