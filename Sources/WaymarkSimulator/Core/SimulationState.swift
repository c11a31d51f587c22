import Foundation
import WaymarkEngine
import WaymarkGeo

/// What the simulated app process is doing. `suspended` is invisible to the app itself.
public enum AppState: String, Hashable, Sendable, Codable, CaseIterable {
    case notRunning, foreground, background, suspended
}

/// Counters a test or a report reads after a run.
public struct SimulationStats: Hashable, Sendable, Codable {
    /// System prompts shown.
    public var promptsShown = 0
    /// Permission requests made while another prompt was on screen (lost).
    public var promptCollisions = 0
    /// Permission requests that showed nothing because a usage description is missing.
    public var missingUsageDescriptions = 0
    /// Location deliveries (callbacks) and the fixes they carried.
    public var locationDeliveries = 0, fixesDelivered = 0
    /// Fixes measured but not delivered because of the distance filter.
    public var fixesSuppressedByDistanceFilter = 0
    /// Standard-update starts ignored because the app was in the background.
    public var startsIgnoredInBackground = 0
    /// Process launches by reason.
    public var launches: [String: Int] = [:]
    /// Suspensions and terminations (system and force-quit).
    public var suspensions = 0, terminations = 0
    /// Uploads sent.
    public var uploads = 0
}

/// Device-level permission state (persists across launches).
struct Permissions: Hashable, Sendable {
    var location: LocationAuthorizationStatus = .notDetermined
    var precise = true
    var servicesEnabled = true
    var allowOnce = false
    var alwaysUpgradeShown = false
    var notifications: DeviceSetup.PermissionSetting = .notDetermined
    var motion: DeviceSetup.PermissionSetting = .notDetermined

    var authorization: LocationAuthorization {
        guard servicesEnabled else { return LocationAuthorization(status: .denied, accuracy: precise ? .full : .reduced, servicesEnabled: false) }
        return LocationAuthorization(status: location, accuracy: precise ? .full : .reduced)
    }

    var locationAuthorized: Bool {
        servicesEnabled && (location == .authorizedWhenInUse || location == .authorizedAlways)
    }

    var always: Bool { servicesEnabled && location == .authorizedAlways }

    static func rank(_ s: LocationAuthorizationStatus) -> Int {
        switch s {
        case .notDetermined, .restricted, .denied: 0
        case .authorizedWhenInUse: 1
        case .authorizedAlways: 2
        }
    }
}

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

/// Standard location updates of the current process.
struct StandardUpdates: Sendable {
    var config: LocationConfiguration
    var waitingForAuthorization: Bool
    var wasProducing = false
    var everAcquired = false
    var receiverStartedAt = 0.0
    var timeToFix = 0.0
    var acquired = false
    var quality = 0.5
    var lastFixTime = -Double.infinity
    var paused = false
    var stillSince: Double?
    var lastDelivered: Coordinate?
}

/// A pending one-shot request.
struct OneShot: Sendable {
    var id: Int
    var accuracy: DesiredAccuracy
    var waitingForAuthorization: Bool
    var accurate = false
}

/// A monitored region and the system's view of the device relative to it.
struct RegionMonitor: Sendable {
    var region: MonitoredRegion
    var effectiveRadius: Double
    var state: RegionState
    var candidate: RegionState?
    var candidateSince = 0.0
    var serial: Int
}

/// Significant-change monitoring (persists across launches).
struct SignificantChanges: Sendable {
    var lastPosition: Coordinate?
    var lastTime = -Double.infinity
}

/// The positioning source a request uses.
enum SourceClass: String, Sendable, CaseIterable {
    case gnss, wifi, cell, reduced

    init(_ accuracy: DesiredAccuracy, precise: Bool) {
        if !precise { self = .reduced; return }
        switch accuracy {
        case .best, .bestForNavigation, .nearestTenMeters: self = .gnss
        case .hundredMeters: self = .wifi
        case .kilometer, .threeKilometers: self = .cell
        case .reduced: self = .reduced
        }
    }
}

/// Scheduled simulator actions.
enum SimulationAction: Sendable {
    case tick
    case user(Int)
    case promptAnswered(Int)
    case suspendCheck(Int)
    case taskExpiry(Int)
    case taskEnforce(Int)
    case oneShotDue(Int)
    case regionEvent(identifier: String, enter: Bool, serial: Int)
    case remoteRegistration(Int)
    case uploadDone(id: Int, result: UploadResult, generation: Int)
    case motionScript(Int)
}
