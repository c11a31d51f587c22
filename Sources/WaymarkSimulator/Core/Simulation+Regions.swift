import Foundation
import WaymarkEngine
import WaymarkGeo

extension Simulation {
    /// Registers a region (no checks): used for persisted regions at start and by ``startMonitoring(_:)``.
    ///
    /// The initial state is `unknown` when the system cannot tell the side: the device is within the
    /// buffer of the boundary, or no position is available (an outage: tunnel, underground). A new
    /// registration also needs ``PlatformConstants/regionStateDeterminationSeconds`` before a state
    /// request gets an answer other than `unknown`; persisted regions are already determined.
    mutating func addRegion(_ region: MonitoredRegion, persisted: Bool = false) {
        var radius = min(region.radiusMeters, constants.maxRegionRadiusMeters)
        if radius < constants.minRegionRadiusMeters {
            radius = rng.uniform(constants.smallRegionEffectiveMinMeters, constants.smallRegionEffectiveMaxMeters)
        }
        let position = trajectory.position(at: now)
        let d = Geodesy.haversineDistance(position, region.center)
        let state: RegionState = isOutage(at: now, position) || abs(d - radius) < constants.regionBufferMeters
            ? .unknown : (d < radius ? .inside : .outside)
        regionSerial += 1
        regions.removeAll { $0.region.identifier == region.identifier }
        regions.append(RegionMonitor(region: region, effectiveRadius: radius, state: state, serial: regionSerial,
                                     determinedAt: persisted ? now : now + constants.regionStateDeterminationSeconds))
    }

    mutating func startMonitoring(_ region: MonitoredRegion) {
        guard permissions.locationAuthorized else {
            emit(.regionMonitoringFailed(identifier: region.identifier, reason: .denied))
            return
        }
        let replacing = regions.contains { $0.region.identifier == region.identifier }
        guard replacing || regions.count < constants.maxMonitoredRegions else {
            note("region \(region.identifier) rejected: \(constants.maxMonitoredRegions) regions already monitored")
            emit(.regionMonitoringFailed(identifier: region.identifier, reason: .tooManyRegions))
            return
        }
        addRegion(region)
    }

    /// The effective (clamped) radius the system uses for a region, if monitored.
    public func effectiveRadius(ofRegion identifier: String) -> Double? {
        regions.first { $0.region.identifier == identifier }?.effectiveRadius
    }

    mutating func reportRegionState(_ identifier: String) {
        guard let monitor = regions.first(where: { $0.region.identifier == identifier }) else { return }
        emit(.regionState(identifier: identifier, state: now < monitor.determinedAt ? .unknown : monitor.state))
    }

    /// Commits a crossing once the device has been beyond the boundary by the buffer for the dwell time;
    /// the event follows after the latency.
    mutating func stepRegions(_ truth: Trajectory.State) {
        guard permissions.locationAuthorized, !regions.isEmpty else { return }
        guard !isOutage(at: now, truth.coordinate) else {
            // No position, no decision: undetermined regions stay unknown, pending crossings restart.
            for i in regions.indices { regions[i].candidate = nil }
            return
        }
        for i in regions.indices {
            var m = regions[i]
            let d = Geodesy.haversineDistance(truth.coordinate, m.region.center)
            let beyond: RegionState? = d < m.effectiveRadius - constants.regionBufferMeters ? .inside
                : d > m.effectiveRadius + constants.regionBufferMeters ? .outside : nil
            if let beyond, beyond != m.state {
                if m.candidate != beyond { m.candidate = beyond; m.candidateSince = now }
                if now - m.candidateSince >= constants.regionDwellSeconds {
                    let previous = m.state
                    m.state = beyond
                    m.candidate = nil
                    if previous != .unknown {
                        note("region \(m.region.identifier) crossing committed (\(beyond.rawValue))")
                        schedule(.regionEvent(identifier: m.region.identifier, enter: beyond == .inside, serial: m.serial),
                                 in: constants.regionLatencySeconds)
                    }
                }
            } else {
                m.candidate = nil
            }
            regions[i] = m
        }
    }

    mutating func fireRegionEvent(_ identifier: String, enter: Bool, serial: Int) {
        guard regions.contains(where: { $0.region.identifier == identifier && $0.serial == serial }) else { return }
        deliverSystemLocationEvent(enter ? .regionEntered(identifier: identifier) : .regionExited(identifier: identifier),
                                   reason: .location)
    }

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
