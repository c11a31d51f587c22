import Observation
import WaymarkEngine
import WaymarkGeo

/// Where the map looks: a centre and a camera distance (the zoom), in metres.
///
/// A `Sendable` value type; the view turns it into a `MapCamera`.
public struct MapViewport: Hashable, Sendable {
    /// The centre; nil before the map knows where it is.
    public var center: Coordinate?
    /// The camera's distance from the ground, metres: what the user changes by zooming.
    public var distanceMeters: Double

    /// Makes a viewport.
    public init(center: Coordinate? = nil, distanceMeters: Double = 5_000) {
        self.center = center
        self.distanceMeters = distanceMeters
    }
}

/// Something the map view must do to its camera once; `id` grows with each new command.
///
/// A `Sendable` value type.
public struct MapCameraCommand: Hashable, Sendable {
    /// What to do.
    public enum Kind: Hashable, Sendable {
        /// Move the camera to this viewport (centre changed, distance kept).
        case show(MapViewport)
        /// Follow the user's location (the current-location button).
        case followUser
    }

    /// Grows with every command, so the view can tell a new one from one it applied.
    public var id: Int
    /// What to do.
    public var kind: Kind
}

/// The Map tab: centre once on the launch location without changing the zoom, and enable the
/// current-location button only while location is authorized.
///
/// It follows the engine's ``MapLaunchState`` (``MapLaunchHelper``): the first centre of the
/// launch becomes one ``MapCameraCommand`` that keeps the distance the user left the camera at;
/// later states only switch the button. The view reports the user's own camera moves with
/// ``cameraMoved(to:)``.
///
/// ```swift
/// model.apply(MapLaunchState(center: fix.coordinate, currentLocationButtonEnabled: true))
/// model.state.command   // .show(MapViewport(center: fix.coordinate, distanceMeters: 5_000)), once
/// ```
///
/// Main-actor isolated, observable by SwiftUI.
@MainActor
public final class MapModel: Observable {
    /// What the Map tab shows.
    public struct State: Hashable, Sendable {
        /// The camera as last known: the user's moves and the launch centre.
        public var viewport = MapViewport()
        /// The latest command for the view's camera.
        public var command: MapCameraCommand?
        /// The id of the last command the view applied (``didApply(_:)``): a view made again,
        /// for example after a tab switch, does not apply an old command a second time.
        public var appliedCommandID = 0
        /// Whether the map centred on this launch's location.
        public var centeredOnLaunch = false
        /// Whether the current-location button is enabled.
        public var currentLocationButtonEnabled = false
        /// A line about the launch location ("Locating…", "Location denied", …).
        public var status = "Waiting for location permission"
    }

    private var observed = ObservedValue(State())

    /// What the Map tab shows; observed by SwiftUI.
    public private(set) var state: State {
        get { observed.read(self, \.state) }
        set { observed.write(self, \.state, newValue) }
    }

    /// Makes a model with the camera at `distanceMeters` and no centre.
    public init(distanceMeters: Double = 5_000) {
        state.viewport.distanceMeters = distanceMeters
    }

    /// Folds in the engine's map state: centres once, keeps the zoom, switches the button.
    public func apply(_ launch: MapLaunchState) {
        var next = state
        if let center = launch.center, !next.centeredOnLaunch {
            next.centeredOnLaunch = true
            next.viewport.center = center
            next.command = MapCameraCommand(id: (next.command?.id ?? 0) + 1, kind: .show(next.viewport))
        }
        next.currentLocationButtonEnabled = launch.currentLocationButtonEnabled
        state = next
    }

    /// Folds in the launch locator's state, for the status line.
    public func apply(_ launch: LaunchLocationState) {
        state.status = switch launch {
        case .idle, .waitingForPermission: "Waiting for location permission"
        case .locating: "Locating…"
        case .located(let fix): "Located within \(Int(fix.horizontalAccuracy ?? 0)) m"
        case .unavailable(.denied): "Location is off for this app: allow it in Settings"
        case .unavailable(.restricted): "Location is restricted on this phone"
        case .unavailable(.servicesDisabled): "Location Services are off: turn them on in Settings"
        case .unavailable(.timeout): "No location fix this time"
        }
    }

    /// The user panned or zoomed: remember the camera, so a later centre keeps this zoom.
    public func cameraMoved(to viewport: MapViewport) {
        state.viewport = viewport
    }

    /// The command the view should apply now, if it has not applied it yet.
    public var pendingCommand: MapCameraCommand? {
        guard let command = state.command, command.id > state.appliedCommandID else { return nil }
        return command
    }

    /// The view applied `command` to its camera.
    public func didApply(_ command: MapCameraCommand) {
        state.appliedCommandID = max(state.appliedCommandID, command.id)
    }

    /// The current-location button was tapped: follow the user, if the button is enabled.
    public func currentLocationTapped() {
        guard state.currentLocationButtonEnabled else { return }
        state.command = MapCameraCommand(id: (state.command?.id ?? 0) + 1, kind: .followUser)
    }
}
