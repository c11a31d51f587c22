import Foundation
import WaymarkGeo

/// The words of the field log's messages. No coordinates: a fix is told by its accuracy, age and speed.
extension FieldLogNotes {
    static func describe(_ fix: Fix, at time: Date) -> String {
        var parts = ["±\(fix.horizontalAccuracy.map { String(Int($0.rounded())) } ?? "?") m"]
        let age = time.timeIntervalSince(fix.timestamp)
        parts.append(age >= 0.5 ? "\(Int(age.rounded())) s old" : "fresh")
        if let speed = fix.speed, speed >= 0 { parts.append(String(format: "%.1f m/s", speed)) }
        if fix.source != .gnss { parts.append(fix.source.rawValue) }
        return parts.joined(separator: ", ")
    }

    /// A launch as first written, or (`settling`) the entry that settles its cause.
    static func describe(_ launch: LaunchAttribution, settling: Bool) -> String {
        let reason = switch launch.reason {
        case .user: "launched by the user"
        case .location: "launched in the background by iOS for a location event"
        case .remoteNotification: "launched in the background by a remote notification"
        case .background: "launched in the background with no launch key (a location event under UIScene, a background task or session, or a push)"
        }
        guard let cause = launch.cause else { return "\(reason); cause not known yet" }
        let settled = launch.settledAt.map { $0.timeIntervalSince(launch.launchedAt) } ?? 0
        let when = settled >= 0.5 ? ", \(Int(settled.rounded())) s after the launch" : ""
        return settling ? "launch cause settled: \(describe(cause))\(when)" : "\(reason) (cause: \(describe(cause)))"
    }

    static func describe(_ cause: LaunchCause) -> String {
        switch cause {
        case .userOpened: "opened by the user"
        case .remoteNotification: "a remote notification"
        case .region(let id): "region '\(id)'"
        case .significantChange: "a significant location change"
        case .visit: "a visit"
        case .locationUpdates: "location updates delivered to the new process"
        }
    }

    static func describe(_ auth: LocationAuthorization) -> String {
        var text = auth.status.rawValue
        text += auth.accuracy == .full ? ", precise" : ", approximate"
        if !auth.servicesEnabled { text += ", Location Services off" }
        return text
    }

    static func describe(_ request: PermissionRequest) -> String {
        switch request {
        case .notifications: "notifications"
        case .locationWhenInUse: "location when in use"
        case .motion: "motion"
        case .locationAlwaysUpgrade: "location always (upgrade)"
        }
    }

    static func describe(_ result: PermissionResult) -> String {
        switch result {
        case .granted: "granted"
        case .denied: "denied"
        case .restricted: "restricted"
        case .servicesDisabled: "Location Services off"
        case .notAsked(let why): "not asked (\(why.rawValue))"
        case .timedOut: "no answer before the timeout"
        case .misconfigured(let key): "no prompt possible: the Info.plist lacks \(key.rawValue)"
        }
    }

    static func describe(_ reason: RegionFailure) -> String {
        switch reason {
        case .tooManyRegions: "too many regions (the app's 20 are taken)"
        case .denied: "location authorization does not allow it"
        case .unavailable: "unavailable (Precise Location, Background App Refresh or Low Power Mode)"
        case .radiusTooLarge: "radius larger than iOS allows"
        case .failed: "this region could not be monitored (retried at the next reselection)"
        }
    }

    static func describe(_ state: AutomaticTracking.State) -> String {
        switch state {
        case .off: "off"
        case .still: "no ride, GNSS off, watching for movement"
        case .checking: "GNSS checks a hint of movement"
        case .riding: "a ride is under way"
        }
    }

    static func describe(_ event: FenceEvent) -> String {
        let cause = switch event.cause {
        case .fix(let fix): "a fix (±\(fix.horizontalAccuracy.map { String(Int($0.rounded())) } ?? "?") m)"
        case .region(let id, let entered): "iOS region '\(id)' \(entered ? "entered" : "exited")"
        case .regionState(let id, let state): "iOS region '\(id)' state \(state.rawValue)"
        case .elapsed: "its dwell or re-entry delay running out inside"
        }
        let late = Int(event.delay.rounded())
        let upTo = Int(event.deliveredAt.timeIntervalSince(event.latest).rounded())
        let bounds = event.earliest.map { "between \(Int(event.deliveredAt.timeIntervalSince($0).rounded())) and \(upTo) s before" }
            ?? "at least \(upTo) s before"
        let decided = if case .elapsed = event.cause { "decided by \(cause)" } else { "decided from \(cause)" }
        return "fence '\(event.fenceID)' \(event.kind.rawValue) #\(event.sequence): \(decided), timing \(event.timing.rawValue); "
            + "happened at \(FieldLogTime.format(event.time)), \(late) s before the decision (\(bounds))"
    }
}
