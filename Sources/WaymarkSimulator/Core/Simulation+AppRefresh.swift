import Foundation
import WaymarkEngine

/// iOS's app-refresh tasks (`BGTaskScheduler` with `BGAppRefreshTaskRequest`), as an app sees them.
///
/// - **Submitting** (``DeviceCommand/scheduleAppRefresh(identifier:earliestBegin:)``) is refused
///   as `notPermitted` when the identifier is not in `BGTaskSchedulerPermittedIdentifiers`
///   (``DeviceSetup/appRefreshIdentifiers``) or the app lacks the `fetch` background mode, and as
///   `unavailable` when Background App Refresh is off for the app (Apple, `BGTaskScheduler.Error.Code`).
///   A new request replaces the pending one with the same identifier.
/// - **Running.** iOS never starts a task before its earliest begin (Apple,
///   `BGTaskRequest.earliestBeginDate`), and starts it a delay later that depends on how often the
///   user opens the app (``DeviceSetup/appUsage``, ``PlatformConstants/appRefreshDelayDailyMinSeconds``;
///   WWDC20 10063). It does not run while Low Power Mode is on or Background App Refresh is off, nor
///   for an app the user force-quit until they open it again, nor while the app is in the foreground
///   (WWDC20 10063: the app switcher and the Background App Refresh switch are among its factors):
///   the run waits, and is tried again a delay later. A terminated app is launched in the background
///   (``LaunchReason/background``: no launch key), a suspended one woken.
/// - **Time.** The task has ``PlatformConstants/appRefreshSeconds``; then its expiration handler runs
///   (``DeviceEvent/appRefreshExpired(identifier:)``), and an app that has not completed it
///   ``PlatformConstants/backgroundTaskGraceSeconds`` later is terminated, as for a background task.
///   A completed task lets the app be suspended.
extension Simulation {
    mutating func submitAppRefresh(_ identifier: String, earliestBegin: Date) {
        let permitted = scenario.device?.appRefreshIdentifiers.map { $0.contains(identifier) } ?? true
        let refusal: AppRefreshRefusal? = if !permitted || !backgroundModes.contains(.fetch) {
            .notPermitted
        } else if scenario.device?.backgroundAppRefresh == false {
            .unavailable
        } else {
            nil
        }
        if let refusal {
            stats.appRefreshRefusals += 1
            note("app-refresh request \"\(identifier)\" refused (\(refusal.rawValue))")
            emit(.appRefreshRefused(identifier: identifier, reason: refusal))
            return
        }
        let earliest = max(now, earliestBegin.timeIntervalSince(epoch))
        let serial = appRefresh.submit(identifier, earliest: earliest)
        queue.schedule(.appRefreshDue(serial: serial), at: earliest + appRefreshDelay())
    }

    /// The delay after the earliest begin, drawn for the app's usage.
    mutating func appRefreshDelay() -> Double {
        let c = constants
        let (low, high) = switch scenario.device?.appUsage ?? .daily {
        case .daily: (c.appRefreshDelayDailyMinSeconds, c.appRefreshDelayDailyMaxSeconds)
        case .weekly: (c.appRefreshDelayWeeklyMinSeconds, c.appRefreshDelayWeeklyMaxSeconds)
        case .rarely: (c.appRefreshDelayRarelyMinSeconds, c.appRefreshDelayRarelyMaxSeconds)
        }
        return high > low ? rng.uniform(low, high) : max(0, low)
    }

    /// Why iOS does not run a due task now, or nil.
    var appRefreshHeldBack: String? {
        if scenario.device?.lowPowerMode == true { return "Low Power Mode is on" }
        if scenario.device?.backgroundAppRefresh == false { return "Background App Refresh is off" }
        if process.state == .notRunning, process.forceQuitBlocked { return "the user force-quit the app" }
        if process.state == .foreground { return "the app is in the foreground" }
        if appRefresh.running != nil { return "a task is already running" }
        return nil
    }

    mutating func runAppRefresh(serial: Int) {
        guard let identifier = appRefresh.pending(serial: serial) else { return }   // replaced or already run
        if let reason = appRefreshHeldBack {
            note("app-refresh task \"\(identifier)\" held back: \(reason)")
            queue.schedule(.appRefreshDue(serial: serial), at: now + max(appRefreshDelay(), constants.appRefreshSeconds))
            return
        }
        appRefresh.start(serial: serial)
        stats.appRefreshRuns += 1
        switch process.state {
        case .notRunning:
            launch(.background)
        case .suspended:
            process.wake()
            note("woken in the background for an app-refresh task")
        default:
            break
        }
        process.startBackgroundWindow(at: now, seconds: constants.appRefreshSeconds, forLocation: false)
        queue.schedule(.appRefreshExpiry(serial: serial), at: now + constants.appRefreshSeconds)
        emit(.appRefresh(identifier: identifier))
    }

    mutating func completeAppRefresh(_ identifier: String, success: Bool) {
        guard let running = appRefresh.running, running.identifier == identifier else {
            note("completion of app-refresh task \"\(identifier)\" ignored: not running")
            return
        }
        appRefresh.finish()
        note("app-refresh task \"\(identifier)\" completed" + (success ? "" : " (unsuccessful)"))
        process.endWakeWindows()
        schedule(.suspendCheck(process.generation), in: 0)
    }

    mutating func expireAppRefresh(serial: Int) {
        guard let running = appRefresh.running, running.serial == serial, process.isRunning else { return }
        stats.appRefreshExpired += 1
        note("app-refresh task \"\(running.identifier)\" ran out of time")
        emit(.appRefreshExpired(identifier: running.identifier))
        queue.schedule(.appRefreshEnforce(serial: serial), at: now + constants.backgroundTaskGraceSeconds)
    }

    mutating func enforceAppRefreshExpiry(serial: Int) {
        guard let running = appRefresh.running, running.serial == serial else { return }
        appRefresh.finish()
        guard process.isRunning else { return }
        terminate(forceQuit: false, reason: "terminated by the system: app-refresh task not completed in time")
    }
}

/// The app-refresh scheduler's state: one pending request per identifier, and the task running now.
struct AppRefreshScheduler: Sendable {
    struct Running: Sendable {
        var identifier: String
        var serial: Int
    }

    private var pendingBySerial: [Int: (identifier: String, earliest: Double)] = [:]
    private var serialByIdentifier: [String: Int] = [:]
    private var nextSerial = 1
    private(set) var running: Running?

    /// Records a request, replacing a pending one with the same identifier; returns its serial.
    mutating func submit(_ identifier: String, earliest: Double) -> Int {
        if let old = serialByIdentifier[identifier] { pendingBySerial[old] = nil }
        let serial = nextSerial
        nextSerial += 1
        pendingBySerial[serial] = (identifier, earliest)
        serialByIdentifier[identifier] = serial
        return serial
    }

    /// The identifier of the pending request with `serial`, if it is still pending.
    func pending(serial: Int) -> String? { pendingBySerial[serial]?.identifier }

    /// The request with `serial` runs now.
    mutating func start(serial: Int) {
        guard let request = pendingBySerial.removeValue(forKey: serial) else { return }
        if serialByIdentifier[request.identifier] == serial { serialByIdentifier[request.identifier] = nil }
        running = Running(identifier: request.identifier, serial: serial)
    }

    /// The running task ended (completed, or the app was terminated).
    mutating func finish() { running = nil }
}
