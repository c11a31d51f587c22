import Foundation
import WaymarkEngine
import WaymarkGeo

extension Simulation {
    /// Delivers a region or significant-change event: to a running app directly, waking a suspended
    /// one, or relaunching a terminated one (with always authorization, and not after a force-quit
    /// unless the profile says so).
    mutating func deliverSystemLocationEvent(_ event: DeviceEvent, reason: LaunchReason) {
        switch process.state {
        case .foreground, .background:
            emit(event)
        case .suspended:
            guard permissions.always else {
                note("not delivered: \(event.logName) needs always authorization")
                if case .significantChange(let fix) = event { hold([fix]) }
                return
            }
            wake()
            emit(event)
        case .notRunning:
            guard permissions.always else {
                note("no relaunch: \(event.logName) needs always authorization")
                if case .significantChange(let fix) = event { hold([fix]) }
                return
            }
            guard !forceQuitBlocked || constants.relaunchAfterForceQuit else {
                note("no relaunch after force-quit: \(event.logName) dropped")
                return
            }
            launch(reason)
            emit(event)
        }
    }

    mutating func startSignificantChanges() {
        guard permissions.locationAuthorized else {
            emit(.locationError(.denied))
            return
        }
        if significant == nil { significant = SignificantChanges() }
        let truth = trajectory.state(at: now)
        significant?.lastPosition = truth.coordinate
        significant?.lastTime = now
        emit(.significantChange(significantFix(truth)))
    }

    mutating func significantFix(_ truth: Trajectory.State) -> Fix {
        let range = (constants.significantChangeAccuracyMinMeters, constants.significantChangeAccuracyMaxMeters)
        return measure(truth, source: .cell, range: range, quality: rng.unit())
    }

    /// Fires after ~500 m of movement, at most every 5 min; works while the app is not running.
    mutating func stepSignificantChanges(_ truth: Trajectory.State) {
        guard let s = significant, permissions.locationAuthorized else { return }
        let moved = s.lastPosition.map { Geodesy.haversineDistance($0, truth.coordinate) } ?? .infinity
        guard moved >= constants.significantChangeMeters, now - s.lastTime >= constants.significantChangeIntervalSeconds else { return }
        significant?.lastPosition = truth.coordinate
        significant?.lastTime = now
        let fix = significantFix(truth)
        lastKnownFix = fix
        deliverSystemLocationEvent(.significantChange(fix), reason: .location)
    }
}
