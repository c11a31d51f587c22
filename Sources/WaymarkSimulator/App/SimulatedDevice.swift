import Foundation
import WaymarkEngine
import WaymarkGeo

/// A `Device` (WaymarkEngine) backed by a ``Simulation``: what an engine or an app's test suite talks to.
///
/// Commands are performed at the current virtual time; the clock moves only when the test calls
/// ``advance(by:)`` or ``run(until:)``, and the events produced are then yielded on ``events``
/// in order. No real time passes: give an engine ``clock`` and its timeouts run on the same
/// virtual time.
///
/// ```swift
/// let device = try SimulatedDevice(scenario: scenario, seed: 42)
/// await device.open()                       // the user opens the app
/// await device.perform(.createLocationManager)
/// await device.advance(by: 60)
/// for await timed in device.events { … }
/// ```
///
/// An actor: safe to use from any task.
public actor SimulatedDevice: Device {
    private var simulation: Simulation
    private var yielded = 0
    /// Commands the app performed on this device so far.
    public private(set) var commandsPerformed = 0
    /// Tasks waiting in ``waitForCommands(_:)``.
    private var commandWaiters = CountWaiters()
    private let continuation: AsyncStream<TimedDeviceEvent>.Continuation

    /// Every event delivered to the app, in order. Single consumer.
    public nonisolated let events: AsyncStream<TimedDeviceEvent>
    /// A `Clock` on this device's virtual time, for an `Engine` (or anything else that takes a
    /// `Clock`) driven by it: its sleepers wake as the device advances, never by real time.
    public nonisolated let clock: SimulatedClock
    /// The wall-clock time of the scenario's start: the device's virtual time zero.
    public nonisolated let epoch: Date

    /// Makes a device running `scenario` with `seed`.
    ///
    /// - throws: ``SimulatorError`` when the scenario is invalid.
    public init(scenario: Scenario, seed: UInt64? = nil, trajectory: Trajectory? = nil) throws(SimulatorError) {
        let simulation = try Simulation(scenario: scenario, seed: seed, trajectory: trajectory)
        self.simulation = simulation
        (events, continuation) = AsyncStream.makeStream(of: TimedDeviceEvent.self)
        clock = SimulatedClock(seconds: simulation.now, ownedByDevice: true)
        epoch = simulation.epoch
    }

    public func perform(_ command: DeviceCommand) {
        simulation.perform(command)
        flush()
        commandsPerformed += 1
        for continuation in commandWaiters.takeReached(commandsPerformed) { continuation.resume(returning: true) }
    }

    /// Returns once the app has performed `count` commands on this device in all
    /// (``commandsPerformed``): true; false when the waiting task is cancelled first. For a test that
    /// starts an engine call in a task and must let it reach the device before time moves on.
    ///
    /// ```swift
    /// let sent = await device.commandsPerformed
    /// let request = Task { try await engine.permissions.request([.locationWhenInUse]) }
    /// await device.waitForCommands(sent + 1)    // the prompt is on screen at this virtual second
    /// ```
    @discardableResult
    public func waitForCommands(_ count: Int) async -> Bool {
        guard commandsPerformed < count else { return true }
        let id = commandWaiters.newID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                if Task.isCancelled {
                    continuation.resume(returning: false)
                } else {
                    commandWaiters.add(id, target: count, current: commandsPerformed, continuation)
                }
            }
        } onCancel: {
            Task { await self.cancelCommandWaiter(id) }
        }
    }

    private func cancelCommandWaiter(_ id: Int) {
        commandWaiters.take(id)?.resume(returning: false)
    }

    public func now() -> Date { simulation.currentDate }

    /// The regions the simulated iOS monitors for the app (the host's included).
    public func monitoredRegionIdentifiers() async -> Set<String>? {
        Set(simulation.regions.identifiers)
    }

    /// The region the simulated iOS monitors under `identifier`, with its centre and radius.
    public func monitoredRegion(identifier: String) async -> MonitoredRegion? {
        simulation.regions.monitor(identifier)?.region
    }

    /// Background App Refresh on and Low Power Mode off (``DeviceSetup/backgroundAppRefresh``,
    /// ``DeviceSetup/lowPowerMode``).
    public func backgroundAppRefreshAvailable() async -> Bool? {
        simulation.backgroundRefreshAvailable
    }

    /// The scenario's declarations (``DeviceSetup/usageDescriptions``, ``DeviceSetup/backgroundModes``).
    /// The simulator does not model `BGTaskScheduler`, so no task identifier is permitted.
    public func infoPlist() async -> InfoPlistDeclarations? {
        InfoPlistDeclarations(
            usageDescriptions: Dictionary(uniqueKeysWithValues: simulation.usageDescriptions.compactMap { declared in
                UsageDescriptionKey(rawValue: declared.rawValue).map { ($0, "Declared in the scenario.") }
            }),
            backgroundModes: Set(simulation.backgroundModes.map(\.rawValue)),
            requiresExplicitServiceSession: simulation.scenario.device?.requiresExplicitServiceSession ?? false)
    }

    /// Advances virtual time by `seconds`, yielding the events produced.
    ///
    /// - precondition: `seconds` is zero or more.
    public func advance(by seconds: Double) {
        simulation.advance(by: seconds)
        flush()
    }

    /// Runs to virtual second `t`, yielding the events produced.
    ///
    /// - precondition: `t` is not before the current virtual second.
    public func run(until t: Double) {
        simulation.run(until: t)
        flush()
    }

    /// The user opens the app now (launching it if needed).
    public func open() {
        simulation.open()
        simulation.pump()
        flush()
    }

    /// The simulation's state (truth, log, energy, counters) at this moment.
    public var state: Simulation { simulation }

    /// Ends the event stream; tasks still in ``waitForCommands(_:)`` return false.
    public func finish() {
        continuation.finish()
        for waiter in commandWaiters.takeAll() { waiter.resume(returning: false) }
    }

    /// Returns once `engine`, running over this device, has handled every event the device has
    /// delivered, including those its commands produced meanwhile, and every deadline due by the
    /// device's current second: true; false, early, when the engine stops or the waiting task is
    /// cancelled.
    ///
    /// The engine must be the only reader of ``events`` (it counts what it handled against what the
    /// device delivered); with another reader this waits until cancelled.
    ///
    /// Call it after each ``open()``, ``advance(by:)`` or ``run(until:)`` so the engine has done
    /// everything due before time moves on. It waits on the engine
    /// (`EngineDiagnostics.waitUntilHandled(_:)`), never on real time or by yielding.
    ///
    /// ```swift
    /// Task { await engine.run() }
    /// await device.open()
    /// await device.settle(engine)
    /// await device.advance(by: 20)
    /// await device.settle(engine)               // a 20 s timeout has fired and its commands are done
    /// ```
    @discardableResult
    public func settle(_ engine: Engine) async -> Bool {
        while true {
            let delivered = yielded
            guard await engine.diagnostics.waitUntilHandled(delivered) else { return false }
            if yielded > delivered { continue }   // its commands produced more events
            // The engine's timer sleeps on `clock`; its task may run only later, so hand the engine
            // what is due now directly (a deadline handled twice does nothing the second time).
            await engine.handleDeadlines(through: simulation.currentDate)
            if yielded == delivered { return true }
        }
    }

    private func flush() {
        clock.move(to: simulation.now)
        while yielded < simulation.received.count {
            continuation.yield(simulation.received[yielded])
            yielded += 1
        }
    }
}
