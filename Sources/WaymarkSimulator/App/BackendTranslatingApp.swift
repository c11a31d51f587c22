import Foundation
import WaymarkEngine

/// Runs an app written in the `CLLocationManager` vocabulary on either location backend: on
/// `LocationBackend.modern` every event is translated by a `ModernBackendAdapter` before the
/// app sees it, and every command the app issues after, exactly as `EngineCore` does for its
/// components. So an experiment that drives a component directly (``RideSimApp``, the geofence
/// experiment's app) measures the iOS 17 APIs with the same component code.
///
/// ```swift
/// let app = BackendTranslatingApp(RideSimApp(), backend: .modern)
/// var sim = try Simulation(scenario: scenario, app: app)
/// sim.runToEnd()
/// let fixes = sim.rideApp?.storage.recorded ?? []
/// ```
///
/// A `Sendable` value type.
public struct BackendTranslatingApp<Wrapped: SimulatedApp>: SimulatedApp {
    /// The app inside.
    public private(set) var wrapped: Wrapped
    /// The backend the app runs on.
    public let backend: LocationBackend
    private var adapter = ModernBackendAdapter()

    /// Wraps `app` for `backend`.
    public init(_ app: Wrapped, backend: LocationBackend) {
        self.wrapped = app
        self.backend = backend
    }

    /// Translates the event, lets the app handle each translated event, and translates its commands.
    public mutating func handle(_ event: DeviceEvent, at time: Date) -> [DeviceCommand] {
        guard backend == .modern else { return wrapped.handle(event, at: time) }
        var commands: [DeviceCommand] = []
        for translated in adapter.events(event, at: time) { commands += wrapped.handle(translated, at: time) }
        return translate(commands)
    }

    /// The app's next deadline.
    public var nextDeadline: Date? { wrapped.nextDeadline }

    /// Fires the app's deadline and translates its commands.
    public mutating func handleDeadline(at time: Date) -> [DeviceCommand] {
        translate(wrapped.handleDeadline(at: time))
    }

    /// The app's commands in the backend's vocabulary.
    private mutating func translate(_ commands: [DeviceCommand]) -> [DeviceCommand] {
        backend == .modern ? adapter.commands(commands) : commands
    }
}

extension Simulation {
    /// The attached app, or the app inside a ``BackendTranslatingApp``, as `App`.
    public func attachedApp<App: SimulatedApp>(as type: App.Type) -> App? {
        if let app = app as? App { return app }
        return (app as? BackendTranslatingApp<App>)?.wrapped
    }
}
