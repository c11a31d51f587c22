import Foundation
import WaymarkEngine
import WaymarkGeo

extension Simulation {
    // MARK: motion (§7)

    mutating func startMotionUpdates() {
        switch permissions.motion {
        case .notDetermined:
            process.motionUpdates = true
            showPrompt(.motion, requires: [.NSMotionUsageDescription])
        case .denied:
            note("motion updates refused: permission denied")
        case .granted:
            process.motionUpdates = true
            deliverCurrentMotion()
        }
    }

    mutating func deliverCurrentMotion() {
        guard let reportedMotion, process.motionUpdates, permissions.motion == .granted else { return }
        process.deliveredMotionSerial = motionSerial
        emit(.motionActivity(reportedMotion))
    }

    /// Updates are not delivered while the app is suspended; when it runs again, an active handler
    /// gets the most recent classification it missed (CMMotionActivityManager behaviour).
    mutating func deliverMotionOnResume() {
        guard motionSerial > process.deliveredMotionSerial else { return }
        deliverCurrentMotion()
    }

    /// The classifier reports the true activity after it has been stable for the lag
    /// (longer for cycling, with lower confidence).
    mutating func stepDerivedMotion(_ truth: Trajectory.State) {
        if truth.activity != motionCandidate {
            motionCandidate = truth.activity
            motionCandidateSince = now
        }
        guard reportedMotion?.kind != motionCandidate else { return }
        let cycling = motionCandidate == .cycling
        let lag = cycling ? constants.motionCyclingLagSeconds : constants.motionLagSeconds
        guard now - motionCandidateSince >= lag else { return }
        let confidence: MotionActivity.Confidence = cycling
            ? (rng.chance(constants.cyclingMediumConfidenceProbability) ? .medium : .low) : .high
        reportedMotion = MotionActivity(motionCandidate, confidence: confidence)
        motionSerial += 1
        if process.isRunning { deliverCurrentMotion() }
    }

    mutating func applyScriptedMotion(_ item: MotionSetup.ScriptedActivity) {
        reportedMotion = MotionActivity(item.activity, confidence: item.confidence ?? .high)
        motionSerial += 1
        if process.isRunning { deliverCurrentMotion() }
    }

    // MARK: network (§10)

    func isOnline(at t: Double) -> Bool {
        !(scenario.world?.network?.offline ?? []).contains { $0.contains(t) }
    }

    mutating func updateReachability() {
        let current = isOnline(at: now)
        guard current != online else { return }
        online = current
        note("network \(current ? "online" : "offline")")
        if process.isRunning { emit(.networkReachability(online: current)) }
    }

    mutating func upload(id: Int, bytes: Int) {
        stats.uploads += 1
        guard isOnline(at: now) else {
            emit(.uploadFinished(id: id, result: .offline))
            return
        }
        if now - lastRadioUse > constants.radioTailSeconds { energy.add(constants.energy.radioWake, to: .radio) }
        energy.add(Double(bytes) / 1024 * constants.energy.radioPerKilobyte, to: .radio)
        lastRadioUse = now
        let server = scenario.world?.network?.server
        let rule = server?.rules?.first { $0.window.contains(now) }
        process.inFlightUploads.append(id)
        if let max = server?.maxBodyBytes, bytes > max {
            schedule(.uploadDone(id: id, result: .status(413), generation: process.generation), in: constants.networkLatencySeconds)
        } else if rule?.timeout == true {
            schedule(.uploadDone(id: id, result: .timedOut, generation: process.generation), in: constants.uploadTimeoutSeconds)
        } else {
            let status = rule?.status ?? server?.defaultStatus ?? 200
            schedule(.uploadDone(id: id, result: .status(status), generation: process.generation), in: constants.networkLatencySeconds)
        }
    }

    mutating func completeUpload(id: Int, result: UploadResult, generation: Int) {
        guard generation == process.generation, let i = process.inFlightUploads.firstIndex(of: id) else { return }
        process.inFlightUploads.remove(at: i)
        emit(.uploadFinished(id: id, result: result))
    }

    mutating func reportCancelledUploads() {
        let cancelled = process.cancelledUploads
        process.cancelledUploads = []
        for id in cancelled { emit(.uploadFinished(id: id, result: .cancelled)) }
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
            if networkSource(trajectory.position(at: now)) == .wifi { wifi = true } else { cell = true }
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
