import WaymarkGeo

/// A `Clock` on a ``SimulatedDevice``'s virtual time: its `now` is the simulation's current second,
/// and a sleeper wakes when the device is advanced to its deadline, never by real time. A clock of its
/// own (``init(startingAt:)``) moves only when you call ``advance(by:)``.
///
/// Hand it to WaymarkEngine's `Engine` (or anything that takes a `Clock`) so its timeouts
/// fire at the right virtual moment while a test drives the device:
///
/// ```swift
/// let device = try SimulatedDevice(scenario: scenario)
/// let engine = Engine(device: device, clock: device.clock)
/// Task { await engine.run() }
/// await device.advance(by: 30)                 // a 20 s timeout has come due
/// await device.settle(engine)                 // deterministic: no race with its timer task
/// ```
///
/// Waking a sleeper resumes its task; when that task runs is up to the scheduler. A test that must
/// see a deadline's effects before time moves on calls ``SimulatedDevice/settle(_:)`` (or
/// `Engine.handleDeadlines(through:)`).
///
/// `Sendable`: its state is behind a lock. Works at the package's floors (iOS 17, macOS 14).
public final class SimulatedClock: Clock, Sendable {
    /// A point in virtual time: the offset from the scenario's start.
    public struct Instant: InstantProtocol {
        /// Virtual time since the scenario started.
        public var offset: Duration

        /// Makes an instant at `offset` from the scenario's start.
        public init(offset: Duration) { self.offset = offset }

        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        /// The virtual time from this instant to `other`.
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        /// Whether `a` comes before `b`.
        public static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
    }

    private struct Sleeper {
        var id: Int
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Instant
        var sleepers: [Sleeper] = []
        var nextID = 0
        /// Tasks in ``waitUntil(sleepers:)``.
        var watchers = CountWaiters()
    }

    private let state: LockedState<State>
    /// The clock of a ``SimulatedDevice``: it moves with the device, never by ``advance(by:)``.
    private let ownedByDevice: Bool

    init(seconds: Double, ownedByDevice: Bool) {
        state = LockedState(State(now: Instant(offset: .seconds(seconds))))
        self.ownedByDevice = ownedByDevice
    }

    /// The device's virtual time.
    public var now: Instant { state.withLock { $0.now } }

    /// Zero: virtual time has no granularity of its own.
    public var minimumResolution: Duration { .zero }

    /// Suspends until the device has been advanced to `deadline`; throws `CancellationError` when
    /// the task is cancelled first.
    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { s in s.nextID += 1; return s.nextID }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Now { case wait, wake, cancel }
                let (now, watchers) = state.withLock { s -> (Now, [CheckedContinuation<Bool, Never>]) in
                    if Task.isCancelled { return (.cancel, []) }
                    if deadline <= s.now { return (.wake, []) }
                    s.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return (.wait, Self.takeWatchers(&s))
                }
                for watcher in watchers { watcher.resume(returning: true) }
                switch now {
                case .wait: break
                case .wake: continuation.resume()
                case .cancel: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let (cancelled, watchers) = state.withLock { s -> (Sleeper?, [CheckedContinuation<Bool, Never>]) in
                guard let i = s.sleepers.firstIndex(where: { $0.id == id }) else { return (nil, []) }
                let sleeper = s.sleepers.remove(at: i)
                return (sleeper, Self.takeWatchers(&s))
            }
            for watcher in watchers { watcher.resume(returning: true) }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// A clock of its own, not tied to a device, at `seconds` of virtual time. Only ``advance(by:)``
    /// moves it: hand it to anything that takes a `Clock` (a transport's timeout, a queue's deadlines)
    /// in a test that drives time itself.
    ///
    /// ```swift
    /// let clock = SimulatedClock(startingAt: 0)
    /// let transport = try HTTPUploadTransport(server: url, timeout: .seconds(30), clock: clock)
    /// clock.advance(by: .seconds(30))   // an unanswered request times out now
    /// ```
    public convenience init(startingAt seconds: Double = 0) {
        self.init(seconds: seconds, ownedByDevice: false)
    }

    /// Moves virtual time forward by `duration` and wakes every sleeper whose deadline came.
    ///
    /// - precondition: `duration` is zero or more (a negative one stops the program, naming it),
    ///   and the clock is one of your own (``init(startingAt:)``): a device's clock moves only with
    ///   its device, through `SimulatedDevice.advance(by:)` or `run(until:)`.
    public func advance(by duration: Duration) {
        precondition(!ownedByDevice, "SimulatedClock.advance(by:) on a SimulatedDevice's clock; advance the device instead")
        precondition(duration >= .zero, "SimulatedClock.advance(by: \(duration)): time only moves forward")
        wake(state.withLock { s in
            s.now = s.now.advanced(by: duration)
            return Self.takeDue(&s)
        })
    }

    /// Moves to the device's virtual second `seconds` and wakes every sleeper whose deadline came.
    ///
    /// - precondition: `seconds` is not before ``now`` (the device's time never goes back).
    func move(to seconds: Double) {
        let target = Instant(offset: .seconds(seconds))
        wake(state.withLock { s in
            precondition(target >= s.now, "SimulatedClock moved back from \(s.now.offset) to \(target.offset)")
            s.now = target
            return Self.takeDue(&s)
        })
    }

    /// How many tasks sleep on this clock now.
    var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Returns once the tasks sleeping on this clock (``sleeperCount``) have come to `count`, from
    /// above or below: true; false when the waiting task is cancelled first. For tests that start a
    /// sleeper in a task and must know it sleeps before moving time.
    @discardableResult
    func waitUntil(sleepers count: Int) async -> Bool {
        let id = state.withLock { $0.watchers.newID() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let reached = state.withLock { s -> Bool? in
                    if s.sleepers.count == count { return true }
                    if Task.isCancelled { return false }
                    s.watchers.add(id, target: count, current: s.sleepers.count, continuation)
                    return nil
                }
                if let reached { continuation.resume(returning: reached) }
            }
        } onCancel: {
            state.withLock { $0.watchers.take(id) }?.resume(returning: false)
        }
    }

    /// Removes and returns the sleepers whose deadline has come, with the watchers that their
    /// going satisfies.
    private static func takeDue(_ s: inout State) -> (sleepers: [Sleeper], watchers: [CheckedContinuation<Bool, Never>]) {
        let now = s.now
        let due = s.sleepers.filter { $0.deadline <= now }
        s.sleepers.removeAll { $0.deadline <= now }
        return (due, due.isEmpty ? [] : takeWatchers(&s))
    }

    /// Removes and returns the watchers whose count of sleepers is reached.
    private static func takeWatchers(_ s: inout State) -> [CheckedContinuation<Bool, Never>] {
        s.watchers.takeReached(s.sleepers.count)
    }

    private func wake(_ due: (sleepers: [Sleeper], watchers: [CheckedContinuation<Bool, Never>])) {
        for sleeper in due.sleepers { sleeper.continuation.resume() }
        for watcher in due.watchers { watcher.resume(returning: true) }
    }
}
