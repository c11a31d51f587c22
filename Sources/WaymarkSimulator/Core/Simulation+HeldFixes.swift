import Foundation
import WaymarkEngine
import WaymarkGeo

/// Late, batched delivery (PLATFORM.md §3: "while the app is suspended, fixes are queued and
/// delivered late, in batches, when it runs again; they are lost if the app is terminated").
///
/// CoreLocation documents that `locationManager(_:didUpdateLocations:)` may carry more than one fix
/// when several arrived before they could be delivered, oldest first, and that for a suspended app
/// "the system enqueues location updates and delivers them when the app runs again" (Apple,
/// "Handling location updates in the background" [S41]; when-in-use: "outstanding requests suspend
/// until the user resumes using your app" [S22]). The simulator reproduces this with one rule: a
/// fix the system measured for a *suspended* app is held and handed over in a single `.locations`
/// batch, oldest first and with the timestamps of measurement, when the app runs again (opened by
/// the user, or woken in the background), before the event that woke it.
///
/// Nothing survives the process: Apple documents the queue only for a suspended app, and no source
/// describes a backlog handed to a relaunched one (issue #14, audit row C4). Fixes held when the
/// app is terminated (by the system, a crash or the user) are lost
/// (``SimulationStats/fixesLostWithProcess``), and fixes measured while it is not running are never
/// held.
///
/// Fixes are measured for an app that cannot take them when a one-shot request completes after the
/// app was suspended, and when a significant change fires for an app that may not be woken for it
/// (no always authorization). At most ``PlatformConstants/heldFixLimit`` fixes are held (the oldest
/// are dropped).
extension Simulation {
    /// Holds fixes measured while the app is suspended; drops them while it is not running.
    mutating func hold(_ fixes: [Fix]) {
        guard process.state != .notRunning else {
            stats.fixesLostWithProcess += fixes.count
            note("lost \(fixes.count) fix(es): app not running (nothing is held for a terminated app)")
            return
        }
        locationService.hold(fixes, limit: constants.heldFixLimit)
        note("held \(fixes.count) fix(es) for the app (\(process.state.rawValue)); \(heldFixes.count) waiting")
    }

    /// The process ends: whatever the system held for it is lost.
    mutating func loseHeldFixes() {
        guard !heldFixes.isEmpty else { return }
        stats.fixesLostWithProcess += heldFixes.count
        note("\(heldFixes.count) held fix(es) lost with the process")
        _ = locationService.takeHeldFixes()
    }

    /// Delivers the held fixes as one late batch if the app runs and has its location manager.
    mutating func deliverHeldFixes() {
        guard process.isRunning, process.managerCreated, let oldest = heldFixes.first else { return }
        let batch = locationService.takeHeldFixes()
        stats.fixesDeliveredLate += batch.count
        note("\(batch.count) held fix(es) delivered late, oldest measured \(Int(currentDate.timeIntervalSince(oldest.timestamp))) s ago")
        emit(.locations(batch))
    }

    /// What a process that runs again receives first: held fixes, then the latest motion activity.
    mutating func deliverOnResume() {
        deliverHeldFixes()
        deliverMotionOnResume()
    }
}
