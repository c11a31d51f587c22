import Foundation
import WaymarkGeo

/// Turns what the engine handles and decides into ``FieldLogEntry``s: a pure value the ``Engine``
/// keeps (and a simulated app, which runs an ``EngineCore`` without the actor).
///
/// Call ``event(_:at:)`` with each device event before the core handles it, ``step(_:core:at:)``
/// with each step's output after it, and ``backgroundLocation(available:at:)`` with each reading
/// of ``Device/backgroundAppRefreshAvailable()``. It remembers what it last reported (the ride
/// state, automatic tracking, the authorization, the background reading) so that a change is
/// written once. Entries below ``level`` are not built.
///
/// ```swift
/// var notes = FieldLogNotes(core: core)
/// log.record(notes.event(event, at: time))
/// let out = core.handle(event, at: time)
/// log.record(notes.step(out, core: core, at: time))
/// ```
///
/// A `Sendable` value type.
public struct FieldLogNotes: Sendable {
    /// The least level of the entries built.
    public var level: FieldLogLevel
    var rideState: RideState
    var automatic: AutomaticTracking.State
    var authorization: LocationAuthorization?
    var backgroundLocation: Bool??
    /// The launch time of the process whose launch was last written.
    var loggedLaunch: Date?

    /// Starts from `core`'s ride and automatic-tracking state (a process restored from its stores).
    public init(level: FieldLogLevel = .info, core: EngineCore) {
        self.level = level
        rideState = core.rideTracker.state
        automatic = core.rideTracker.automaticState
    }

    func enabled(_ wanted: FieldLogLevel) -> Bool { wanted >= level }

    /// Entries for a device event, before the core handles it: lifecycle, network, background
    /// time, location pauses and errors, region failures and OS region events, significant
    /// changes and visits; every fix delivery and motion reading at debug.
    public mutating func event(_ event: DeviceEvent, at time: Date) -> [FieldLogEntry] {
        var notes = Notes(level: level, time: time)
        switch event {
        case .launched:
            authorization = nil     // a new process: its first callback is reported again
        case .didEnterBackground:
            notes.add(.info, .system, "app entered the background")
        case .willEnterForeground:
            notes.add(.info, .system, "app returns to the foreground")
        case .backgroundTaskExpired(let id):
            notes.add(.notice, .system, "background task \(id) expired: iOS gave no more background time")
        case .networkReachability(let online):
            notes.add(.info, .system, online ? "network reachable" : "network unreachable")
        case .locationUpdatesPaused:
            notes.add(.notice, .location, "iOS paused location updates (automatic pause: it judged the device still)")
        case .locationUpdatesResumed:
            notes.add(.info, .location, "iOS resumed location updates")
        case .locationError(let error):
            switch error {
            case .denied: notes.add(.warning, .location, "location error: denied (access refused or Location Services off)")
            case .locationUnknown: notes.add(.debug, .location, "location error: no fix right now (the service keeps trying)")
            }
        case .regionMonitoringFailed(let id, let reason):
            notes.add(.warning, .geofence, "region monitoring failed for '\(id)': \(Self.describe(reason))")
        case .regionEntered(let id):
            notes.add(.info, .geofence, "iOS reports region '\(id)' entered")
        case .regionExited(let id):
            notes.add(.info, .geofence, "iOS reports region '\(id)' exited")
        case .regionState(let id, let state):
            notes.add(.debug, .geofence, "iOS reports region '\(id)' state \(state.rawValue)")
        case .monitorEvent(let id, let state):
            notes.add(.info, .geofence, "iOS monitor condition '\(id)': \(state.rawValue)")
        case .significantChange(let fix):
            notes.add(.info, .location, "significant location change (\(Self.describe(fix, at: time)))")
        case .visit(let visit):
            let kind = visit.departure == nil ? "arrival" : "departure"
            notes.add(.info, .location, "visit \(kind) reported (±\(Int(visit.horizontalAccuracy)) m)")
        case .backgroundActivitySessionRefused:
            notes.add(.warning, .location, "iOS refused a background activity session (app not in use): "
                + "updates stop in the background until the app is opened")
        case .remoteRegistration(.failed(let reason)):
            notes.add(.warning, .permission, "remote-notification registration failed: \(reason)")
        case .locations(let fixes):
            if let last = fixes.last, notes.wants(.debug) {
                notes.add(.debug, .location, "\(fixes.count) fix\(fixes.count == 1 ? "" : "es") delivered, newest \(Self.describe(last, at: time))")
            }
        case .motionActivity(let activity):
            notes.add(.debug, .location, "motion: \(activity.kind.rawValue) (\(activity.confidence.rawValue) confidence)")
        case .liveUpdate(let update):
            if notes.wants(.debug) { notes.add(.debug, .location, "live update: \(update)") }
        case .appRefresh(let id):
            notes.add(.info, .system, "iOS runs the app-refresh task '\(id)' (heartbeat wake)")
        case .appRefreshExpired(let id):
            notes.add(.notice, .system, "the app-refresh task '\(id)' ran out of time")
        case .appRefreshRefused(let id, let reason):
            notes.add(.warning, .system, "iOS refused to schedule the app-refresh task '\(id)': \(reason.rawValue)")
        case .authorizationChanged, .motionAuthorization, .notificationAuthorization, .remoteRegistration:
            break   // reported with the sequencer's outcome or authorization update
        }
        return notes.entries
    }

    /// Entries for a background-location reading (``Device/backgroundAppRefreshAvailable()``, read
    /// when the engine starts, at each launch and each return to the foreground), when it changed.
    public mutating func backgroundLocation(available: Bool?, at time: Date) -> [FieldLogEntry] {
        guard backgroundLocation != .some(available) else { return [] }
        let first = backgroundLocation == nil
        backgroundLocation = .some(available)
        var notes = Notes(level: level, time: time)
        let change = first ? "" : "changed: "
        switch available {
        case true?:
            notes.add(.info, .system, "\(change)Background App Refresh on and Low Power Mode off: iOS may run the app "
                + "in the background for location events")
        case false?:
            notes.add(.warning, .system, "\(change)Background App Refresh is off or Low Power Mode is on: iOS neither "
                + "relaunches nor wakes the app for regions and significant changes, and region monitoring fails")
        case nil:
            notes.add(.debug, .system, "the device cannot tell Background App Refresh and Low Power Mode")
        }
        return notes.entries
    }

    /// Entries for the configuration problems the engine published (``EngineDiagnostics/problems``),
    /// one per problem.
    public func problems(_ problems: [ConfigurationProblem], at time: Date) -> [FieldLogEntry] {
        var notes = Notes(level: level, time: time)
        if problems.isEmpty { notes.add(.info, .system, "no configuration problems") }
        for problem in problems { notes.add(.warning, .system, "configuration problem: \(problem.message)") }
        return notes.entries
    }

    /// An entry for the app's request for permissions.
    public func appAsked(for requests: [PermissionRequest], at time: Date) -> [FieldLogEntry] {
        appCall("asked for permissions: \(requests.map(Self.describe).joined(separator: ", "))", category: .permission, at: time)
    }

    /// An entry for the rider's tap on the ride controls.
    public func appRide(_ command: RideCommand, at time: Date) -> [FieldLogEntry] {
        let tap = switch command {
        case .start(let rideID): "start ride '\(rideID)'"
        case .pause: "pause the ride"
        case .resume: "resume the ride"
        case .stop: "stop the ride"
        }
        return appCall(tap, category: .ride, at: time)
    }

    /// An entry for something the app asked of the engine (a ride tap, permissions, fences), at
    /// `level` (info by default).
    public func appCall(_ message: @autoclosure () -> String, category: FieldLogCategory, level wanted: FieldLogLevel = .info,
                        at time: Date) -> [FieldLogEntry] {
        var notes = Notes(level: level, time: time)
        notes.add(wanted, category, "app: \(message())")
        return notes.entries
    }
}

/// The entries of one call, built only at or above the level.
struct Notes {
    let level: FieldLogLevel
    let time: Date
    var entries: [FieldLogEntry] = []

    func wants(_ wanted: FieldLogLevel) -> Bool { wanted >= level }

    mutating func add(_ wanted: FieldLogLevel, _ category: FieldLogCategory, _ message: @autoclosure () -> String) {
        guard wants(wanted) else { return }
        entries.append(FieldLogEntry(time: time, level: wanted, category: category, message: message()))
    }
}
