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
    var locationWakeUntil: Double?
    var motionUpdates = false
    var inFlightUploads: [Int] = []
    var cancelledUploads: [Int] = []
    var isRunning: Bool { state == .foreground || state == .background }
}
