import Foundation
import WaymarkEngine
import WaymarkGeo

/// Standard location updates of the current process.
struct StandardUpdates: Sendable {
    var config: LocationConfiguration
    var waitingForAuthorization: Bool
    var wasProducing = false
    var everAcquired = false
    var receiverStartedAt = 0.0
    var timeToFix = 0.0
    var acquired = false
    /// The desired accuracy last selected a source without GNSS, so the receiver is off and must
    /// acquire again (``PlatformConstants/gnssReacquireSeconds`` once it has had a fix) when GNSS is
    /// selected again.
    var gnssOff = false
    /// The receiver is restarting after a spell off, having tracked before: an outage now is a
    /// loss of signal the app hears about, as when an acquired receiver loses it.
    var hotStarting = false
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
    /// Virtual time from which a state request is answered with the state rather than `unknown`.
    var determinedAt: Double
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
