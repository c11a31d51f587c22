import Foundation
import WaymarkEngine
import WaymarkGeo

extension EngineApp {
    /// Every fix the ride recorded, in order (what the ride store holds).
    public var recordedFixes: [Fix] { disk.recorded }

    /// Every gap marker of the ride, in order.
    public var gaps: [GapMarker] { disk.gaps }

    /// Every fence event delivered, in order.
    public var fenceEvents: [FenceEvent] { disk.fenceEvents }

    /// The ride states published, in order, with their times.
    public var rideStates: [Timed<RideState>] {
        timeline.compactMap { if case .ride(.state(let s)) = $0.value { Timed(time: $0.time, value: s) } else { nil } }
    }

    /// The latest ride statistics published (nil before the first recorded fix).
    public var rideStatistics: RideStatistics? {
        timeline.last { if case .ride(.statistics) = $0.value { true } else { false } }
            .flatMap { if case .ride(.statistics(let s)) = $0.value { s } else { nil } }
    }

    /// The outcomes of each completed permission batch, in order.
    public var permissionBatches: [[PermissionOutcome]] {
        timeline.compactMap { if case .permission(.batchCompleted(_, let o)) = $0.value { o } else { nil } }
    }

    /// The launch-location states published, in order, with their times.
    public var launchStates: [Timed<LaunchLocationState>] {
        timeline.compactMap { if case .launchLocation(let s) = $0.value { Timed(time: $0.time, value: s) } else { nil } }
    }

    /// The map states published, in order.
    public var mapStates: [MapLaunchState] {
        timeline.compactMap { if case .map(let s) = $0.value { s } else { nil } }
    }

    /// The monitored-region sets the geofence monitor published, in order, with their times.
    public var monitoredRegionSets: [Timed<[MonitoredRegion]>] {
        timeline.compactMap {
            if case .geofence(.monitoredRegions(let r)) = $0.value { Timed(time: $0.time, value: r) } else { nil }
        }
    }

    /// The timeline as text, one line per notable update: seconds since `epoch`, then what
    /// happened. Statistics and checkpoints are left out, and recorded fixes unless
    /// `includingFixes` (a ride records one per second).
    ///
    /// ```
    /// t=0.0 launched (user)
    /// t=0.0 ride moving
    /// t=412.0 fence cafe enter (fix)
    /// ```
    public func timelineLines(since epoch: Date, includingFixes: Bool = false) -> [String] {
        var lines: [(Date, Int, String)] = launches.enumerated().map { ($1.time, -1, "launched (\($1.value.rawValue))") }
        for (i, entry) in timeline.enumerated() {
            guard let text = Self.describe(entry.value, includingFixes: includingFixes) else { continue }
            lines.append((entry.time, i, text))
        }
        lines.sort { ($0.0, $0.1) < ($1.0, $1.1) }
        return lines.map { String(format: "t=%.1f ", $0.0.timeIntervalSince(epoch)) + $0.2 }
    }

    static func describe(_ update: EngineUpdate, includingFixes: Bool) -> String? {
        switch update {
        case .permission(.outcome(_, let outcome)):
            "permission \(outcome.request) → \(outcome.result)\(outcome.prompted ? " (prompted)" : "")"
        case .permission(.authorizationChanged(let auth)): "authorization \(auth.status.rawValue)"
        case .permission: nil
        case .launchLocation(let state): "launch location \(state)"
        case .map(let state): state.center.map { "map centered at \($0.latitude), \($0.longitude)" }
        case .geofence(.event(let e)): "fence \(e.fenceID) \(e.kind.rawValue) (\(Self.describe(e.cause)))"
        case .geofence(.presence(let id, let presence)): "fence \(id) is \(presence.rawValue)"
        case .geofence(.monitoredRegions(let regions)): "monitoring \(regions.count) regions"
        case .ride(.state(let state)): "ride \(state.rawValue)"
        case .ride(.gap(let gap)): String(format: "gap of %.0f s (%@)", gap.duration, gap.reason.rawValue)
        case .ride(.recorded(let fix)):
            includingFixes ? String(format: "fix %.6f, %.6f", fix.coordinate.latitude, fix.coordinate.longitude) : nil
        case .ride(.statistics), .ride(.checkpoint): nil
        case .launch: nil   // the simulation's own log names every launch and its reason
        case .location(.completed(let id, .success(let fix))):
            String(format: "location request %d answered: ±%.0f m", id, fix.horizontalAccuracy ?? -1)
        case .location(.completed(let id, .failure(let error))): "location request \(id) failed: \(error)"
        case .location(.fix): nil
        case .heartbeat(.woke): "heartbeat: woken by the app-refresh task"
        case .heartbeat(.beat(let beat)):
            "heartbeat: " + (beat.fix.map { String(format: "fix ±%.0f m", $0.horizontalAccuracy ?? -1) } ?? "no fix")
                + (beat.expired ? ", time ran out" : "")
        case .heartbeat(.refused(let reason)): "heartbeat refused by iOS: \(reason.rawValue)"
        }
    }

    static func describe(_ cause: FenceEvent.Cause) -> String {
        switch cause {
        case .fix: "fix"
        case .region: "region event"
        case .regionState: "region state"
        case .elapsed: "timer"
        }
    }
}

extension Simulation {
    /// The attached app, if it is an ``EngineApp``.
    public var engineApp: EngineApp? { app as? EngineApp }

    /// Performs an action on the attached ``EngineApp`` now, as a tap would, and the commands it
    /// leads to; returns false (and does nothing) when the app is not an `EngineApp` or its process
    /// is not running.
    @discardableResult
    public mutating func perform(_ action: EngineApp.Action) -> Bool {
        guard process.isRunning, var current = app as? EngineApp else { return false }
        app = nil
        let commands = current.perform(action, at: currentDate)
        app = current
        for command in commands { perform(command) }
        return true
    }
}
