import Foundation
import WaymarkEngine

extension Simulation {
    /// The virtual time at which the app's timer fires next: its deadline, or now if that has
    /// passed (a timer that came due while the app was suspended fires when it runs again).
    /// Nil while the process is not running, when the app has no deadline, or when this deadline
    /// already fired (an app that does not move its deadline is not woken in a loop).
    var dueAppDeadline: Double? {
        guard process.isRunning, let deadline = app?.nextDeadline, deadline != firedAppDeadline else { return nil }
        return max(now, deadline.timeIntervalSince(epoch))
    }

    /// Fires the app's timer now and performs the commands it answers with.
    mutating func fireAppDeadline() {
        guard var current = app, let deadline = current.nextDeadline else { return }
        firedAppDeadline = deadline
        note("app timer fired")
        app = nil   // keep the app's storage uniquely referenced
        let commands = current.handleDeadline(at: date(now))
        app = current
        for command in commands { apply(command) }
    }
}
