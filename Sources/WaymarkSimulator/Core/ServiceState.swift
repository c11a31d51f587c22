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
    /// The last fix of the GNSS-outage fall-back (``PlatformConstants/gnssOutageFallsBackToNetwork``; issue #14).
    var lastOutageFallbackTime = -Double.infinity
    var paused = false
    var stillSince: Double?
    var lastDelivered: Coordinate?
    /// Started as `CLLocationUpdate.liveUpdates` (iOS 17): delivered as live updates, paused while
    /// the device is stationary and resumed by iOS itself when it moves.
    var live = false
}

/// A pending one-shot request.
struct OneShot: Sendable {
    var id: Int
    var accuracy: DesiredAccuracy
    var waitingForAuthorization: Bool
    var accurate = false
}

/// Significant-change monitoring (persists across launches).
struct SignificantChanges: Sendable {
    /// Where the last movement-triggered event fired (the serving cell); idle wakes keep it.
    var lastPosition: Coordinate?
    /// The last event, movement-triggered or an idle wake.
    var lastTime = -Double.infinity
    /// Movement from ``lastPosition`` that fires the next event, drawn per event (issue #14, C1).
    var threshold: Double?
}

/// Visit monitoring (persists across launches, like significant changes; issue #14, C5) [S36].
struct VisitMonitoring: Sendable {
    /// A place where the device stays.
    struct Place: Sendable {
        var center: Coordinate
        var reported: Coordinate
        var accuracy: Double
        /// Virtual seconds of the arrival; nil when the stay began before monitoring started.
        var arrival: Double?
    }

    /// A visit waiting for its (late) delivery.
    struct Report: Sendable {
        var due: Double
        var visit: Visit
    }

    var startedAt: Double
    /// Where the device came to rest, and since when (not yet a visit).
    var candidate: Coordinate?
    var candidateSince = 0.0
    /// The candidate is where the device already was when monitoring started (arrival unknown).
    var candidateAtStart = true
    /// The visit in progress.
    var stay: Place?
    var reports: [Report] = []
}

/// The positioning source a request uses.
enum SourceClass: String, Sendable, CaseIterable {
    case gnss, wifi, cell, reduced

    init(_ accuracy: DesiredAccuracy, precise: Bool) {
        if !precise { self = .reduced; return }
        switch accuracy {
        case .best, .bestForNavigation, .nearestTenMeters: self = .gnss
        case .hundredMeters: self = .wifi
        case .kilometer, .threeKilometers: self = .cell   // no GNSS: Wi-Fi where available, else cell (issue #14, [S37])
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
    case motionScript(Int)
    case appRefreshDue(serial: Int)
    case appRefreshExpiry(serial: Int)
    case appRefreshEnforce(serial: Int)
}
