import Foundation
import WaymarkEngine
import WaymarkGeo
import WaymarkSimulator

/// Reads what the simulated app (an ``EngineApp``) recorded and published since the last step, and
/// turns its fixes, gap markers, launch, map, ride and fence updates into timeline lines (the
/// ``SimulatedPhone`` stores the fixes and gaps).
struct DemoAppReader {
    /// The stops the demo inserted into the ride, to name the auto-pauses they cause.
    let stops: [(name: String, from: Double, to: Double)]
    private var updates = 0
    private var fixes = 0
    private var lastCenter: Coordinate?
    /// Recorded fixes already counted in a summary line.
    private var summarized = 0

    init(ride: DemoRide) {
        stops = [("stopped at traffic lights", ride.trafficLight.at, ride.trafficLight.at + ride.trafficLight.seconds),
                 ("long stop (café)", ride.longStop.at, ride.longStop.at + ride.longStop.seconds)]
    }

    /// The app script of the demo: ask for notifications, then location (and the always upgrade
    /// iOS needs for a background relaunch) and motion. It installs no fence: the phone fetches them
    /// from the server (``SimulatedPhone``'s `FenceSource`), except for the energy baseline, which is
    /// given the set the server returned (`fences`). It starts no ride: automatic tracking
    /// (``configuration``) starts it when the rider sets off, ``DemoRide/rideDelay`` after the launch.
    static func script(fences: [Fence] = []) -> EngineApp.Script {
        EngineApp.Script(permissions: [.notifications([.alert, .sound]), .locationWhenInUse, .locationAlwaysUpgrade, .motion],
                         startsRide: false, rideID: "demo-ride", fences: fences)
    }

    /// The demo app's engine configuration: automatic tracking on, with a stop timeout longer
    /// than the café stop, so the loop is one ride; `ride` is the tracker's policy (the demo's, or
    /// the always-best baseline's). Visits are off: the rider sets off while the app is open and
    /// the kill comes during the ride, so only the stationary region watches the trailhead.
    static func configuration(ride: RideTracker.Configuration = RideTracker.Configuration()) -> EngineCore.Configuration {
        var ride = ride
        ride.automatic = AutomaticTracking(enabled: true, stopTimeoutSeconds: 1800, usesVisits: false)
        return EngineCore.Configuration(ride: ride)
    }

    /// The new timeline lines, in order.
    mutating func read(_ app: EngineApp, epoch: Date) -> [DemoTimelineEntry] {
        var lines: [DemoTimelineEntry] = []
        let recorded = app.recordedFixes
        if recorded.count > fixes {
            if fixes == 0, let first = recorded.first {
                lines.append(DemoTimelineEntry(t: first.timestamp.timeIntervalSince(epoch), kind: .ride,
                                               text: "first ride fix recorded (±\(Int(first.horizontalAccuracy ?? 0)) m)"))
            }
            fixes = recorded.count
        }
        for entry in app.timeline.dropFirst(updates) {
            let t = entry.time.timeIntervalSince(epoch)
            switch entry.value {
            case .launchLocation(.located(let fix)):
                let age = entry.time.timeIntervalSince(fix.timestamp)
                lines.append(DemoTimelineEntry(t: t, kind: .launch, text: String(
                    format: "launch location accepted: ±%.0f m, %.0f s old; location released", fix.horizontalAccuracy ?? 0, age)))
            case .launchLocation(.unavailable(let reason)):
                lines.append(DemoTimelineEntry(t: t, kind: .launch, text: "launch location unavailable (\(reason))"))
            case .map(let state):
                if let center = state.center, center != lastCenter {
                    lines.append(DemoTimelineEntry(t: t, kind: .map, text: String(
                        format: "map centered once at %.5f, %.5f (zoom unchanged)", center.latitude, center.longitude)))
                }
                lastCenter = state.center
            case .permission(.outcome(_, let outcome)) where !outcome.prompted:
                lines.append(DemoTimelineEntry(t: t, kind: .prompt, text: "\(outcome.request): \(outcome.result) (no prompt)"))
            case .ride(.state(let state)):
                if state != .moving, let summary = summarizeFixes(recorded, before: entry.time.addingTimeInterval(1e-3), epoch: epoch, at: t) {
                    lines.append(summary)
                }
                lines.append(DemoTimelineEntry(t: t, kind: .ride, text: describe(state, at: t)))
            case .ride(.gap(let gap)):
                if let summary = summarizeFixes(recorded, before: gap.end, epoch: epoch, at: t) { lines.append(summary) }
                lines.append(DemoTimelineEntry(t: gap.end.timeIntervalSince(epoch), kind: .gap, text:
                    "gap marker \(DemoTimelineEntry.clock(gap.start.timeIntervalSince(epoch)))–"
                    + "\(DemoTimelineEntry.clock(gap.end.timeIntervalSince(epoch))) "
                    + "(\(Int(gap.duration)) s, \(DemoRun.describe(gap.reason)))"))
            case .geofence(.event(let event)):
                let name = event.userData["name"].map { " (\($0))" } ?? ""
                lines.append(DemoTimelineEntry(t: t, kind: .fence, text: "device: \(event.kind.rawValue) \(event.fenceID)\(name)"))
            default:
                break
            }
        }
        updates = app.timeline.count
        return lines
    }

    /// The closing summary line of the fixes recorded since the last one (the end of the ride).
    mutating func finish(_ app: EngineApp, epoch: Date) -> DemoTimelineEntry? {
        summarizeFixes(app.recordedFixes, before: .distantFuture, epoch: epoch)
    }

    /// `recorded 212 fixes 0:07:52–0:14:40, 1.84 km, median ±6 m` for the fixes recorded since
    /// the last summary and before `before`, or nil when there are none.
    /// The line is placed at `at` when given (when the reader learned that the spell ended, which
    /// may be later than its last fix), else at the last fix, so the timeline stays in time order.
    private mutating func summarizeFixes(_ recorded: [Fix], before: Date, epoch: Date, at: Double? = nil) -> DemoTimelineEntry? {
        var end = summarized
        while end < recorded.count, recorded[end].timestamp < before { end += 1 }
        let spell = recorded[summarized..<end]
        summarized = end
        guard let first = spell.first, let last = spell.last else { return nil }
        let meters = zip(spell, spell.dropFirst()).reduce(0) { $0 + Geodesy.haversineDistance($1.0.coordinate, $1.1.coordinate) }
        let accuracies = spell.compactMap(\.horizontalAccuracy).sorted()
        let median = accuracies.isEmpty ? 0 : accuracies[accuracies.count / 2]
        let from = first.timestamp.timeIntervalSince(epoch), to = last.timestamp.timeIntervalSince(epoch)
        return DemoTimelineEntry(t: max(to, at ?? to), kind: .fixes, text: String(
            format: "recorded %d fix%@ %@–%@, %.2f km, median ±%.0f m", spell.count, spell.count == 1 ? "" : "es",
            DemoTimelineEntry.clock(from), DemoTimelineEntry.clock(to), meters / 1000, median))
    }

    /// The ride state as a timeline line; an auto-pause names the demo's stop it falls in.
    private func describe(_ state: RideState, at t: Double) -> String {
        guard state == .autoPaused else { return DemoRun.describe(state) }
        let stop = stops.first { t >= $0.from - 30 && t <= $0.to + 30 }
        return "auto-paused: " + (stop?.name ?? "rider stopped") + " (GNSS held, then low-power watch)"
    }
}
