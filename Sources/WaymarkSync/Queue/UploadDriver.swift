import Foundation
import Logging
import WaymarkEngine

/// Runs an ``UploadQueue`` for real: performs its actions with an ``UploadExecutor``, wakes it at
/// its deadlines on a clock, and publishes its progress.
///
/// Tell it about new fixes (``recorded()``) and device events (``handle(_:)``); it forwards
/// background-task commands to `commands` (the app's `Device`, from WaymarkEngine). Sends run in their own task,
/// so a background-task expiry can cancel one in flight. Over a `HandOffUploadTransport`, when the
/// queue stops for a background window (budget spent or task expired) with points left, the rest is
/// handed to the system in batches of ``UploadQueue/Configuration/handOffBatchPoints``.
///
/// ```swift
/// let driver = UploadDriver(executor: executor, commands: { await device.perform($0) })
/// try store.append(fixes, to: ride.id)
/// await driver.recorded()
/// for await status in driver.statuses where status.backlog.isEmpty { break }
/// ```
///
/// Thread-safety: an actor; call it from any task. Call ``stop()`` when done.
public actor UploadDriver {
    /// The queue's state after each step.
    public struct Status: Hashable, Sendable {
        /// What waits for upload.
        public var backlog: UploadBacklog
        /// What the queue is waiting for.
        public var phase: UploadQueue.Phase
        /// Consecutive failed attempts.
        public var failures: Int
    }

    let executor: UploadExecutor
    let commands: @Sendable (DeviceCommand) async -> Void
    let clock: any UploadClock
    let logger = Logger(label: "waymark.upload")
    /// The field log the outcomes go to, if any.
    let log: FieldLog?
    /// The queue's state.
    public private(set) var queue: UploadQueue
    var timer: Task<Void, Never>?
    var inFlight: (attempt: Int, task: Task<Void, Never>)?
    var attempts = 0
    /// What was left was handed to the system in this background window.
    var handedOff = false
    /// The queue's state after each step; the current state first. One subscriber.
    public nonisolated let statuses: AsyncStream<Status>
    let continuation: AsyncStream<Status>.Continuation

    /// Makes a driver over the store's current backlog.
    ///
    /// - parameter executor: carries out the queue's store, send and credential actions; the
    ///   starting backlog and the saved retry state are read from its store.
    /// - parameter configuration: the queue's batch, backoff and background-time limits.
    /// - parameter seed: seeds the backoff jitter; random by default, fix it for a reproducible schedule.
    /// - parameter foreground: whether the app runs in the foreground now.
    /// - parameter online: whether the network is reachable now, as far as the app knows.
    /// - parameter clock: the one time source: the wall-clock time the queue reasons in, read at
    ///   every step, and the sleep until its next deadline (``SystemUploadClock`` by default).
    /// - parameter commands: carries out the queue's device commands (begin and end a background
    ///   task), usually by passing them to the app's `Device`; awaited before the next action runs.
    /// - parameter log: the field log (WaymarkEngine's `FieldLog`, usually `engine.log`) that hears
    ///   every upload outcome and store failure; nil for none.
    /// - throws: ``SyncError`` `.storage` when the backlog cannot be read.
    public init(executor: UploadExecutor, configuration: UploadQueue.Configuration = .init(), seed: UInt64 = .random(in: 0...UInt64.max),
                foreground: Bool = true, online: Bool = true, clock: any UploadClock = SystemUploadClock(),
                log: FieldLog? = nil, commands: @escaping @Sendable (DeviceCommand) async -> Void = { _ in }) throws {
        self.executor = executor
        self.log = log
        self.commands = commands
        self.clock = clock
        queue = UploadQueue(configuration: configuration, backlog: try executor.store.backlog(),
                            backoff: try executor.store.uploadBackoff(),
                            foreground: foreground, online: online, seed: seed, at: clock.now)
        (statuses, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Starts work on what the store already holds (call once after making the driver).
    public func start() async { await feed(nil) }

    /// New fixes were appended to the store.
    public func recorded() async {
        do {
            await feed(.backlogChanged(try executor.store.backlog()))
        } catch {
            logger.error("cannot read the upload backlog: \(error)")
        }
    }

    /// A device event (reachability, lifecycle, background-task expiry, locations).
    public func handle(_ event: DeviceEvent) async { await feed(.device(event)) }

    /// Sends everything now, however small the batch.
    public func flush() async { await feed(.flush) }

    /// Stops the timer and abandons any send in flight (its batch stays pending).
    public func stop() {
        timer?.cancel()
        inFlight?.task.cancel()
        inFlight = nil
        continuation.finish()
    }

    func feed(_ event: UploadQueueEvent?) async {
        let actions = event.map { queue.handle($0, at: clock.now, log: log) } ?? queue.deadlineReached(at: clock.now)
        _ = try? await executor.run(actions, at: { clock.now }, handle: { queue.handle($0, at: clock.now, log: log) },
                                    effect: { effect in
            switch effect {
            case .send(let key):
                // Another event may have run while this step awaited (actor reentrancy).
                if queue.phase == .sending(key: key) { startSend(key) }
            case .cancelSend:
                inFlight?.task.cancel()
                inFlight = nil
            case .device(let command):
                await commands(command)
            }
            return .done
        }, storeFailed: { action, error in
            logger.error("upload action \(action) failed: \(error)")
            log?.record(.error, .upload, "the device store failed during \(action): \(error)", at: clock.now)
        })
        await handOffIfSuspending()
        continuation.yield(Status(backlog: queue.backlog, phase: queue.phase, failures: queue.failures))
        scheduleTimer()
    }

    /// When the queue stops for this background window (its budget spent, or its background task
    /// expired) with points left, and the transport can carry transfers on after the process
    /// stops (`HandOffUploadTransport`), hands the rest to the system in larger batches
    /// (``UploadExecutor/handOffBacklog(maxPoints:maxBytes:at:)``); once per window.
    func handOffIfSuspending() async {
        guard !queue.foreground, queue.budgetExhausted else {
            handedOff = false
            return
        }
        guard !handedOff, executor.continuing != nil, !queue.backlog.isEmpty else { return }
        handedOff = true
        do {
            let keys = try await executor.handOffBacklog(maxPoints: queue.configuration.handOffBatchPoints,
                                                         maxBytes: queue.configuration.handOffBatchBytes, at: clock.now)
            if !keys.isEmpty {
                logger.info("handed \(keys.count) batches to the system before suspension")
                log?.record(.info, .upload, "handed \(keys.count) batches to the system's background transfers before suspension",
                            at: clock.now)
                for case .device(let command) in queue.handle(.backlogChanged(try executor.store.backlog()), at: clock.now) {
                    await commands(command)
                }
            }
        } catch {
            logger.error("cannot hand the backlog to the system: \(error)")
        }
    }

    func startSend(_ key: String) {
        attempts += 1
        let attempt = attempts, executor = executor, sentAt = clock.now
        let task = Task {
            let event: UploadQueueEvent
            do {
                event = try await executor.send(key: key, at: sentAt)
            } catch {
                event = .sendFinished(key: key, response: .connectionFailed("\(error)"))
            }
            await self.sendFinished(attempt: attempt, event: event)
        }
        inFlight = (attempt, task)
    }

    func sendFinished(attempt: Int, event: UploadQueueEvent) async {
        guard inFlight?.attempt == attempt else { return }
        inFlight = nil
        await feed(event)
    }

    func scheduleTimer() {
        timer?.cancel()
        guard let deadline = queue.nextDeadline else { return }
        let clock = clock
        timer = Task {
            do {
                try await clock.sleep(until: deadline)
            } catch {
                return
            }
            await self.feed(nil)
        }
    }
}
