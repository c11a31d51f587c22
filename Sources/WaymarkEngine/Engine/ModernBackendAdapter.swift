import Foundation

/// Translates between the engine's `CLLocationManager` vocabulary and the iOS 17 location APIs
/// (``LocationBackend/modern``), so every component behaves the same on either backend.
///
/// Commands, as the components ask for them:
/// - standard updates become `CLLocationUpdate.liveUpdates` with the activity type's
///   ``LiveUpdateConfiguration``; background permission becomes a `CLBackgroundActivitySession`.
///   The session is kept across a stop of the updates for ``sessionGrace`` seconds, because a
///   when-in-use app cannot begin a new one from the background: a ride that stops at a café and
///   goes on within that time restarts its updates under the session it still holds. It ends when
///   the grace runs out (``sessionReleaseDeadline``), or at once when updates restart without
///   background permission. A refused session (``DeviceEvent/backgroundActivitySessionRefused``) is
///   asked for again when the app next comes to the foreground while background updates are still
///   wanted (review 2, M5). Live updates have no
///   desired accuracy: iOS picks it, so the ride policy's low-power settings cost what iOS decides;
/// - regions become `CLMonitor` conditions, a state request the condition's record.
///
/// **Nothing of the iOS 17 vocabulary goes out before location authorization is determined.**
/// On iOS 18, iterating a monitor's events or live updates creates an implicit service session,
/// which raises the location prompt when it can (WWDC24 10212 "What's new in location
/// authorization"; Apple, `CLServiceSession`; PLATFORM.md §9), outside the `PermissionSequencer`,
/// next to whatever prompt it shows: the collision Waymark exists to prevent (review 2, H3). So the
/// monitor is opened, and live updates, sessions and conditions are sent, at the first authorization
/// callback that is not `notDetermined` (the one answering the manager's creation at a relaunch,
/// the user's answer at a first launch), in the order the components asked for them.
///
/// **An explicit `CLServiceSession`** is held from then on, with the goal the app is authorized for
/// (`whenInUse` or `always`; none while denied), so it never prompts by itself: the sequencer's
/// requests stay the only prompts. It is re-created at every launch (the adapter starts afresh at
/// `launched`), as Apple asks after a relaunch (WWDC24 10212), and follows authorization changes.
/// iOS 18 scopes background delivery of monitor events to an explicit session
/// (customerio/customerio-ios#1158; review 2, M4).
///
/// Events, as the components expect them:
/// - a live update with a fix becomes `locations`, one without a fix while moving the transient
///   `locationError(.locationUnknown)`. A stationary report needs no translation: iOS pauses the
///   updates itself and resumes them when the device moves, so a ride parked at a stop (auto-paused
///   from its fixes) keeps asking for updates instead of sleeping behind a wake fence, and records
///   again with the first fix after the stop. (Translating it to `locationUpdatesPaused` would put
///   the ride to sleep, and the wake fence's exit comes minutes late.)
/// - a monitor event becomes `regionState`, preceded by `regionEntered` or `regionExited` when the
///   state changed from a known one. The first state of a condition is only a state, as a legacy
///   region reports no crossing for the side it starts on; `unmonitored` is that condition's failure.
///   A first known state more than ``initialStateWindow`` after the add is read as a crossing the
///   app never heard, unless the app stayed in the foreground since the add
///   (``addedInForeground``): then it heard every event, and the state is the initial one.
///
/// A `Sendable` value type, owned by ``EngineCore`` (one per process).
public struct ModernBackendAdapter: Hashable, Sendable {
    /// The live updates running, if any.
    public private(set) var live: LiveUpdateConfiguration?
    /// Whether a background activity session is held (or asked for and not refused).
    public private(set) var session = false
    /// Whether the running updates want background delivery (the session's reason to exist).
    public private(set) var backgroundWanted = false
    /// When the session, kept after its updates stopped, is ended; nil while updates run.
    public private(set) var sessionReleaseDeadline: Date?
    /// The session was refused and is to be asked for again at the next command step.
    public private(set) var sessionRetryDue = false
    /// How long a background activity session is kept after its updates stop, s.
    public var sessionGrace: TimeInterval
    /// The default ``sessionGrace``: ten minutes, a short stop on a ride (a café, a level crossing).
    public static let defaultSessionGrace: TimeInterval = 600
    /// The last known state of each condition, as the app heard it (kept across processes: see
    /// ``init(sessionGrace:heard:)``).
    public private(set) var conditions: [String: MonitorConditionState] = [:]
    /// The last location authorization reported in this process.
    public private(set) var authorization: LocationAuthorization?
    /// Whether the monitor has been opened in this process.
    public private(set) var monitorOpened = false
    /// The goal of the explicit service session held, if any.
    public private(set) var serviceSession: ServiceSessionGoal?
    /// iOS 17 commands waiting for authorization to be determined, in order.
    public private(set) var deferred: [DeviceCommand] = []
    /// When each condition was added in this process, until its first known state arrives.
    public private(set) var addedAt: [String: Date] = [:]
    /// Whether the app is in the foreground: launched by the user or told it will enter the
    /// foreground, and not sent to the background since.
    public private(set) var inForeground = false
    /// Conditions added while the app was in the foreground, which has not left it since, until
    /// their first known state arrives. The app heard every event of theirs as it came (a
    /// foreground app is never suspended), so that state is their initial one however late it
    /// comes: iOS leaves a condition `unknown` while the device is too near its boundary to tell.
    public private(set) var addedInForeground: Set<String> = []
    /// The time of the last event (the time of the step whose commands are translated).
    public private(set) var lastEventTime: Date?

    /// How long after an add a condition's first known state is its initial determination (iOS
    /// determines it within seconds: Apple, `CLMonitor.add(_:identifier:)`, "the initial state is
    /// unknown"). Later, it is a change from a state the app never heard (determined while the app
    /// was suspended, PLATFORM.md §5/§9): a crossing, reported as one, as a legacy region reports
    /// `didEnterRegion` (review 2; the pocket gap of `Docs/PERFORMANCE.md`).
    public static let initialStateWindow: TimeInterval = 60

    /// Whether the iOS 17 services may be used without raising a prompt of their own.
    var authorizationDetermined: Bool { authorization.map { $0.status != .notDetermined } ?? false }

    /// An adapter with nothing running (a new process).
    ///
    /// - parameter sessionGrace: how long a background activity session is kept after its updates
    ///   stop, s (``defaultSessionGrace`` by default; 0 ends it with them).
    /// - parameter heard: the last state of each condition the app heard in earlier processes (the
    ///   geofences' persisted ``GeofenceMonitor/PersistentState/conditionStates``): the monitor
    ///   re-emits every condition's current state when a new process opens it, and one that differs
    ///   from what the app heard is a crossing that happened while the app was not running.
    public init(sessionGrace: TimeInterval = ModernBackendAdapter.defaultSessionGrace,
                heard: [String: MonitorConditionState] = [:]) {
        self.sessionGrace = max(0, sessionGrace)
        conditions = heard
    }

    /// The commands of one step in the iOS 17 vocabulary, at the time of the step's event
    /// (`now`; the last event's time when nil).
    public mutating func commands(_ legacy: [DeviceCommand], at now: Date? = nil) -> [DeviceCommand] {
        if let now { lastEventTime = now }
        var out: [DeviceCommand] = []
        if sessionRetryDue, backgroundWanted, !session {
            session = true
            out.append(.beginBackgroundActivitySession)
        }
        sessionRetryDue = false
        if authorizationDetermined {
            if !monitorOpened {
                monitorOpened = true
                out.append(.openMonitor)
            }
            let goal: ServiceSessionGoal? = switch authorization?.status {
            case .authorizedAlways: .always
            case .authorizedWhenInUse: .whenInUse
            default: nil
            }
            if goal != serviceSession {
                if serviceSession != nil { out.append(.endServiceSession) }
                if let goal { out.append(.beginServiceSession(goal)) }
                serviceSession = goal
            }
            out += deferred
            deferred = []
        }
        for command in translate(legacy) {
            if authorizationDetermined || !Self.usesIOS17Services(command) {
                out.append(command)
            } else {
                deferred.append(command)
            }
        }
        if session, live == nil, let release = sessionReleaseDeadline, let now = lastEventTime, now >= release {
            out.append(.endBackgroundActivitySession)
            session = false
            sessionReleaseDeadline = nil
        }
        for case .addMonitorCondition(let region) in out {
            addedAt[region.identifier] = lastEventTime
            if inForeground { addedInForeground.insert(region.identifier) } else { addedInForeground.remove(region.identifier) }
        }
        return out
    }

    /// Whether `command` iterates or configures an iOS 17 service (and so may create an implicit session).
    static func usesIOS17Services(_ command: DeviceCommand) -> Bool {
        switch command {
        case .startLiveUpdates, .stopLiveUpdates, .beginBackgroundActivitySession, .endBackgroundActivitySession,
             .openMonitor, .addMonitorCondition, .removeMonitorCondition, .requestMonitorState,
             .beginServiceSession, .endServiceSession:
            true
        default:
            false
        }
    }

    /// The legacy commands in the iOS 17 vocabulary.
    private mutating func translate(_ legacy: [DeviceCommand]) -> [DeviceCommand] {
        var out: [DeviceCommand] = []
        for command in legacy {
            switch command {
            case .createLocationManager:
                out.append(.createLocationManager)
            case .startUpdatingLocation(let configuration):
                let wanted = LiveUpdateConfiguration(activityType: configuration.activityType)
                if live != wanted {
                    if live != nil { out.append(.stopLiveUpdates) }
                    out.append(.startLiveUpdates(wanted))
                    live = wanted
                }
                backgroundWanted = configuration.allowsBackgroundLocationUpdates
                sessionReleaseDeadline = nil
                if configuration.allowsBackgroundLocationUpdates != session {
                    out.append(session ? .endBackgroundActivitySession : .beginBackgroundActivitySession)
                    session.toggle()
                }
            case .stopUpdatingLocation:
                if live != nil { out.append(.stopLiveUpdates) }
                if session, sessionReleaseDeadline == nil {
                    // Kept for a short stop; ended when the grace runs out (see the type's overview).
                    if sessionGrace > 0, let now = lastEventTime {
                        sessionReleaseDeadline = now.addingTimeInterval(sessionGrace)
                    } else {
                        out.append(.endBackgroundActivitySession)
                        session = false
                    }
                }
                live = nil
                backgroundWanted = false
            case .startMonitoring(let region):
                // The record is read after each add: a legacy region reports its state after
                // registration by itself (didDetermineState), a condition only when the state
                // changes, so one added just before suspension would otherwise stay unknown.
                conditions[region.identifier] = nil
                out += [.addMonitorCondition(region), .requestMonitorState(identifier: region.identifier)]
            case .stopMonitoring(let identifier):
                conditions[identifier] = nil
                out.append(.removeMonitorCondition(identifier: identifier))
            case .requestRegionState(let identifier):
                out.append(.requestMonitorState(identifier: identifier))
            default:
                out.append(command)
            }
        }
        return out
    }

    /// One device event as the components expect it (none, one or several).
    public mutating func events(_ event: DeviceEvent) -> [DeviceEvent] {
        events(event, at: nil)
    }

    /// One device event at `time` as the components expect it (none, one or several); with a
    /// time, a condition's first known state long after its add is read as a crossing
    /// (``initialStateWindow``).
    public mutating func events(_ event: DeviceEvent, at time: Date?) -> [DeviceEvent] {
        if let time { lastEventTime = time }
        switch event {
        case .launched(let reason):
            // A new process: nothing running, but what the app heard of each condition stays heard.
            self = ModernBackendAdapter(sessionGrace: sessionGrace, heard: conditions)
            lastEventTime = time
            inForeground = reason == .user
            return [event]
        case .didEnterBackground:
            // From now on the app may be suspended and miss a condition's change.
            inForeground = false
            addedInForeground = []
            return [event]
        case .authorizationChanged(let auth):
            authorization = auth
            return [event]
        case .backgroundActivitySessionRefused:
            // Not held: asked for again once the app is in use (willEnterForeground).
            session = false
            sessionReleaseDeadline = nil
            return [event]
        case .willEnterForeground:
            inForeground = true
            if backgroundWanted, !session { sessionRetryDue = true }
            return [event]
        case .liveUpdate(let update):
            // Stationary: nothing to do (see above). No location while moving: iOS cannot fix the
            // position now (a tunnel), which the legacy API reports as the transient locationUnknown.
            guard !update.isStationary else { return [] }
            return [update.fix.map { .locations([$0]) } ?? .locationError(.locationUnknown)]
        case .monitorEvent(let identifier, let state):
            let previous = conditions[identifier]
            conditions[identifier] = state
            switch state {
            case .satisfied, .unsatisfied:
                var out: [DeviceEvent] = []
                let added = addedAt.removeValue(forKey: identifier)
                let heardThroughout = addedInForeground.remove(identifier) != nil
                let unheardChange = previous != .satisfied && previous != .unsatisfied && !heardThroughout
                    && added.flatMap { added in time.map { $0.timeIntervalSince(added) > Self.initialStateWindow } } == true
                if let previous, previous != state, previous == .satisfied || previous == .unsatisfied {
                    out.append(state == .satisfied ? .regionEntered(identifier: identifier) : .regionExited(identifier: identifier))
                } else if unheardChange {
                    out.append(state == .satisfied ? .regionEntered(identifier: identifier) : .regionExited(identifier: identifier))
                }
                out.append(.regionState(identifier: identifier, state: state == .satisfied ? .inside : .outside))
                return out
            case .unknown:
                return [.regionState(identifier: identifier, state: .unknown)]
            case .unmonitored:
                // That condition's failure, never all monitoring's (review 2, M2): iOS 18 reports a
                // full pool or unavailable persistence for one condition this way.
                conditions[identifier] = nil
                return [.regionMonitoringFailed(identifier: identifier, reason: .failed)]
            }
        default:
            return [event]
        }
    }
}
