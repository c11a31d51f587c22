import Foundation

/// Translates between the engine's `CLLocationManager` vocabulary and the iOS 17 location APIs
/// (``LocationBackend/modern``), so every component behaves the same on either backend.
///
/// Commands, as the components ask for them:
/// - standard updates become `CLLocationUpdate.liveUpdates` with the activity type's
///   ``LiveUpdateConfiguration``; background permission becomes a `CLBackgroundActivitySession`
///   (begun while the updates run in the background, ended with them). Live updates have no
///   desired accuracy: iOS picks it, so the ride policy's low-power settings cost what iOS decides;
/// - regions become `CLMonitor` conditions, a state request the condition's record; the monitor
///   is opened when the location manager is created (at launch), as Apple asks for pending events.
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
///   region reports no crossing for the side it starts on; `unmonitored` is a monitoring failure.
///
/// A `Sendable` value type, owned by ``EngineCore`` (one per process).
public struct ModernBackendAdapter: Hashable, Sendable {
    /// The live updates running, if any.
    public private(set) var live: LiveUpdateConfiguration?
    /// Whether a background activity session is held.
    public private(set) var session = false
    /// The last known state of each condition.
    public private(set) var conditions: [String: MonitorConditionState] = [:]

    /// An adapter with nothing running (a new process).
    public init() {}

    /// The commands of one step in the iOS 17 vocabulary.
    public mutating func commands(_ legacy: [DeviceCommand]) -> [DeviceCommand] {
        var out: [DeviceCommand] = []
        for command in legacy {
            switch command {
            case .createLocationManager:
                out += [.createLocationManager, .openMonitor]
            case .startUpdatingLocation(let configuration):
                let wanted = LiveUpdateConfiguration(activityType: configuration.activityType)
                if live != wanted {
                    if live != nil { out.append(.stopLiveUpdates) }
                    out.append(.startLiveUpdates(wanted))
                    live = wanted
                }
                if configuration.allowsBackgroundLocationUpdates != session {
                    out.append(session ? .endBackgroundActivitySession : .beginBackgroundActivitySession)
                    session.toggle()
                }
            case .stopUpdatingLocation:
                if live != nil { out.append(.stopLiveUpdates) }
                if session { out.append(.endBackgroundActivitySession) }
                live = nil
                session = false
            case .startMonitoring(let region):
                conditions[region.identifier] = nil
                out.append(.addMonitorCondition(region))
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
        switch event {
        case .launched:
            self = ModernBackendAdapter()
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
                if let previous, previous != state, previous == .satisfied || previous == .unsatisfied {
                    out.append(state == .satisfied ? .regionEntered(identifier: identifier) : .regionExited(identifier: identifier))
                }
                out.append(.regionState(identifier: identifier, state: state == .satisfied ? .inside : .outside))
                return out
            case .unknown:
                return [.regionState(identifier: identifier, state: .unknown)]
            case .unmonitored:
                conditions[identifier] = nil
                return [.regionMonitoringFailed(identifier: identifier, reason: .unavailable)]
            }
        default:
            return [event]
        }
    }
}
