import Foundation
import WaymarkEngine
import WaymarkGeo

/// Late, batched delivery (PLATFORM.md §4: "after a suspension or a relaunch, fixes can arrive late
/// and in batches").
///
/// CoreLocation documents that `locationManager(_:didUpdateLocations:)` may carry more than one fix
/// when several arrived before they could be delivered, oldest first. The simulator reproduces this
/// with one rule: a fix the system measured for the app while the app could not take it is held by
/// the system, not lost, and handed over in a single `.locations` batch, oldest first and with the
/// timestamps of measurement, as soon as the app can take it again:
///
/// - a suspended app gets the batch when it runs again (opened by the user, or woken in the
///   background), before the event that woke it;
/// - a terminated app gets the batch after it is launched again (by the user or by a location
///   event) and has created its location manager, right after the authorization callback.
///
/// Fixes are measured for an app that cannot take them when a one-shot request completes after the
/// app was suspended, and when a significant change fires for an app that may not be woken or
/// relaunched for it (no always authorization). At most ``PlatformConstants/heldFixLimit`` fixes are
/// held (the oldest are dropped). A force-quit discards what is held, and nothing is held for a
/// force-quit app until the user opens it again.
extension Simulation {
    /// Holds fixes measured while the app cannot take them.
    mutating func hold(_ fixes: [Fix]) {
        guard !(process.state == .notRunning && forceQuitBlocked) else {
            note("dropped \(fixes.count) fix(es): app force-quit")
            return
        }
        heldFixes.append(contentsOf: fixes)
        let excess = heldFixes.count - max(0, constants.heldFixLimit)
        if excess > 0 { heldFixes.removeFirst(excess) }
        note("held \(fixes.count) fix(es) for the app (\(process.state.rawValue)); \(heldFixes.count) waiting")
    }

    /// Delivers the held fixes as one late batch if the app runs and has its location manager.
    mutating func deliverHeldFixes() {
        guard process.isRunning, process.managerCreated, let oldest = heldFixes.first else { return }
        let batch = heldFixes
        heldFixes = []
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
