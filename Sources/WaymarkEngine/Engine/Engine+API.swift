/// The permission part of an ``Engine``: ask for permissions one at a time, read the results.
///
/// ```swift
/// let outcomes = try await engine.permissions.request([.notifications([.alert, .sound]), .locationWhenInUse])
/// ```
///
/// A `Sendable` handle; use it from any task.
public struct EnginePermissions: Sendable {
    let engine: Engine

    /// Queues `requests` and returns their outcomes, in order, once the last one finished.
    ///
    /// Requests from several calls run one after the other, never two prompts at once. Each request
    /// ends with an answer or a timeout, so this returns unless the engine stops.
    /// - throws: ``EngineError`` with code ``EngineError/Code/stopped`` if the engine stops first.
    public func request(_ requests: [PermissionRequest]) async throws -> [PermissionOutcome] {
        try await engine.requestPermissions(requests)
    }

    /// Every location authorization change, with replay (the current value first).
    public var authorization: ReplaySequence<LocationAuthorization> { engine.authorizationStates.values }

    /// Each finished request's outcome, with replay of the latest.
    public var outcomes: ReplaySequence<PermissionOutcome> { engine.outcomeStates.values }

    /// The ``PermissionMemory`` to store, with replay; store each value you receive.
    public var memory: ReplaySequence<PermissionMemory> { engine.memoryStates.values }
}

/// The launch-location part of an ``Engine``.
///
/// ```swift
/// for await state in engine.launchLocation.states { render(state) }
/// ```
///
/// A `Sendable` handle; use it from any task.
public struct EngineLaunchLocation: Sendable {
    let engine: Engine

    /// The locator's states with replay: a late subscriber gets the current state at once, an early
    /// one each new state; every subscriber sees `located(fix)` exactly once.
    public var states: ReplaySequence<LaunchLocationState> { engine.launchStates.values }

    /// The current state.
    public var current: LaunchLocationState {
        get async { await engine.launchStates.current ?? .idle }
    }
}

/// The map part of an ``Engine``: one center per launch and the current-location button.
///
/// A `Sendable` handle; use it from any task.
public struct EngineMap: Sendable {
    let engine: Engine

    /// The map states with replay; ``MapLaunchState/center`` is set once per launch.
    public var states: ReplaySequence<MapLaunchState> { engine.mapStates.values }
}
