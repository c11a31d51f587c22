import Foundation
import WaymarkEngine
import WaymarkGeo

/// Per-process state; reset on each launch.
struct ProcessState: Sendable {
    var state: AppState = .notRunning
    var generation = 0
    var managerCreated = false
    var pendingManagerEvents: [DeviceEvent] = []
    var pendingAuthorizationCallback = false
    var backgroundSince: Double?
    var backgroundGeneration = 0
    var tasks: [Int] = []
    /// End of a background launch or wake-up window (location event or silent push).
    var wakeUntil: Double?
    /// End of a window in which standard updates may be started from the background (location events only).
    var locationWakeUntil: Double?
    var motionUpdates = false
    /// A `CLBackgroundActivitySession` is held (iOS 17); it ends with the process.
    var backgroundActivitySession = false
    /// The classifier update last delivered to this process (``MotionClassifier/serial``).
    var deliveredMotionSerial = 0
    /// Permission requests that collided with a visible prompt, replayed in order once it is
    /// answered (``PromptCollisionOutcome/shownAfterFirst``; issue #14).
    var queuedPromptRequests: [DeviceCommand] = []
    /// A silent push launched or woke this process and the app has not been in the foreground since:
    /// region entries are held (``PlatformConstants/regionEnterHeldAfterPushLaunch``; issue #14).
    var pushLaunchedNotForeground = false
    var isRunning: Bool { state == .foreground || state == .background }
}
