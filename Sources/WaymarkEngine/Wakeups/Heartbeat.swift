import Foundation
import WaymarkGeo

/// A heartbeat while the device is still: iOS's app-refresh task (`BGAppRefreshTask`) wakes the app
/// now and then, and each wake takes one fix, publishes it and gives the app a moment to upload.
///
/// Off by default: set ``Configuration/taskIdentifier``, list the same identifier under
/// `BGTaskSchedulerPermittedIdentifiers` in the Info.plist and add the `fetch` background mode (the
/// engine's ``EngineDiagnostics`` checks both), and on a device register the task before the app
/// finishes launching (`LiveDevice.registerAppRefreshTask(identifier:)`).
///
/// **What iOS promises, and what it does not.** Apple's documentation gives only a lower bound:
/// `earliestBeginDate` is the earliest the task may run, and "the system doesn't guarantee launching
/// the task at the specified date, but only that it won't begin sooner" (Apple, `BGTaskRequest.earliestBeginDate`).
/// When it runs is decided on the device from how often the user opens the app, the battery and the
/// network (WWDC19 707, *Advances in App Background Execution*). It does not run with Background App
/// Refresh off for the app, in Low Power Mode (which turns Background App Refresh off), or after the
/// user force-quit the app from the app switcher until they open it again. A task has about 30 seconds
/// before its expiration handler is called (WWDC19 707). So a heartbeat is a "now and then", from a
/// few times an hour for an app the user opens every day to a few times a day or never: it is not a
/// timer, and nothing should depend on its period. The simulator models exactly this
/// (`PlatformConstants` app-refresh constants).
///
/// **A wake.** On ``DeviceEvent/appRefresh(identifier:)`` the heartbeat asks for one fix at
/// ``Configuration/accuracy`` through the engine's demand merging (a ride's own fixes serve it with no
/// extra command). The first fix at most ``Configuration/maximumFixAge`` old, or at
/// ``Configuration/fixTimeout`` the best one seen (none when location is off or no fix came), ends the beat: ``Update/beat(_:)`` is published,
/// the task is completed, and the next one is requested ``Configuration/interval`` later (at the next
/// tracking window's start when that falls outside the windows, so the app gets a chance to wake as a
/// window opens). An expiration ends the beat at once, completed as unsuccessful.
///
/// ```swift
/// var configuration = EngineCore.Configuration()
/// configuration.heartbeat = Heartbeat.Configuration(taskIdentifier: "com.example.rides.heartbeat")
/// let engine = Engine(device: device, configuration: configuration)
/// for await update in await engine.heartbeats.updates.subscribe() { if case .beat = update { await uploader.flush() } }
/// ```
///
/// A pure state machine and a `Sendable` value type, owned by the ``EngineCore``.
public struct Heartbeat: Hashable, Sendable {
    /// The heartbeat's settings.
    public struct Configuration: Hashable, Sendable {
        /// The app-refresh task's identifier; nil (the default) turns the heartbeat off.
        public var taskIdentifier: String?
        /// The earliest begin of the next wake after a beat, s (default 15 minutes, the shortest
        /// interval Apple's background-fetch API ever named; iOS decides the real spacing).
        public var interval: TimeInterval
        /// The accuracy of the beat's fix (default `hundredMeters`: Wi-Fi or cell, cheap and quick).
        public var accuracy: DesiredAccuracy
        /// How long a beat waits for a fix, s (default 20, inside the task's 30 s).
        public var fixTimeout: TimeInterval
        /// The oldest fix a beat takes, s (default 60: a ride's latest fix serves).
        public var maximumFixAge: TimeInterval

        /// Makes a configuration; without a task identifier the heartbeat is off.
        public init(taskIdentifier: String? = nil, interval: TimeInterval = 15 * 60, accuracy: DesiredAccuracy = .hundredMeters,
                    fixTimeout: TimeInterval = 20, maximumFixAge: TimeInterval = 60) {
            self.taskIdentifier = taskIdentifier
            self.interval = interval
            self.accuracy = accuracy
            self.fixTimeout = fixTimeout
            self.maximumFixAge = maximumFixAge
        }

        /// What is wrong with the configuration, one sentence per field; empty when usable.
        public var contractViolations: [String] {
            var problems: [String] = []
            if taskIdentifier?.isEmpty == true { problems.append("taskIdentifier is empty; give the identifier listed in BGTaskSchedulerPermittedIdentifiers, or nil for no heartbeat") }
            if !(interval >= 0) { problems.append("interval is \(interval); it must be 0 or more seconds") }
            if !(fixTimeout > 0 && fixTimeout <= 30) { problems.append("fixTimeout is \(fixTimeout); it must be more than 0 and at most 30 s, an app-refresh task's time") }
            if !(maximumFixAge >= 0) { problems.append("maximumFixAge is \(maximumFixAge); it must be 0 or more seconds") }
            return problems
        }
    }

    /// One wake's result.
    public struct Beat: Hashable, Sendable {
        /// When iOS ran the task.
        public var wokeAt: Date
        /// When the beat ended.
        public var endedAt: Date
        /// The fix it took; nil when none came in time (no authorization in the background, no signal).
        public var fix: Fix?
        /// Whether iOS's time ran out first (the expiration handler).
        public var expired: Bool
        /// The earliest begin asked for the next wake; nil when none could be asked for.
        public var next: Date?
    }

    /// What a step publishes.
    public enum Update: Hashable, Sendable {
        /// iOS ran the task: a beat begins.
        case woke(at: Date)
        /// A beat ended.
        case beat(Beat)
        /// iOS refused to schedule the task; the heartbeat asks again when the app is next opened.
        case refused(AppRefreshRefusal)
    }

    /// The output type of every step.
    public typealias Output = ComponentOutput<Update>

    /// The settings.
    public let configuration: Configuration
    /// The tracking windows the next wake is aligned with (``AutomaticTracking/windows``).
    public let windows: TrackingWindows?
    /// When the running beat began; nil between beats.
    public private(set) var wokeAt: Date?
    /// The best fix of the running beat so far.
    private var best: Fix?
    /// The latest fix the engine heard, from any source.
    private var lastFix: Fix?
    /// The earliest begin last asked for.
    public private(set) var requestedFor: Date?
    /// iOS refused the request; not asked again until the app is in the foreground.
    public private(set) var refused = false
    /// Beats ended in this process.
    public private(set) var beats = 0

    /// Makes the heartbeat of a new process.
    public init(configuration: Configuration = Configuration(), windows: TrackingWindows? = nil) {
        ContractCheck.require(configuration.contractViolations, in: "Heartbeat.Configuration")
        self.configuration = configuration
        self.windows = windows
    }

    /// The location demand: one fix while a beat runs.
    public var demand: LocationDemand {
        wokeAt == nil ? .none : .oneFix(configuration.accuracy)
    }

    /// When to call ``deadlineReached(at:)``: the running beat's fix timeout.
    public var nextDeadline: Date? { wokeAt?.addingTimeInterval(configuration.fixTimeout) }

    /// Handles one device event.
    public mutating func handle(_ event: DeviceEvent, at now: Date) -> Output {
        guard let identifier = configuration.taskIdentifier else { return Output() }
        switch event {
        case .launched:
            // A new process: iOS keeps a pending request across launches, but submitting again is
            // harmless (it replaces it) and covers a request lost with an uninstall or a refusal.
            return schedule(identifier, from: now)
        case .willEnterForeground where refused:
            refused = false
            return schedule(identifier, from: now)
        case .appRefresh(let id) where id == identifier:
            wokeAt = now
            best = nil
            var out = Output(updates: [.woke(at: now)], demand: demand)
            if let cached = lastFix, fresh(cached, at: now) {
                out = merge(out, finish(identifier, fix: cached, expired: false, at: now))
            }
            return out
        case .appRefreshExpired(let id) where id == identifier && wokeAt != nil:
            return finish(identifier, fix: best, expired: true, at: now)
        case .appRefreshRefused(let id, let reason) where id == identifier:
            refused = true
            requestedFor = nil
            return Output(updates: [.refused(reason)], demand: demand)
        case .locations(let fixes):
            return take(fixes, identifier: identifier, at: now)
        case .significantChange(let fix):
            return take([fix], identifier: identifier, at: now)
        default:
            return Output(demand: demand)
        }
    }

    /// At the fix timeout: the beat ends with the best fix seen, if any.
    public mutating func deadlineReached(at now: Date) -> Output {
        guard let identifier = configuration.taskIdentifier, let start = wokeAt,
              now >= start.addingTimeInterval(configuration.fixTimeout) else { return Output(demand: demand) }
        return finish(identifier, fix: best, expired: false, at: now)
    }

    private func fresh(_ fix: Fix, at now: Date) -> Bool {
        now.timeIntervalSince(fix.timestamp) <= configuration.maximumFixAge
    }

    private mutating func take(_ fixes: [Fix], identifier: String, at now: Date) -> Output {
        for fix in fixes where lastFix.map({ fix.timestamp >= $0.timestamp }) ?? true { lastFix = fix }
        guard wokeAt != nil else { return Output(demand: demand) }
        let usable = fixes.filter { fresh($0, at: now) && ($0.horizontalAccuracy ?? -1) >= 0 }
        for fix in usable where best.map({ (fix.horizontalAccuracy ?? .infinity) < ($0.horizontalAccuracy ?? .infinity) }) ?? true {
            best = fix
        }
        let goodEnough = usable.last { ($0.horizontalAccuracy ?? .infinity) <= LocationRequests.acceptableMeters(for: configuration.accuracy) }
        guard let fix = goodEnough else { return Output(demand: demand) }
        return finish(identifier, fix: fix, expired: false, at: now)
    }

    private mutating func finish(_ identifier: String, fix: Fix?, expired: Bool, at now: Date) -> Output {
        guard let start = wokeAt else { return Output(demand: demand) }
        wokeAt = nil
        best = nil
        beats += 1
        var out = schedule(identifier, from: now, completing: !expired)
        let beat = Beat(wokeAt: start, endedAt: now, fix: fix, expired: expired, next: requestedFor)
        out.updates.insert(.beat(beat), at: 0)
        return out
    }

    /// The earliest begin of the next wake after `now`: ``Configuration/interval`` on, moved to the
    /// next window's start when that time falls outside the tracking windows.
    public func nextWake(after now: Date) -> Date {
        let due = now.addingTimeInterval(configuration.interval)
        guard let windows, !windows.contains(due), let start = windows.nextStart(after: due.addingTimeInterval(-1)) else { return due }
        return start
    }

    private mutating func schedule(_ identifier: String, from now: Date, completing success: Bool? = nil) -> Output {
        var commands: [DeviceCommand] = []
        // The next request goes in before the completion: iOS may suspend the app as soon as the task completes.
        if !refused {
            let next = nextWake(after: now)
            commands.append(.scheduleAppRefresh(identifier: identifier, earliestBegin: next))
            requestedFor = next
        }
        if let success { commands.append(.completeAppRefresh(identifier: identifier, success: success)) }
        return Output(commands: commands, demand: demand)
    }

    private func merge(_ a: Output, _ b: Output) -> Output {
        Output(commands: a.commands + b.commands, updates: a.updates + b.updates, demand: b.demand)
    }
}
