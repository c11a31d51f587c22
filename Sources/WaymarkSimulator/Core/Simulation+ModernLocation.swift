import Foundation
import WaymarkEngine
import WaymarkGeo

/// The iOS 17 location APIs (PLATFORM.md §9; Apple, WWDC23 10180 "Discover streamlined location
/// updates"; `CLBackgroundActivitySession`, `CLMonitor` [S43]).
///
/// **Live updates** (`CLLocationUpdate.liveUpdates`) run on the standard-update machinery at best
/// accuracy (the API has no desired accuracy) and are delivered as ``DeviceEvent/liveUpdate(_:)``.
/// After ``PlatformConstants/liveStationarySeconds`` still they report `isStationary` and pause;
/// unlike legacy updates they **resume by themselves** when the device moves, waking a suspended
/// app that may receive them. Iterating them while authorization is notDetermined raises the
/// when-in-use prompt (an implicit session, §9). They continue in the background only with the
/// `location` background mode and either Always or a background activity session.
///
/// **Background activity sessions** keep a when-in-use app "in use" in the background; one must
/// be created while the app is in use (a refused start is noted), and it ends with the process.
///
/// **Monitor conditions** (`CLMonitor`) share the region machinery and its 20 slots: the same
/// crossing distances, dwell, latency and misses; each change is one
/// ``DeviceEvent/monitorEvent(identifier:state:)`` (no separate state callback), and opening the
/// monitor re-emits every condition's current state. A refused condition is reported as a
/// monitoring failure with its reason (CLMonitor's `unmonitored` event; iOS 18 flags the full
/// pool as `conditionLimitExceeded`).
///
/// **Service sessions** (`CLServiceSession`, iOS 18) are modelled as their prompt: a when-in-use
/// or Always goal while authorization is notDetermined raises the when-in-use prompt. Opening the
/// monitor (iterating its events) creates an **implicit** session that prompts the same way
/// (``PlatformConstants/implicitServiceSessions``, the iOS 18 profile), unless the app declares
/// `NSLocationRequireExplicitServiceSession` (``DeviceSetup/requiresExplicitServiceSession``).
/// With the key, iOS 18 withholds live updates and monitor events from an app that holds no explicit
/// session: the live updates carry the `serviceSessionRequired` diagnostic instead of a location
/// (dropped here, counted in ``SimulationStats/liveUpdatesWithheldForServiceSession``), and monitor
/// events wait until a session is begun (Apple, `CLServiceSession`, `NSLocationRequireExplicitServiceSession`;
/// `CLLocationUpdate.serviceSessionRequired`; WWDC24 10212). Waymark's adapter holds one from the
/// first determined authorization on, in every process.
extension Simulation {
    /// Whether live updates may continue while the app is in the background.
    var liveBackgroundAllowed: Bool {
        backgroundModes.contains(.location) && permissions.locationAuthorized
            && (permissions.always || process.backgroundActivitySession)
    }

    mutating func startLiveUpdates(_ configuration: LiveUpdateConfiguration) {
        guard permissions.servicesEnabled, permissions.location != .denied, permissions.location != .restricted else {
            note("live updates started without authorization: nothing is delivered")
            return
        }
        if process.state == .background, !mayStartStandardUpdatesInBackground, !process.backgroundActivitySession {
            stats.startsIgnoredInBackground += 1
            note("live updates not started: when-in-use app not in use (background, no session, no location launch)")
            return
        }
        let activity: ActivityType = switch configuration {
        case .default: .other
        case .automotiveNavigation: .automotiveNavigation
        case .otherNavigation: .otherNavigation
        case .fitness: .fitness
        case .airborne: .airborne
        }
        locationService.startStandard(LocationConfiguration(desiredAccuracy: .best, activityType: activity,
                                                            pausesLocationUpdatesAutomatically: false,
                                                            allowsBackgroundLocationUpdates: true),
                                      waitingForAuthorization: !permissions.locationAuthorized, live: true)
        if permissions.location == .notDetermined, process.state == .foreground, !explicitSessionsRequired {
            note("live updates iterated while notDetermined: iOS raises the when-in-use prompt (implicit session)")
            requestWhenInUse()
        }
    }

    mutating func beginBackgroundActivitySession() {
        guard appInUse else {
            note("background activity session refused: it must be created while the app is in use")
            // What LiveDevice reports in its place (iOS itself says nothing: the session simply
            // does not keep the app in use), so the engine can ask again when the app is in use.
            emit(.backgroundActivitySessionRefused)
            return
        }
        process.setBackgroundActivitySession(true)
        note("background activity session begun")
    }

    /// Whether the app declared `NSLocationRequireExplicitServiceSession`.
    var explicitSessionsRequired: Bool { scenario.device?.requiresExplicitServiceSession ?? false }

    /// Opens the monitor: every condition's current state is delivered again. Iterating its events
    /// while notDetermined in the foreground raises the when-in-use prompt (an implicit session, iOS 18).
    mutating func openMonitor() {
        if constants.implicitServiceSessions, !explicitSessionsRequired,
           permissions.location == .notDetermined, process.state == .foreground {
            note("monitor events iterated while notDetermined: iOS raises the when-in-use prompt (implicit session)")
            requestWhenInUse()
        }
        for m in regions.monitors where m.isCondition {
            let known = now >= m.determinedAt && !m.awaitingAuthorization && permissions.locationAuthorized
            emit(.monitorEvent(identifier: m.region.identifier, state: known ? Self.conditionState(m.state) : .unknown))
        }
    }

    mutating func addMonitorCondition(_ region: MonitoredRegion) {
        startMonitoring(region)
        regions.markCondition(region.identifier)
    }

    /// Whether iOS 18 withholds `event` because the app requires explicit service sessions and holds
    /// none: a live update is dropped, a monitor event held until a session begins.
    mutating func withheldForServiceSession(_ event: DeviceEvent) -> Bool {
        guard constants.implicitServiceSessions, explicitSessionsRequired, !process.serviceSession else { return false }
        switch event {
        case .liveUpdate:
            if stats.liveUpdatesWithheldForServiceSession == 0 {
                note("live updates withheld: no explicit service session (serviceSessionRequired)")
            }
            stats.liveUpdatesWithheldForServiceSession += 1
            return true
        case .monitorEvent:
            process.holdForServiceSession(event)
            return true
        default:
            return false
        }
    }

    mutating func beginServiceSession(_ goal: ServiceSessionGoal) {
        for event in process.setServiceSession(true) { emit(event) }
        note("service session begun (goal \(goal.rawValue))")
        if goal != .none, permissions.location == .notDetermined, process.state == .foreground {
            requestWhenInUse()
        }
    }

    /// A region state as a monitor condition's state.
    static func conditionState(_ state: RegionState) -> MonitorConditionState {
        switch state {
        case .inside: .satisfied
        case .outside: .unsatisfied
        case .unknown: .unknown
        }
    }
}
