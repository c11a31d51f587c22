import Foundation

/// Runs the ``EngineCore`` against a ``Device``: feeds it every event, performs its commands, wakes
/// it at its deadlines with an injected `Clock`, and publishes its states with replay.
///
/// ```swift
/// let engine = Engine(device: device, memory: storedMemory)
/// Task { await engine.run() }
/// let outcomes = try await engine.permissions.request([.notifications([.alert, .sound]), .locationWhenInUse])
/// for await state in engine.launchLocation.states {
///     if case .located(let fix) = state { mapView.setCenter(fix.coordinate) }
/// }
/// ```
///
/// An actor: every method is safe to call from any task. Timeouts are measured on `clock`
/// (a `ContinuousClock` by default; tests pass a manual clock); event times come from the device.
public actor Engine {
    let device: any Device
    let clock: any Clock<Duration>
    var core: EngineCore
    var nextBatch = 1
    var waiters: [Int: CheckedContinuation<[PermissionOutcome], any Error>] = [:]
    var completed: [Int: [PermissionOutcome]] = [:]
    var timer: Task<Void, Never>?
    var timerDeadline: Date?
    var stopped = false
    /// Device events fully handled (commands performed); lets tests wait until the engine is idle.
    var eventsHandled = 0
    /// The time of the latest device event handled; app calls are never stamped earlier.
    var latestEventTime: Date?

    nonisolated let launchStates = ReplayBroadcaster<LaunchLocationState>(initial: .idle)
    nonisolated let authorizationStates = ReplayBroadcaster<LocationAuthorization>()
    nonisolated let mapStates = ReplayBroadcaster<MapLaunchState>(initial: MapLaunchState())
    nonisolated let memoryStates: ReplayBroadcaster<PermissionMemory>
    nonisolated let outcomeStates = ReplayBroadcaster<PermissionOutcome>()

    /// Makes an engine over `device`.
    ///
    /// - parameter clock: measures timeouts; pass a manual clock in tests.
    /// - parameter memory: the ``PermissionMemory`` the app stored on an earlier launch.
    public init(device: any Device, clock: any Clock<Duration> = ContinuousClock(),
                configuration: EngineCore.Configuration = .init(), memory: PermissionMemory = .init()) {
        self.device = device
        self.clock = clock
        self.core = EngineCore(configuration: configuration, memory: memory)
        self.memoryStates = ReplayBroadcaster(initial: memory)
    }

    /// Permission requests and their published results.
    public nonisolated var permissions: EnginePermissions { EnginePermissions(engine: self) }

    /// The launch location's states, with replay.
    public nonisolated var launchLocation: EngineLaunchLocation { EngineLaunchLocation(engine: self) }

    /// The map helper's states, with replay.
    public nonisolated var map: EngineMap { EngineMap(engine: self) }

    /// Consumes the device's events until the stream ends, then stops: pending requests throw
    /// ``EngineError/Code/stopped`` and every state sequence ends. Call once.
    public func run() async {
        for await timed in device.events {
            guard !stopped else { break }
            latestEventTime = max(latestEventTime ?? timed.time, timed.time)
            let out = core.handle(timed.event, at: timed.time)
            await apply(out)
            eventsHandled += 1
        }
        await stop()
    }

    /// Stops the engine now (as if the device stream had ended).
    public func stop() async {
        guard !stopped else { return }
        stopped = true
        timer?.cancel()
        timer = nil
        for waiter in waiters.values {
            waiter.resume(throwing: EngineError(.stopped, "the engine stopped before the permission requests finished"))
        }
        waiters = [:]
        await launchStates.finish()
        await authorizationStates.finish()
        await mapStates.finish()
        await memoryStates.finish()
        await outcomeStates.finish()
    }

    func requestPermissions(_ requests: [PermissionRequest]) async throws -> [PermissionOutcome] {
        guard !stopped else { throw EngineError(.stopped, "the engine is not running; call run() first") }
        let batch = nextBatch
        nextBatch += 1
        let deviceNow = await device.now()
        let now = max(deviceNow, latestEventTime ?? deviceNow)
        await apply(core.requestPermissions(requests, batch: batch, at: now))
        if let done = completed.removeValue(forKey: batch) { return done }
        guard !stopped else { throw EngineError(.stopped, "the engine stopped before the permission requests finished") }
        return try await withCheckedThrowingContinuation { waiters[batch] = $0 }
    }

    /// Publishes the updates and performs the commands of one core step, then re-arms the timer.
    func apply(_ out: EngineOutput) async {
        rescheduleTimer()
        for update in out.updates { await publish(update) }
        for command in out.commands { await device.perform(command) }
    }

    private func publish(_ update: EngineUpdate) async {
        switch update {
        case .permission(.batchCompleted(let batch, let outcomes)):
            if let waiter = waiters.removeValue(forKey: batch) {
                waiter.resume(returning: outcomes)
            } else {
                completed[batch] = outcomes
            }
        case .permission(.outcome(_, let outcome)): await outcomeStates.publish(outcome)
        case .permission(.authorizationChanged(let auth)): await authorizationStates.publish(auth)
        case .permission(.memoryChanged(let memory)): await memoryStates.publish(memory)
        case .launchLocation(let state): await launchStates.publish(state)
        case .map(let state): await mapStates.publish(state)
        case .geofence, .ride: break
        }
    }
}
