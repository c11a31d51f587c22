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
}
