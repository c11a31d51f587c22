import Foundation
import WaymarkGeo
@testable import WaymarkEngine

/// A clock whose time moves only when a test calls ``advance(by:)``; sleepers wake when their
/// deadline is reached. Tests wait for a sleeper with ``waitForSleepers(_:)`` before advancing.
final class ManualClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
    }

    private struct Sleeper {
        var id: Int
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var nextID = 0
        var sleeperWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = LockedState(State())

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .zero }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { s in s.nextID += 1; return s.nextID }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready: [CheckedContinuation<Void, Never>] = state.withLock { s in
                    if deadline <= s.now || Task.isCancelled {
                        continuation.resume()
                        return []
                    }
                    s.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    let count = s.sleepers.count
                    let due = s.sleeperWaiters.filter { $0.count <= count }.map(\.continuation)
                    s.sleeperWaiters.removeAll { $0.count <= count }
                    return due
                }
                for waiter in ready { waiter.resume() }
            }
        } onCancel: {
            let cancelled = state.withLock { s -> Sleeper? in
                guard let i = s.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return s.sleepers.remove(at: i)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Suspends until at least `count` sleepers are waiting.
    func waitForSleepers(_ count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.sleepers.count >= count { return true }
                s.sleeperWaiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has come.
    func advance(by duration: Duration) {
        let due = state.withLock { s -> [Sleeper] in
            s.now = s.now.advanced(by: duration)
            let now = s.now
            let due = s.sleepers.filter { $0.deadline <= now }
            s.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// The current time as a date after ``T/origin``.
    var date: Date { T.origin.addingTimeInterval(Double(now.offset.components.seconds)
        + Double(now.offset.components.attoseconds) * 1e-18) }
}

/// A device the test plays by hand: it sends events and awaits the commands the engine performs.
actor FakeDevice: Device {
    nonisolated let events: AsyncStream<TimedDeviceEvent>
    private let continuation: AsyncStream<TimedDeviceEvent>.Continuation
    private let clock: ManualClock
    private(set) var performed: [DeviceCommand] = []
    private var read = 0
    private var commandWaiter: CheckedContinuation<DeviceCommand, Never>?

    /// What ``infoPlist()`` reports (nil: the device cannot tell).
    private let declarations: InfoPlistDeclarations?

    init(clock: ManualClock, declarations: InfoPlistDeclarations? = nil) {
        self.clock = clock
        self.declarations = declarations
        (events, continuation) = AsyncStream.makeStream(of: TimedDeviceEvent.self)
    }

    private var holding: DeviceCommand?
    private var held: CheckedContinuation<Void, Never>?
    private var heldWaiter: CheckedContinuation<Void, Never>?

    func perform(_ command: DeviceCommand) async {
        if command == holding {
            // Stands for a slow hop to the main actor: the engine's step stays suspended here.
            holding = nil
            heldWaiter?.resume()
            heldWaiter = nil
            await withCheckedContinuation { held = $0 }
        }
        performed.append(command)
        if let waiter = commandWaiter {
            commandWaiter = nil
            read += 1
            waiter.resume(returning: command)
        }
    }

    func now() -> Date { clock.date }

    func infoPlist() async -> InfoPlistDeclarations? { declarations }

    /// What ``monitoredRegionIdentifiers()`` reports (nil: the device cannot tell).
    var osRegions: Set<String>?

    func setOSRegions(_ ids: Set<String>?) { osRegions = ids }

    func monitoredRegionIdentifiers() async -> Set<String>? { osRegions }

    /// Sends an event stamped with the clock's time.
    nonisolated func send(_ event: DeviceEvent) {
        continuation.yield(TimedDeviceEvent(time: clock.date, event: event))
    }

    /// Sends an event stamped `seconds` after the clock's time, without moving the clock (a
    /// phone whose timer has not woken yet, e.g. because the app was suspended).
    nonisolated func send(_ event: DeviceEvent, after seconds: TimeInterval) {
        continuation.yield(TimedDeviceEvent(time: clock.date.addingTimeInterval(seconds), event: event))
    }

    /// Ends the event stream.
    nonisolated func finish() { continuation.finish() }

    /// Holds the next `command` inside `perform` until ``release()``.
    func hold(_ command: DeviceCommand) { holding = command }

    /// Returns once the held command reached `perform`.
    func waitUntilHeld() async {
        if held != nil { return }
        await withCheckedContinuation { heldWaiter = $0 }
    }

    /// Lets the held command through.
    func release() {
        held?.resume()
        held = nil
    }

    /// The next command the engine performs (returns at once if one is already unread).
    func nextCommand() async -> DeviceCommand {
        if read < performed.count {
            read += 1
            return performed[read - 1]
        }
        return await withCheckedContinuation { commandWaiter = $0 }
    }
}
