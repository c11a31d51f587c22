import Foundation
import WaymarkEngine
import WaymarkGeo

extension Simulation {
    // MARK: motion (§7)

    mutating func startMotionUpdates() {
        switch permissions.motion {
        case .notDetermined:
            process.setMotionUpdates(true)
            showPrompt(.motion, requires: [.NSMotionUsageDescription])
        case .denied:
            note("motion updates refused: permission denied")
        case .granted:
            process.setMotionUpdates(true)
            deliverCurrentMotion()
        }
    }

    mutating func deliverCurrentMotion() {
        guard let current = motion.current, process.motionUpdates, permissions.motion == .granted else { return }
        process.motionDelivered(serial: motion.serial)
        emit(.motionActivity(current))
    }

    /// Updates are not delivered while the app is suspended; when it runs again, an active handler
    /// gets the most recent classification it missed (CMMotionActivityManager behaviour).
    mutating func deliverMotionOnResume() {
        guard motion.serial > process.deliveredMotionSerial else { return }
        deliverCurrentMotion()
    }

    /// One tick of the classifier (``MotionClassifier``); a new classification goes to a running app.
    mutating func stepDerivedMotion(_ truth: Trajectory.State) {
        guard motion.observe(truth.activity, at: now, constants: constants, rng: &rng) != nil else { return }
        if process.isRunning { deliverCurrentMotion() }
    }

    mutating func applyScriptedMotion(_ item: MotionSetup.ScriptedActivity) {
        _ = motion.script(item)
        if process.isRunning { deliverCurrentMotion() }
    }

    // MARK: network (§10)

    /// Whether there is connectivity at `t` (seconds from the start); see ``SimulatedNetwork``.
    public func isOnline(at t: Double) -> Bool { network.isOnline(at: t) }

    mutating func updateReachability() {
        guard let current = link.observe(network, at: now) else { return }
        note("network \(current ? "online" : "offline")")
        if process.isRunning { emit(.networkReachability(online: current)) }
    }

    /// Accounts for one upload the app's queue sent through a ``SimulatedNetworkTransport``: it counts in
    /// ``SimulationStats/uploads``, costs radio energy unless it never left the phone (offline), and is
    /// noted in the timeline. Record transmissions in the order they were sent.
    public mutating func recordTransmission(_ transmission: SimulatedNetworkTransport.Transmission) {
        stats.uploads += 1
        let t = transmission.at.timeIntervalSince(epoch)
        if transmission.verdict != .offline {
            energy.add(link.energy(sending: transmission.bytes, at: t, constants: constants), to: .radio)
        }
        let outcome = switch transmission.verdict {
        case .offline: "failed, offline"
        case .delivered: "passed on to the server"
        case .refused(let status): "refused with HTTP \(status)"
        case .unanswered: "timed out, the server never answered"
        case .replyLost: "timed out, the server's reply was lost"
        }
        log.insertInOrder(EventLog.Entry(t: t, kind: .system, note: "upload of \(transmission.bytes) bytes: \(outcome)"))
    }

    // MARK: energy (§9)

    /// Charges the continuous consumers for `dt` seconds in the current state.
    mutating func chargeContinuousEnergy(for dt: Double) {
        let table = constants.energy
        var sources = Set<SourceClass>()
        if standardProducing, let s = standard { sources.insert(sourceClass(s.config.desiredAccuracy)) }
        for shot in oneShots where !shot.waitingForAuthorization { sources.insert(sourceClass(shot.accuracy)) }
        // A coarse request (kilometer, threeKilometers) costs what positions it: Wi-Fi where
        // available, else the cell radio [S37] (see `networkSource`).
        var wifi = sources.contains(.wifi), cell = sources.contains(.reduced)
        if sources.contains(.cell) {
            if positioning.networkSource(trajectory.position(at: now)) == .wifi { wifi = true } else { cell = true }
        }
        if sources.contains(.gnss) { energy.add(table.gnssPerSecond * dt, to: .gnss) }
        if wifi { energy.add(table.wifiPerSecond * dt, to: .wifi) }
        if cell { energy.add(table.cellPerSecond * dt, to: .cell) }
        if significant != nil, permissions.locationAuthorized { energy.add(table.significantChangePerSecond * dt, to: .significantChange) }
        if !regions.isEmpty, permissions.locationAuthorized { energy.add(table.regionMonitoringPerSecond * dt, to: .regionMonitoring) }
        if process.motionUpdates, process.isRunning, permissions.motion == .granted { energy.add(table.motionPerSecond * dt, to: .motion) }
        if process.isRunning { energy.add(table.idleAppPerSecond * dt, to: .app) }
    }
}
