#if canImport(CoreLocation) && canImport(UIKit) && canImport(UserNotifications)
import CoreLocation
import Foundation
import UIKit
import WaymarkEngine
import WaymarkGeo
import os

/// The iOS 17 services of ``LiveDevice`` (an engine with `EngineCore.Configuration.backend`
/// `.modern` sends these commands): `CLLocationUpdate.liveUpdates`, `CLBackgroundActivitySession`,
/// one `CLMonitor` and, on iOS 18, an explicit `CLServiceSession`. Main actor only, like the rest
/// of the device's state.
@MainActor
final class ModernServices {
    /// The task iterating the live updates.
    var live: Task<Void, Never>?
    /// The background activity session: held in a property, because it ends when released
    /// (Apple, `CLBackgroundActivitySession`).
    var session: CLBackgroundActivitySession?
    /// The `CLServiceSession` (iOS 18), held for the same reason; typed `Sendable` because a stored
    /// property cannot be iOS 18 only.
    var serviceSession: (any Sendable)?
    /// The task logging the service session's diagnostics.
    var serviceDiagnostics: Task<Void, Never>?
    /// The monitor, once created (creating it iterates nothing); every monitor call goes through
    /// ``chain`` so they keep their order.
    var monitor: CLMonitor?
    /// The last monitor operation: the next one waits for it.
    var chain: Task<Void, Never>?
    /// The task reading the monitor's events, once `openMonitor` asked for them.
    var monitorEvents: Task<Void, Never>?

    /// Nothing running yet; made with the device, on any thread.
    nonisolated init() {}
}

extension LiveDevice {
    /// The name of the app's monitor (one per name per app, Apple `CLMonitor`).
    static let monitorName = "waymark"
    /// The `UserDefaults` key remembering that this app has opened its monitor: only then is there
    /// one whose conditions ``monitoredRegionIdentifiers()`` must report.
    static let monitorUsedKey = "waymark.monitor.opened"

    /// Performs one of the iOS 17 commands; false for any other command.
    @MainActor
    func performModern(_ command: DeviceCommand) -> Bool {
        switch command {
        case .startLiveUpdates(let configuration):
            modern.live?.cancel()
            let sink = sink
            let updates = CLLocationUpdate.liveUpdates(configuration.clConfiguration)
            // Iterated off the main actor: the sequence's elements are Sendable values, and the
            // events go through the sink's own queue, in order. While the device is stationary no
            // update may come for a long time, so the task is cancelled (stopLiveUpdates) rather
            // than left to notice a flag at the next update (review 2, L5; verify on device that
            // the sequence ends at once when its task is cancelled).
            modern.live = Task.detached {
                do {
                    for try await update in updates {
                        if Task.isCancelled { return }
                        sink.emit(.liveUpdate(LiveUpdate(fix: update.location.flatMap(Fix.init(location:)),
                                                         isStationary: update.reportsStationary)))
                    }
                } catch {
                    LiveDevice.log.error("live updates ended: \(error.localizedDescription, privacy: .public)")
                }
            }
        case .stopLiveUpdates:
            modern.live?.cancel()
            modern.live = nil
        case .beginBackgroundActivitySession:
            beginBackgroundActivitySession()
        case .endBackgroundActivitySession:
            modern.session?.invalidate()
            modern.session = nil
        case .openMonitor:
            UserDefaults.standard.set(true, forKey: Self.monitorUsedKey)
            monitorOperation { _ in }
            startMonitorEvents()
        case .addMonitorCondition(let region):
            // As on the legacy path: no condition where the device cannot monitor, and the radius
            // clamped to maximumRegionMonitoringDistance (review 2, L4; CoreLocationRules.regionRadius).
            guard CLLocationManager.isMonitoringAvailable(for: CLCircularRegion.self),
                  let radius = CoreLocationRules.regionRadius(requested: region.radiusMeters,
                                                              maximum: maximumRegionMonitoringDistance) else {
                emit(.regionMonitoringFailed(identifier: region.identifier, reason: .unavailable))
                return true
            }
            let condition = CLMonitor.CircularGeographicCondition(
                center: CLLocationCoordinate2D(latitude: region.center.latitude, longitude: region.center.longitude),
                radius: radius)
            monitorOperation { await $0.add(condition, identifier: region.identifier) }
        case .removeMonitorCondition(let identifier):
            monitorOperation { await $0.remove(identifier) }
        case .requestMonitorState(let identifier):
            let sink = sink
            monitorOperation { monitor in
                // No record: the monitor does not hold the condition (never added, or removed by the
                // host app). Answered unknown, as the legacy path answers an unknown region, so one
                // missing record never reads as a failure of all monitoring (review 2, M2).
                let state = await monitor.record(for: identifier)?.lastEvent.state
                sink.emit(.monitorEvent(identifier: identifier, state: state.map(MonitorConditionState.init) ?? .unknown))
            }
        case .beginServiceSession(let goal):
            beginServiceSession(goal)
        case .endServiceSession:
            endServiceSession()
        default:
            return false
        }
        return true
    }

    /// Begins the `CLBackgroundActivitySession` (review 2, M5). It keeps a when-in-use app in use in
    /// the background, with the indicator, and must be created while the app is in use, or
    /// re-created at once after a background relaunch (Apple, `CLBackgroundActivitySession`; WWDC23
    /// 10180): begun only while the app is active or in a background launch's first seconds, and a
    /// refusal is logged as a fault and reported as `DeviceEvent.backgroundActivitySessionRefused`
    /// (the engine asks again when the app is next in use; until then its updates stop in the
    /// background, as the simulator shows). An Always app needs no session for background updates, and the session
    /// forces the indicator on (Ikolvi/Tracelet#69), so it is skipped when the app chose
    /// `showsBackgroundLocationIndicator: false`.
    @MainActor
    private func beginBackgroundActivitySession() {
        guard modern.session == nil else { return }
        if !showsBackgroundLocationIndicator, mainManager().authorizationStatus == .authorizedAlways {
            Self.log.info("background activity session skipped: Always authorization, no indicator wanted")
            return
        }
        let active = UIApplication.shared.applicationState == .active
        let relaunching = backgroundLaunchWindowEnd.map { Date() < $0 } ?? false
        guard active || relaunching else {
            Self.log.fault("background activity session refused: it must be created while the app is in use (or right after a background relaunch)")
            // The engine asks again when the app is next in use; the app hears it through
            // engine.system.events (review 2, M5).
            emit(.backgroundActivitySessionRefused)
            return
        }
        modern.session = CLBackgroundActivitySession()
    }

    /// Holds an explicit `CLServiceSession` with `goal` (iOS 18), replacing any held one; the
    /// engine's adapter asks only for the goal the app is already authorized for, so it never
    /// prompts, and again after every launch (WWDC24 10212). Its diagnostics are logged. On iOS 17
    /// there are no service sessions, and nothing to hold.
    @MainActor
    private func beginServiceSession(_ goal: ServiceSessionGoal) {
        endServiceSession()
        guard #available(iOS 18, *) else {
            Self.log.info("service sessions are iOS 18; nothing to hold on this system")
            return
        }
        let session = CLServiceSession(authorization: goal.clRequirement)
        modern.serviceSession = session
        modern.serviceDiagnostics = Task.detached {
            do {
                for try await diagnostic in session.diagnostics {
                    if diagnostic.serviceSessionRequired || diagnostic.insufficientlyInUse || diagnostic.authorizationDenied
                        || diagnostic.alwaysAuthorizationDenied {
                        LiveDevice.log.notice("""
                            service session: required \(diagnostic.serviceSessionRequired), insufficiently in use \(diagnostic.insufficientlyInUse), \
                            denied \(diagnostic.authorizationDenied), always denied \(diagnostic.alwaysAuthorizationDenied)
                            """)
                    }
                }
            } catch {
                LiveDevice.log.error("service session diagnostics ended: \(error.localizedDescription, privacy: .public)")
            }
        }
    }

    @MainActor
    private func endServiceSession() {
        modern.serviceDiagnostics?.cancel()
        modern.serviceDiagnostics = nil
        if #available(iOS 18, *), let session = modern.serviceSession as? CLServiceSession { session.invalidate() }
        modern.serviceSession = nil
    }

    /// The monitor's condition identifiers, when this app has opened its monitor before (creating
    /// the `CLMonitor` object iterates nothing, so it raises no prompt); nil otherwise.
    func monitorIdentifiers() async -> Set<String>? {
        guard let monitor = await usedMonitor() else { return nil }
        return Set(await monitor.identifiers)
    }

    /// The circular condition the monitor holds under `identifier` (its centre and radius: Apple,
    /// `CLMonitor.record(for:)`, `CLMonitor.CircularGeographicCondition`), when this app has opened
    /// its monitor before; nil otherwise.
    func monitorRegion(identifier: String) async -> MonitoredRegion? {
        guard let monitor = await usedMonitor(), let record = await monitor.record(for: identifier),
              let circle = record.condition as? CLMonitor.CircularGeographicCondition else { return nil }
        return MonitoredRegion(identifier: identifier,
                               center: Coordinate(uncheckedLatitude: circle.center.latitude, longitude: circle.center.longitude),
                               radiusMeters: circle.radius)
    }

    /// The app's monitor, opened after every earlier monitor operation, when this app has opened it
    /// before (creating the `CLMonitor` object iterates nothing, so it raises no prompt); nil otherwise.
    private func usedMonitor() async -> CLMonitor? {
        guard UserDefaults.standard.bool(forKey: Self.monitorUsedKey) else { return nil }
        return await MainActor.run { () -> Task<CLMonitor, Never> in
            let previous = modern.chain
            let services = modern
            let opening = Task { @MainActor () -> CLMonitor in
                await previous?.value
                return await LiveDevice.monitor(in: services)
            }
            modern.chain = Task { _ = await opening.value }
            return opening
        }.value
    }

    /// The services' monitor, created on first use.
    @MainActor
    private static func monitor(in services: ModernServices) async -> CLMonitor {
        if let open = services.monitor { return open }
        let monitor = await CLMonitor(LiveDevice.monitorName)
        services.monitor = monitor
        return monitor
    }

    /// Runs `body` on the monitor after every earlier monitor operation, creating it first.
    @MainActor
    private func monitorOperation(_ body: @escaping @Sendable (CLMonitor) async -> Void) {
        let previous = modern.chain
        let services = modern
        modern.chain = Task { @MainActor in
            await previous?.value
            await body(await LiveDevice.monitor(in: services))
        }
    }

    /// Starts reading the monitor's events, once per process: Core Location delivers the events
    /// that came while the app was not running to the monitor opened at launch (Apple, `CLMonitor`).
    /// A loop that ends or throws is opened again a second later, so monitoring never goes deaf
    /// for the rest of the process (review 2, L5).
    @MainActor
    private func startMonitorEvents() {
        guard modern.monitorEvents == nil else { return }
        let sink = sink
        let services = modern
        let opened = modern.chain
        modern.monitorEvents = Task.detached {
            await opened?.value
            guard let monitor = await services.monitor else { return }
            while !Task.isCancelled {
                do {
                    for try await event in await monitor.events {
                        sink.emit(.monitorEvent(identifier: event.identifier, state: MonitorConditionState(event.state)))
                    }
                    LiveDevice.log.error("monitor events ended; reopening")
                } catch {
                    LiveDevice.log.error("monitor events failed: \(error.localizedDescription, privacy: .public); reopening")
                }
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }
}

extension ServiceSessionGoal {
    /// The CoreLocation requirement.
    @available(iOS 18, *)
    var clRequirement: CLServiceSession.AuthorizationRequirement {
        switch self {
        case .none: .none
        case .whenInUse: .whenInUse
        case .always: .always
        }
    }
}

extension LiveUpdateConfiguration {
    /// The CoreLocation configuration.
    var clConfiguration: CLLocationUpdate.LiveConfiguration {
        switch self {
        case .default: .default
        case .automotiveNavigation: .automotiveNavigation
        case .otherNavigation: .otherNavigation
        case .fitness: .fitness
        case .airborne: .airborne
        }
    }
}

extension MonitorConditionState {
    /// The seam's state for a monitor event's state; `unmonitored` (iOS 17.2) and any newer state
    /// mean the condition is not monitored.
    init(_ state: CLMonitor.Event.State) {
        switch state {
        case .satisfied: self = .satisfied
        case .unsatisfied: self = .unsatisfied
        case .unknown: self = .unknown
        default: self = .unmonitored
        }
    }
}

/// `CLLocationUpdate.isStationary` is deprecated for every version in the iOS 26 SDK and its
/// replacement, `stationary`, is iOS 18 only. Reading the old name through this protocol (which the
/// type already satisfies) keeps the iOS 17 path without a deprecation warning.
private protocol StationaryOnIOS17 {
    var isStationary: Bool { get }
}

extension CLLocationUpdate: StationaryOnIOS17 {}

extension CLLocationUpdate {
    /// Whether the device is still and updates have paused (Apple, `CLLocationUpdate.stationary`;
    /// `isStationary` before iOS 18).
    var reportsStationary: Bool {
        if #available(iOS 18, *) { return stationary }
        return (self as any StationaryOnIOS17).isStationary
    }
}

#endif
