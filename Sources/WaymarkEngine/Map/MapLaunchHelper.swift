import WaymarkGeo

/// What a map screen needs at launch: where to center once, and whether the current-location
/// button may be enabled.
///
/// A `Sendable` value type.
public struct MapLaunchState: Hashable, Sendable, Codable {
    /// The coordinate to center on, set once per launch from the launch fix and never changed
    /// afterwards. Center without changing the zoom (`setCenter(_:animated:)`).
    public var center: Coordinate?
    /// True while location is authorized and a fix is known.
    public var currentLocationButtonEnabled: Bool

    /// Makes a state; a launch starts with no center and the button disabled.
    public init(center: Coordinate? = nil, currentLocationButtonEnabled: Bool = false) {
        self.center = center
        self.currentLocationButtonEnabled = currentLocationButtonEnabled
    }
}

/// Turns the launch location and the authorization into "center exactly once per launch, keep the
/// zoom" and "current-location button enabled".
///
/// ```swift
/// var helper = MapLaunchHelper()
/// let change = helper.update(launch: .located(fix), authorization: auth)  // center = fix.coordinate
/// helper.update(launch: .located(fix), authorization: auth)               // nil: nothing changed
/// ```
///
/// A pure `Sendable` value type; owned by one task.
public struct MapLaunchHelper: Hashable, Sendable {
    /// The current state.
    public private(set) var state = MapLaunchState()
    /// How many center values this helper produced (at most one per launch).
    public private(set) var centersEmitted = 0

    /// Makes a helper for one launch.
    public init() {}

    /// Folds in the latest launch state and authorization; returns the new state if it changed.
    public mutating func update(launch: LaunchLocationState, authorization: LocationAuthorization?) -> MapLaunchState? {
        var next = state
        if next.center == nil, let fix = launch.fix {
            next.center = fix.coordinate
        }
        let authorized = authorization.map {
            $0.servicesEnabled && ($0.status == .authorizedWhenInUse || $0.status == .authorizedAlways)
        } ?? false
        next.currentLocationButtonEnabled = authorized && next.center != nil
        guard next != state else { return nil }
        if state.center == nil, next.center != nil { centersEmitted += 1 }
        state = next
        return next
    }
}
