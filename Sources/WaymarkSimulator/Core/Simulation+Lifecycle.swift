import Foundation
import WaymarkEngine

extension Simulation {
    mutating func setUpDevice() {
        let device = scenario.device ?? DeviceSetup()
        permissions = PermissionCentre(device: device)
        if device.install == .existing {
            for region in device.monitoredRegions ?? [] { addRegion(region, persisted: true) }
            if device.significantChangesActive == true { locationService.resumeSignificantChanges() }
        }
    }

    var usageDescriptions: [DeviceSetup.UsageDescription] {
        scenario.device?.usageDescriptions ?? DeviceSetup.UsageDescription.allCases
    }

    var backgroundModes: [DeviceSetup.BackgroundMode] { scenario.device?.backgroundModes ?? [] }

    mutating func performUserAction(_ action: UserAction) {
        switch action.do {
        case .open: open()
        case .background: enterBackground()
        case .forceQuit: terminate(forceQuit: true, reason: "force-quit by the user")
        case .systemTerminate: terminate(forceQuit: false, reason: "terminated by the system")
        case .settings: changeSettings(action)
        case .silentPush: silentPush()
        }
    }

    mutating func open() {
        switch process.state {
        case .notRunning:
            process.openedByUser()
            launch(.user)
        case .background, .suspended:
            let (wasSuspended, authorizationCallback) = process.comeToForeground()
            if wasSuspended { note("resumed") }
            emit(.willEnterForeground)
            if authorizationCallback {
                emit(.authorizationChanged(permissions.authorization))
            }
            if wasSuspended { deliverOnResume() }
        case .foreground:
            break
        }
    }

    /// Whether the app uses the UIScene life cycle (``DeviceSetup/sceneLifecycle``; true when absent).
    var sceneLifecycle: Bool { scenario.device?.sceneLifecycle ?? true }

    /// The launch reason the app can see for a launch the system made for `reason`.
    ///
    /// Under the UIScene life cycle `launchOptions` "is `nil`" (Apple,
    /// `application(_:didFinishLaunchingWithOptions:)`): the location key is never delivered
    /// (Apple, `UIApplication.LaunchOptionsKey.location`, deprecated in iOS 26 [S14]; field,
    /// intuit/LocationManager #119 on iOS 17.4 [S15]), nor the remote-notification key. The app
    /// sees a background launch with no key — ``LaunchReason/background``, from
    /// `applicationState == .background` — and learns the cause from the first Core Location event
    /// or the push callback. A user launch is unaffected.
    func visibleLaunchReason(_ reason: LaunchReason) -> LaunchReason {
        guard sceneLifecycle else { return reason }
        switch reason {
        case .user, .background: return reason
        case .location, .remoteNotification: return .background
        }
    }

    /// A new process. ``SimulationStats/launches`` counts the system's reason; the app's
    /// `.launched` event carries what it can see (``visibleLaunchReason(_:)``).
    mutating func launch(_ reason: LaunchReason) {
        process.launch(generation: stats.launches.values.reduce(0, +) + 1, inForeground: reason == .user)
        stats.launches[reason.rawValue, default: 0] += 1
        locationService.endProcess()
        lapseTemporaryGrantsAtLaunch()   // Allow Once, temporary full accuracy (Simulation+Authorization)
        note("launched (\(reason.rawValue))")
        if reason != .user { startBackgroundWindow(forLocation: reason == .location) }
        let visible = visibleLaunchReason(reason)
        if visible != reason { note("launch options not delivered (UIScene life cycle): the app sees a \(visible.rawValue) launch") }
        app?.willLaunch(monitoredRegions: regions.monitors.map(\.region))
        for event in launchEvents(system: reason, keyed: visible) { emit(event) }
    }

    /// Starts a background window for a launch or wake-up: ~10 s for a location event (~30 s with a
    /// task), in which even a when-in-use app may start standard updates; ~30 s for a silent push,
    /// in which only an Always app may.
    mutating func startBackgroundWindow(forLocation: Bool) {
        let seconds = forLocation ? constants.locationLaunchSeconds : constants.remoteNotificationSeconds
        process.startBackgroundWindow(at: now, seconds: seconds, forLocation: forLocation)
        schedule(.suspendCheck(process.generation), in: seconds)
    }

    mutating func enterBackground() {
        guard process.state == .foreground else { return }
        process.enterBackground(at: now)
        emit(.didEnterBackground)
        if !process.tasks.isEmpty {
            schedule(.taskExpiry(process.backgroundGeneration), in: constants.backgroundTaskSeconds)
        }
        schedule(.suspendCheck(process.generation), in: constants.backgroundSuspendSeconds)
    }

    /// True while something keeps a background app running.
    var keepsRunningInBackground: Bool {
        if backgroundLocationActive { return true }
        if !process.tasks.isEmpty { return true }
        if let until = process.wakeUntil, now < until { return true }
        return false
    }

    mutating func suspendIfIdle(generation: Int) {
        guard generation == process.generation, process.state == .background, !keepsRunningInBackground else { return }
        process.suspend()
        stats.suspensions += 1
        note("suspended")
        if let s = standard, !s.paused, !s.waitingForAuthorization {
            note("standard updates stopped with the suspension (no background location)")
        }
    }

    /// Wakes a suspended app in the background for a location event or (not `forLocation`) a silent push.
    mutating func wake(forLocation: Bool = true) {
        process.wake()
        note(forLocation ? "woken in the background" : "woken in the background by a silent push")
        startBackgroundWindow(forLocation: forLocation)
        deliverOnResume()
    }

    /// Ends the process. Fixes the system held for it are lost (see `Simulation+HeldFixes`).
    mutating func terminate(forceQuit: Bool, reason: String) {
        let wasRunning = process.state != .notRunning
        process.terminate(forceQuit: forceQuit)
        appRefresh.finish()   // a running app-refresh task ends with its process
        loseHeldFixes()
        guard wasRunning else { return }
        locationService.endProcess()
        outbox = []
        stats.terminations += 1
        note(reason)
    }

    /// A silent (content-available) push: launches a terminated app or wakes a suspended one in the
    /// background for ``PlatformConstants/remoteNotificationSeconds``, but not an app the user
    /// force-quit [S18]. In that time an Always app may start standard updates, a when-in-use app
    /// may not (``mayStartStandardUpdatesInBackground``).
    mutating func silentPush() {
        switch process.state {
        case .notRunning where process.forceQuitBlocked: note("silent push not delivered: app force-quit")
        case .notRunning: launch(.remoteNotification)
        case .suspended: wake(forLocation: false)
        default: break
        }
    }

    mutating func beginBackgroundTask(_ id: Int) {
        guard process.beginTask(id) else { return }
        if process.state == .background, process.tasks.count == 1 {
            let since = process.backgroundSince ?? now
            queue.schedule(.taskExpiry(process.backgroundGeneration), at: max(now, since + constants.backgroundTaskSeconds))
        }
    }

    mutating func endBackgroundTask(_ id: Int) {
        process.endTask(id)
        if process.state == .background, process.tasks.isEmpty {
            schedule(.suspendCheck(process.generation), in: 0)
        }
    }

    mutating func expireTasks(generation: Int) {
        guard generation == process.backgroundGeneration, process.state == .background,
              !process.tasks.isEmpty, !backgroundLocationActive else { return }
        note("background time expired")
        for id in process.tasks.sorted() { emit(.backgroundTaskExpired(id: id)) }
        schedule(.taskEnforce(generation), in: constants.backgroundTaskGraceSeconds)
    }

    mutating func enforceTaskExpiry(generation: Int) {
        guard generation == process.backgroundGeneration, process.state == .background else { return }
        if process.tasks.isEmpty {
            process.endWakeWindows()
            suspendIfIdle(generation: process.generation)
        } else {
            terminate(forceQuit: false, reason: "terminated by the system: background task not ended in time")
        }
    }
}
