import Foundation
import WaymarkGeo

extension FieldLogNotes {
    /// Entries for one core step, from its updates and `core` after it: the launch and its cause,
    /// authorization and permission outcomes, the launch fix, ride states with who started or
    /// ended the ride, gaps, automatic tracking, geofence events with their timing, and location
    /// requests; presence, monitored regions, recorded fixes and commands at debug.
    public mutating func step(_ output: EngineOutput, core: EngineCore, at time: Date) -> [FieldLogEntry] {
        var notes = Notes(level: level, time: time)
        for update in output.updates { note(update, core: core, into: &notes) }
        if core.rideTracker.automaticState != automatic {
            let old = automatic
            automatic = core.rideTracker.automaticState
            notes.add(.info, .ride, "automatic tracking: \(old.rawValue) → \(automatic.rawValue) (\(Self.describe(automatic)))")
        }
        if notes.wants(.debug) {
            for command in output.commands { notes.add(.debug, .location, "command: \(command)") }
        }
        return notes.entries
    }

    private mutating func note(_ update: EngineUpdate, core: EngineCore, into notes: inout Notes) {
        let now = notes.time
        switch update {
        case .launch(let launch):
            notes.add(.info, .launch, Self.describe(launch, settling: loggedLaunch == launch.launchedAt))
            loggedLaunch = launch.launchedAt
        case .permission(.authorizationChanged(let auth)):
            if let previous = authorization, previous == auth {
                notes.add(.debug, .permission, "location authorization unchanged: \(Self.describe(auth))")
            } else {
                let what = authorization == nil ? "location authorization" : "location authorization changed"
                notes.add(auth.status == .denied || auth.status == .restricted ? .warning : .info, .permission,
                          "\(what): \(Self.describe(auth))")
            }
            authorization = auth
        case .permission(.outcome(_, let outcome)):
            notes.add(.info, .permission, "permission \(Self.describe(outcome.request)): \(Self.describe(outcome.result))"
                      + (outcome.prompted ? " (asked iOS)" : " (known without asking)"))
        case .permission(.batchCompleted), .permission(.memoryChanged):
            break
        case .launchLocation(let state):
            switch state {
            case .located(let fix): notes.add(.info, .location, "launch fix: \(Self.describe(fix, at: now))")
            case .unavailable(let why): notes.add(.notice, .location, "no launch fix: \(why.rawValue)")
            case .idle, .waitingForPermission, .locating: notes.add(.debug, .location, "launch locator: \(state)")
            }
        case .map:
            break
        case .geofence(.event(let event)):
            notes.add(.info, .geofence, Self.describe(event))
        case .geofence(.presence(let id, let presence)):
            notes.add(.debug, .geofence, "fence '\(id)' presence: \(presence.rawValue)")
        case .geofence(.monitoredRegions(let regions)):
            if notes.wants(.debug) {
                notes.add(.debug, .geofence, "regions monitored with iOS: \(regions.count) (\(regions.map(\.identifier).joined(separator: ", ")))")
            }
        case .ride(.state(let state)):
            noteRide(state, core: core, into: &notes)
        case .ride(.gap(let gap)):
            notes.add(.notice, .ride, "gap in the ride: \(gap.reason.rawValue), \(Int(gap.duration.rounded())) s not recorded "
                      + "(\(FieldLogTime.format(gap.start)) – \(FieldLogTime.format(gap.end)))")
        case .ride(.recorded(let fix)):
            if notes.wants(.debug) { notes.add(.debug, .ride, "fix recorded: \(Self.describe(fix, at: now))") }
        case .ride(.statistics), .ride(.checkpoint):
            break
        case .location(.completed(let id, let result)):
            switch result {
            case .success(let fix): notes.add(.info, .location, "location request \(id) answered: \(Self.describe(fix, at: now))")
            case .failure(let error): notes.add(.notice, .location, "location request \(id) failed: \(error.message)")
            }
        case .location(.fix):
            break
        case .heartbeat(.woke):
            break   // logged with the app-refresh event
        case .heartbeat(.beat(let beat)):
            let fix = beat.fix.map { Self.describe($0, at: now) } ?? "no fix"
            let next = beat.next.map { "next wake asked for \(FieldLogTime.format($0))" } ?? "no next wake asked for"
            notes.add(beat.expired ? .notice : .info, .system,
                      "heartbeat: \(fix)\(beat.expired ? ", time ran out" : ""); \(next)")
        case .heartbeat(.refused):
            break   // logged with the refusal event
        }
    }

    private mutating func noteRide(_ state: RideState, core: EngineCore, into notes: inout Notes) {
        let old = rideState
        rideState = state
        guard old != state else { return }
        let snapshot = core.rideTracker.snapshot
        let ride = snapshot.map { "ride '\($0.rideID)'" } ?? "ride"
        let who = snapshot?.startedAutomatically == true ? "automatically" : "by the rider"
        switch (old, state) {
        case (.idle, .moving), (.ended, .moving):
            notes.add(.info, .ride, "\(ride) started \(who)")
        case (.autoPaused, .moving):
            notes.add(.info, .ride, "\(ride) moving again (auto-pause over)")
        case (.userPaused, .moving):
            notes.add(.info, .ride, "\(ride) resumed by the rider")
        case (_, .autoPaused):
            notes.add(.info, .ride, "\(ride) auto-paused: the rider stopped")
        case (_, .userPaused):
            notes.add(.info, .ride, "\(ride) paused by the rider")
        case (_, .ended):
            let stats = snapshot?.statistics ?? RideStatistics()
            notes.add(.info, .ride, "\(ride) ended: \(String(format: "%.2f", stats.distanceMeters / 1000)) km, "
                      + "moving \(Int(stats.movingSeconds.rounded())) s")
        default:
            notes.add(.info, .ride, "\(ride) \(old.rawValue) → \(state.rawValue)")
        }
    }
}
