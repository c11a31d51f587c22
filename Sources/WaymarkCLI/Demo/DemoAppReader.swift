import Foundation
import WaymarkEngine
import WaymarkGeo
import WaymarkSimulator
import WaymarkSync

/// Reads what the simulated app (an ``EngineApp``) recorded and published since the last step:
/// new fixes and gap markers go into the phone's ``RideStore``; launch, map, ride and fence
/// updates become timeline lines.
struct DemoAppReader {
    private var updates = 0
    private var fixes = 0
    private var lastCenter: Coordinate?

    /// The app script of the demo: ask for notifications, then location (and the always upgrade
    /// iOS needs for a background relaunch), install the fences; the rider starts the ride once
    /// the prompts are answered (a ride started at once asks for motion data while the
    /// notification prompt is on screen, which iOS would drop).
    static func script(_ ride: DemoRide) -> EngineApp.Script {
        let start = (ride.scenario.startTime ?? Date()).addingTimeInterval(DemoRide.rideDelay)
        return EngineApp.Script(permissions: [.notifications([.alert, .sound]), .locationWhenInUse, .locationAlwaysUpgrade, .motion],
                         startsRide: false, rideID: "demo-ride",
                         fences: ride.fences.map { Fence(id: $0.id, shape: .circle(center: $0.center, radiusMeters: $0.radiusMeters),
                                                         userData: ["name": $0.name]) },
                         actions: [.init(at: start, .ride(.start(rideID: "demo-ride")))])
    }

    /// Stores new fixes and gaps and returns the new timeline lines, in order.
    mutating func read(_ app: EngineApp, into store: RideStore, ride: UUID, epoch: Date) throws -> [DemoTimelineEntry] {
        var lines: [DemoTimelineEntry] = []
        let recorded = app.recordedFixes
        if recorded.count > fixes {
            try store.append(Array(recorded[fixes...]), to: ride)
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
                lines.append(DemoTimelineEntry(t: t, kind: .ride, text: DemoRun.describe(state)))
            case .ride(.gap(let gap)):
                try store.recordGap(WaymarkSync.GapMarker(ride: ride, start: gap.start, end: gap.end, reason: gap.reason.rawValue))
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
}
