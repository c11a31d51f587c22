import Foundation
import WaymarkEngine
import WaymarkGeo

/// Region monitoring as iOS does it (legacy `CLLocationManager` API; PLATFORM.md §5, issue #14).
///
/// **Registration.** At most ``PlatformConstants/maxMonitoredRegions`` regions, shared with the host
/// app. A radius above ``PlatformConstants/maxRegionRadiusMeters`` fails with
/// ``RegionFailure/radiusTooLarge`` — iOS does not clamp [S26][S30]; radii under
/// ``PlatformConstants/minRegionRadiusMeters`` behave like about 200 m [S27]. Denied or restricted
/// authorization fails with ``RegionFailure/denied``; a region registered while authorization is
/// still notDetermined is accepted and starts working once it is granted [S30]. Under reduced
/// accuracy (Precise off) region monitoring is unavailable [S9]: a registration fails with
/// ``RegionFailure/unavailable``; with Background App Refresh off (or Low Power Mode) a registration
/// fails with ``RegionFailure/denied`` [S31]. In both cases regions already registered stay registered but decide and deliver
/// nothing (no failure callback: Apple documents none, and the Settings change that turns Precise
/// off terminates a running app anyway [S13]); events that come due meanwhile are dropped; they work
/// again, from the state they had, once full accuracy returns (also a temporary grant).
///
/// **Crossings.** A crossing counts once the device is beyond the boundary by a system distance and
/// has stayed there ``PlatformConstants/regionDwellSeconds`` [S27]: exits
/// ``PlatformConstants/regionCrossingDistanceMeters`` outside (about 200 m), entries
/// ``PlatformConstants/regionEntryDistanceMeters`` inside (at most half the effective radius), both
/// ``PlatformConstants/regionCrossingDistanceWithGNSSMeters`` while GNSS already runs for the app
/// [S28]. A new region's state is `unknown` while the device is within those distances of the
/// boundary or without a position (an outage). No event fires for the side a region starts on.
///
/// **Events** (see `Simulation+RegionDelivery`): late by a drawn latency, sometimes missed, held
/// while offline, entries held after a push launch (a setting); each enter or exit comes with
/// `didDetermineState` (`.regionState`), which also fires once after a registration when the state
/// is known [S29].
extension Simulation {
    /// Why region monitoring is unavailable now, or nil: the app has reduced accuracy [S9], or
    /// Background App Refresh is off for it (in Settings, or by Low Power Mode [S31]), with which
    /// region monitoring fails with `kCLErrorRegionMonitoringDenied` (rdar 16078124 [S31]; field
    /// evidence, so the setting ``PlatformConstants/regionMonitoringNeedsBackgroundRefresh``).
    var regionMonitoringUnavailableReason: String? {
        if sourceClass(.best) == .reduced { return "reduced accuracy" }
        if constants.regionMonitoringNeedsBackgroundRefresh, !backgroundRefreshAvailable {
            return scenario.device?.lowPowerMode == true ? "Low Power Mode turns Background App Refresh off"
                : "Background App Refresh is off"
        }
        return nil
    }

    /// Whether region monitoring is unavailable (see ``regionMonitoringUnavailableReason``).
    var regionMonitoringUnavailable: Bool { regionMonitoringUnavailableReason != nil }

    /// Whether GNSS already runs for the app: standard updates with a GNSS-class desired accuracy,
    /// producing. Crossings then count at ``PlatformConstants/regionCrossingDistanceWithGNSSMeters`` [S28].
    var gnssRunningForApp: Bool {
        guard standardProducing, let s = standard else { return false }
        return sourceClass(s.config.desiredAccuracy) == .gnss
    }

    /// How far outside the boundary an exit counts now.
    var regionExitDistance: Double {
        gnssRunningForApp ? constants.regionCrossingDistanceWithGNSSMeters : constants.regionCrossingDistanceMeters
    }

    /// How far inside the boundary of a region of `radius` an entry counts now.
    func regionEntryDepth(radius: Double) -> Double {
        min(gnssRunningForApp ? constants.regionCrossingDistanceWithGNSSMeters : constants.regionEntryDistanceMeters,
            radius / 2)
    }

    /// The side the system can commit to at `distance` from the centre of a region of `radius`, or nil
    /// while the device is too near the boundary to tell.
    func decidedRegionSide(distance d: Double, radius: Double) -> RegionState? {
        if d < radius - regionEntryDepth(radius: radius) { return .inside }
        if d > radius + regionExitDistance { return .outside }
        return nil
    }

    /// The state the system determines for a region now: `unknown` without a position (an outage) or
    /// too near the boundary.
    func determinedRegionState(center: Coordinate, radius: Double) -> RegionState {
        let position = trajectory.position(at: now)
        guard !isOutage(at: now, position) else { return .unknown }
        return decidedRegionSide(distance: Geodesy.haversineDistance(position, center), radius: radius) ?? .unknown
    }

    /// Registers a region (no checks): used for persisted regions at start and by ``startMonitoring(_:)``.
    ///
    /// A new registration also needs ``PlatformConstants/regionStateDeterminationSeconds`` before a
    /// state request gets an answer other than `unknown`, and then reports its state once
    /// (`didDetermineState`); persisted regions are already determined and reported.
    mutating func addRegion(_ region: MonitoredRegion, persisted: Bool = false) {
        var radius = region.radiusMeters
        if radius < constants.minRegionRadiusMeters {
            radius = max(radius, rng.uniform(constants.smallRegionEffectiveMinMeters, constants.smallRegionEffectiveMaxMeters))
        }
        let state = determinedRegionState(center: region.center, radius: radius)
        regionSerial += 1
        regions.removeAll { $0.region.identifier == region.identifier }
        var monitor = RegionMonitor(region: region, effectiveRadius: radius, state: state, serial: regionSerial,
                                    determinedAt: persisted ? now : now + constants.regionStateDeterminationSeconds)
        monitor.registrationStateReported = persisted
        regions.append(monitor)
    }

    /// `startMonitoring(for:)`: the checks iOS makes, in order, then the registration.
    mutating func startMonitoring(_ region: MonitoredRegion) {
        let status = permissions.authorization.status
        if status == .denied || status == .restricted {
            emit(.regionMonitoringFailed(identifier: region.identifier, reason: .denied))
            return
        }
        if let reason = regionMonitoringUnavailableReason, sourceClass(.best) != .reduced {
            note("region \(region.identifier) rejected: region monitoring denied (\(reason))")
            emit(.regionMonitoringFailed(identifier: region.identifier, reason: .denied))
            return
        }
        if regionMonitoringUnavailable || constants.maxRegionRadiusMeters < 0 {
            note("region \(region.identifier) rejected: region monitoring unavailable"
                 + (regionMonitoringUnavailableReason.map { " (\($0))" } ?? ""))
            emit(.regionMonitoringFailed(identifier: region.identifier, reason: .unavailable))
            return
        }
        if region.radiusMeters > constants.maxRegionRadiusMeters {
            note("region \(region.identifier) rejected: radius \(Int(region.radiusMeters)) m over the maximum")
            emit(.regionMonitoringFailed(identifier: region.identifier, reason: .radiusTooLarge))
            return
        }
        let replacing = regions.contains { $0.region.identifier == region.identifier }
        guard replacing || regions.count < constants.maxMonitoredRegions else {
            note("region \(region.identifier) rejected: \(constants.maxMonitoredRegions) regions already monitored")
            emit(.regionMonitoringFailed(identifier: region.identifier, reason: .tooManyRegions))
            return
        }
        addRegion(region)
        if !permissions.locationAuthorized {
            note("region \(region.identifier) accepted before authorization: it starts working once authorization is granted")
            regions[regions.count - 1].awaitingAuthorization = true
            regions[regions.count - 1].state = .unknown
        }
    }

    /// The effective radius the system uses for a region, if monitored.
    public func effectiveRadius(ofRegion identifier: String) -> Double? {
        regions.first { $0.region.identifier == identifier }?.effectiveRadius
    }

    /// `requestState(for:)`: `unknown` until the state is determined, before authorization, and
    /// while region monitoring is unavailable; an unmonitored identifier gets no answer.
    mutating func reportRegionState(_ identifier: String) {
        guard let monitor = regions.first(where: { $0.region.identifier == identifier }) else { return }
        let known = now >= monitor.determinedAt && !monitor.awaitingAuthorization
            && permissions.locationAuthorized && !regionMonitoringUnavailable
        let state = known ? monitor.state : .unknown
        emit(monitor.isCondition ? .monitorEvent(identifier: identifier, state: Self.conditionState(state))
             : .regionState(identifier: identifier, state: state))
    }

    /// One tick of region monitoring: delivers held events that may go now, then commits crossings
    /// once the device has been beyond the crossing distance for the dwell time; the event follows
    /// after the latency (`Simulation+RegionDelivery`).
    mutating func stepRegions(_ truth: Trajectory.State) {
        trackPushLaunch()
        guard !regions.isEmpty else { return }
        flushHeldRegionEvents()
        guard permissions.locationAuthorized, !regionMonitoringUnavailable, !isOutage(at: now, truth.coordinate) else {
            // No authorization, no precise position, or no position at all: nothing is decided, and
            // pending crossings restart.
            for i in regions.indices { regions[i].candidate = nil }
            return
        }
        for i in regions.indices {
            var m = regions[i]
            let d = Geodesy.haversineDistance(truth.coordinate, m.region.center)
            if m.awaitingAuthorization {
                m.awaitingAuthorization = false
                m.state = decidedRegionSide(distance: d, radius: m.effectiveRadius) ?? .unknown
                m.determinedAt = now + constants.regionStateDeterminationSeconds
                m.registrationStateReported = false
                note("region \(m.region.identifier): authorization granted, monitoring starts")
            }
            if let beyond = decidedRegionSide(distance: d, radius: m.effectiveRadius), beyond != m.state {
                if m.candidate != beyond { m.candidate = beyond; m.candidateSince = now }
                if now - m.candidateSince >= constants.regionDwellSeconds {
                    let previous = m.state
                    m.state = beyond
                    m.candidate = nil
                    if previous != .unknown { commitRegionCrossing(&m, enter: beyond == .inside) }
                }
            } else {
                m.candidate = nil
            }
            if !m.registrationStateReported, now >= m.determinedAt, m.state != .unknown {
                // didDetermineState after startMonitoring, once the state is known [S29]; only the
                // registering process hears it.
                m.registrationStateReported = true
                if process.isRunning {
                    emit(m.isCondition ? .monitorEvent(identifier: m.region.identifier, state: Self.conditionState(m.state))
                         : .regionState(identifier: m.region.identifier, state: m.state))
                }
            }
            regions[i] = m
        }
    }
}
