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

    /// How far beyond a boundary a crossing counts now.
    var regionCrossingDistances: RegionCrossingDistances {
        gnssRunningForApp
            ? RegionCrossingDistances(entry: constants.regionCrossingDistanceWithGNSSMeters, exit: constants.regionCrossingDistanceWithGNSSMeters)
            : RegionCrossingDistances(entry: constants.regionEntryDistanceMeters, exit: constants.regionCrossingDistanceMeters)
    }

    /// The state the system determines for a region now: `unknown` without a position (an outage) or
    /// too near the boundary.
    func determinedRegionState(center: Coordinate, radius: Double) -> RegionState {
        let position = trajectory.position(at: now)
        guard !positioning.isOutage(at: now, position) else { return .unknown }
        return regionCrossingDistances.side(distance: Geodesy.haversineDistance(position, center), radius: radius) ?? .unknown
    }

    /// Registers a region (no checks): used for persisted regions at start and by ``startMonitoring(_:)``.
    ///
    /// A new registration also needs ``PlatformConstants/regionStateDeterminationSeconds`` before a
    /// state request gets an answer other than `unknown`, and then reports its state once
    /// (`didDetermineState`); persisted regions are already determined and reported.
    /// A region registered before authorization (`awaitingAuthorization`) decides nothing until it is
    /// granted, and starts in `unknown`.
    mutating func addRegion(_ region: MonitoredRegion, persisted: Bool = false, awaitingAuthorization: Bool = false) {
        var radius = region.radiusMeters
        if radius < constants.minRegionRadiusMeters {
            radius = max(radius, rng.uniform(constants.smallRegionEffectiveMinMeters, constants.smallRegionEffectiveMaxMeters))
        }
        regions.register(region, effectiveRadius: radius, state: determinedRegionState(center: region.center, radius: radius),
                         determinedAt: persisted ? now : now + constants.regionStateDeterminationSeconds,
                         persisted: persisted, awaitingAuthorization: awaitingAuthorization)
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
        let replacing = regions.monitor(region.identifier) != nil
        guard replacing || regions.count < constants.maxMonitoredRegions else {
            note("region \(region.identifier) rejected: \(constants.maxMonitoredRegions) regions already monitored")
            emit(.regionMonitoringFailed(identifier: region.identifier, reason: .tooManyRegions))
            return
        }
        addRegion(region, awaitingAuthorization: !permissions.locationAuthorized)
        if !permissions.locationAuthorized {
            note("region \(region.identifier) accepted before authorization: it starts working once authorization is granted")
        }
    }

    /// The effective radius the system uses for a region, if monitored.
    public func effectiveRadius(ofRegion identifier: String) -> Double? {
        regions.monitor(identifier)?.effectiveRadius
    }

    /// `requestState(for:)`: `unknown` until the state is determined, before authorization, and
    /// while region monitoring is unavailable; an unmonitored identifier gets no answer.
    mutating func reportRegionState(_ identifier: String) {
        guard let monitor = regions.monitor(identifier) else { return }
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
        guard permissions.locationAuthorized, !regionMonitoringUnavailable, !positioning.isOutage(at: now, truth.coordinate) else {
            // No authorization, no precise position, or no position at all: nothing is decided, and
            // pending crossings restart.
            regions.restartPendingCrossings()
            return
        }
        let results = regions.step(at: now, position: truth.coordinate, distances: regionCrossingDistances, constants: constants)
        for result in results {
            switch result {
            case .authorizationStarted(let identifier):
                note("region \(identifier): authorization granted, monitoring starts")
            case .crossed(let identifier, let enter):
                commitRegionCrossing(identifier, enter: enter)
            case .determined(let identifier, let state, let isCondition):
                // didDetermineState after startMonitoring, once the state is known [S29]; only the
                // registering process hears it.
                if process.isRunning {
                    emit(isCondition ? .monitorEvent(identifier: identifier, state: Self.conditionState(state))
                         : .regionState(identifier: identifier, state: state))
                }
            }
        }
    }
}
