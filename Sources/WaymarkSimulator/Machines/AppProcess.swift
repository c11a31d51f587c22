import Foundation
import WaymarkEngine
import WaymarkGeo

/// The app's process as iOS runs it (PLATFORM.md §3–§4), owned by ``Simulation``: its lifecycle
/// state, background windows and tasks, and what it has been told. Everything but the force-quit
/// record is per process and starts afresh at each launch.
///
/// It owns the transitions (launch, foreground, background, suspension, wake, termination); the
/// simulation decides when they happen (suspension checks, task expiry) and what the app hears.
struct AppProcess: Sendable {
    private(set) var state: AppState = .notRunning
    /// Counts launches: scheduled checks carry it, so one for an earlier process is ignored.
    private(set) var generation = 0
    private(set) var managerCreated = false
    /// Location-manager events that came before the app created its manager.
    private(set) var pendingManagerEvents: [DeviceEvent] = []
    /// An authorization change to report when the app next comes to the foreground.
    private(set) var pendingAuthorizationCallback = false
    private(set) var backgroundSince: Double?
    /// Counts entries into the background: scheduled task expiries carry it.
    private(set) var backgroundGeneration = 0
    /// Background task identifiers, in the order begun.
    private(set) var tasks: [Int] = []
    /// End of a background launch or wake-up window (location event or silent push).
    private(set) var wakeUntil: Double?
    /// End of a window in which standard updates may be started from the background (location events only).
    private(set) var locationWakeUntil: Double?
    private(set) var motionUpdates = false
    /// A `CLBackgroundActivitySession` is held (iOS 17); it ends with the process.
    private(set) var backgroundActivitySession = false
    /// An explicit `CLServiceSession` is held (iOS 18); it ends with the process.
    private(set) var serviceSession = false
    /// Monitor events iOS 18 holds back until the app holds an explicit service session.
    private(set) var heldForServiceSession: [DeviceEvent] = []
    /// The classifier update last delivered to this process (``MotionClassifier/serial``).
    private(set) var deliveredMotionSerial = 0
    /// Permission requests that collided with a visible prompt, replayed in order once it is
    /// answered (``PromptCollisionOutcome/shownAfterFirst``; issue #14).
    private(set) var queuedPromptRequests: [DeviceCommand] = []
    /// A silent push launched or woke this process and the app has not been in the foreground since:
    /// region entries are held (``PlatformConstants/regionEnterHeldAfterPushLaunch``; issue #14).
    private(set) var pushLaunchedNotForeground = false

    /// The user force-quit the app and has not opened it since: it outlives the process [S18].
    private(set) var forceQuitBlocked = false
    /// Where the device was when the user force-quit the app (set on the next tick; see
    /// `Simulation+SignificantChanges`).
    private(set) var forceQuitPosition: Coordinate?

    var isRunning: Bool { state == .foreground || state == .background }

    // MARK: lifecycle

    /// A new process, launched into the foreground or the background; keeps the force-quit record.
    mutating func launch(generation: Int, inForeground: Bool) {
        endProcess()
        self.generation = generation
        state = inForeground ? .foreground : .background
    }

    /// The process ends (the state becomes `notRunning`); a force-quit is remembered until the user
    /// opens the app.
    mutating func terminate(forceQuit: Bool) {
        if forceQuit { forceQuitBlocked = true }
        endProcess()
    }

    /// The user opens the app: a force-quit no longer blocks relaunches.
    mutating func openedByUser() {
        forceQuitBlocked = false
    }

    /// Follows the device while the app stays force-quit: where it was at the force-quit, nil otherwise.
    mutating func trackForceQuitPosition(_ here: Coordinate) {
        if !forceQuitBlocked {
            forceQuitPosition = nil
        } else if forceQuitPosition == nil {
            forceQuitPosition = here
        }
    }

    /// A background or suspended process comes to the foreground. Returns whether it was suspended
    /// and whether an authorization change waits to be reported (which this takes).
    mutating func comeToForeground() -> (wasSuspended: Bool, authorizationCallback: Bool) {
        let result = (state == .suspended, pendingAuthorizationCallback)
        state = .foreground
        backgroundSince = nil
        backgroundGeneration += 1
        endWakeWindows()
        pendingAuthorizationCallback = false
        return result
    }

    /// A foreground process moves to the background at `now`.
    mutating func enterBackground(at now: Double) {
        state = .background
        startBackgroundSpell(at: now)
    }

    /// A suspended process runs again in the background (woken for an event).
    mutating func wake() {
        state = .background
    }

    /// A background launch or wake-up window of `seconds` from `now`; `forLocation` windows also let
    /// standard updates start from the background.
    mutating func startBackgroundWindow(at now: Double, seconds: Double, forLocation: Bool) {
        startBackgroundSpell(at: now)
        wakeUntil = now + seconds
        locationWakeUntil = forLocation ? now + seconds : nil
    }

    /// The process is suspended: its wake-up windows end.
    mutating func suspend() {
        state = .suspended
        endWakeWindows()
    }

    /// Ends the background launch or wake-up windows.
    mutating func endWakeWindows() {
        wakeUntil = nil
        locationWakeUntil = nil
    }

    /// Remembers, every tick, whether the process is a push-launched one that has not been in the
    /// foreground since (`inPushWindow`: a push window is open now); the foreground clears it.
    mutating func trackPushLaunch(inPushWindow: Bool) {
        if state == .foreground {
            pushLaunchedNotForeground = false
        } else if inPushWindow {
            pushLaunchedNotForeground = true
        }
    }

    // MARK: what the app holds

    /// `beginBackgroundTask`; false if a task with `id` is already running.
    mutating func beginTask(_ id: Int) -> Bool {
        guard !tasks.contains(id) else { return false }
        tasks.append(id)
        return true
    }

    /// `endBackgroundTask`.
    mutating func endTask(_ id: Int) {
        tasks.removeAll { $0 == id }
    }

    /// The app creates its location manager; returns the events that waited for it.
    mutating func createLocationManager() -> [DeviceEvent] {
        managerCreated = true
        defer { pendingManagerEvents = [] }
        return pendingManagerEvents
    }

    /// Holds a location-manager event until the app creates its manager.
    mutating func holdUntilManagerCreated(_ event: DeviceEvent) {
        pendingManagerEvents.append(event)
    }

    /// An authorization change the app must hear when it next comes to the foreground (only an app
    /// with a location manager hears it).
    mutating func deferAuthorizationCallback() {
        pendingAuthorizationCallback = managerCreated
    }

    /// Queues a permission request that collided with a visible prompt.
    mutating func queuePromptRequest(_ request: DeviceCommand) {
        queuedPromptRequests.append(request)
    }

    /// Takes the oldest queued permission request.
    mutating func nextQueuedPromptRequest() -> DeviceCommand? {
        queuedPromptRequests.isEmpty ? nil : queuedPromptRequests.removeFirst()
    }

    /// Motion activity updates on or off.
    mutating func setMotionUpdates(_ on: Bool) {
        motionUpdates = on
    }

    /// Records the classification delivered to this process.
    mutating func motionDelivered(serial: Int) {
        deliveredMotionSerial = serial
    }

    /// A `CLBackgroundActivitySession` begun or ended (iOS 17).
    mutating func setBackgroundActivitySession(_ held: Bool) {
        backgroundActivitySession = held
    }

    /// An explicit `CLServiceSession` begun or ended (iOS 18); a begin returns the monitor events
    /// held back until now, in order.
    mutating func setServiceSession(_ held: Bool) -> [DeviceEvent] {
        serviceSession = held
        guard held else { return [] }
        defer { heldForServiceSession = [] }
        return heldForServiceSession
    }

    /// Holds a monitor event back until the app holds an explicit service session.
    mutating func holdForServiceSession(_ event: DeviceEvent) {
        heldForServiceSession.append(event)
    }

    private mutating func startBackgroundSpell(at now: Double) {
        backgroundSince = now
        backgroundGeneration += 1
    }

    /// Resets every per-process field, keeping the force-quit record.
    private mutating func endProcess() {
        let blocked = forceQuitBlocked, position = forceQuitPosition
        self = AppProcess()
        forceQuitBlocked = blocked
        forceQuitPosition = position
    }
}
