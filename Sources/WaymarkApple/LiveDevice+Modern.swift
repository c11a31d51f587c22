#if canImport(CoreLocation) && canImport(UIKit) && canImport(UserNotifications)
import CoreLocation
import Foundation
import WaymarkEngine
import WaymarkGeo
import os

/// The iOS 17 services of ``LiveDevice`` (an engine with `EngineCore.Configuration.backend`
/// `.modern` sends these commands): `CLLocationUpdate.liveUpdates`, `CLBackgroundActivitySession`
/// and one `CLMonitor`. Main actor only, like the rest of the device's state.
@MainActor
final class ModernServices {
    /// The task iterating the live updates.
    var live: Task<Void, Never>?
    /// The background activity session: held in a property, because it ends when released
    /// (Apple, `CLBackgroundActivitySession`).
    var session: CLBackgroundActivitySession?
    /// The monitor, once opened; every monitor call goes through ``chain`` so they keep their order.
    var monitor: CLMonitor?
    /// The last monitor operation: the next one waits for it.
    var chain: Task<Void, Never>?
    /// The task reading the monitor's events.
    var monitorEvents: Task<Void, Never>?

    /// Nothing running yet; made with the device, on any thread.
    nonisolated init() {}
}

extension LiveDevice {
    /// The name of the app's monitor (one per name per app, Apple `CLMonitor`).
    static let monitorName = "waymark"

    /// Performs one of the iOS 17 commands; false for any other command.
    @MainActor
    func performModern(_ command: DeviceCommand) -> Bool {
        switch command {
        case .startLiveUpdates(let configuration):
            modern.live?.cancel()
            let sink = sink
            let updates = CLLocationUpdate.liveUpdates(configuration.clConfiguration)
            // Iterated off the main actor: the sequence's elements are Sendable values, and the
            // events go through the sink's own queue, in order.
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
            // Must be created while the app is in use; iOS then keeps a when-in-use app in use in
            // the background, with the indicator (Apple, `CLBackgroundActivitySession`).
            if modern.session == nil { modern.session = CLBackgroundActivitySession() }
        case .endBackgroundActivitySession:
            modern.session?.invalidate()
            modern.session = nil
        case .openMonitor:
            monitorOperation { _ in }
        case .addMonitorCondition(let region):
            let condition = CLMonitor.CircularGeographicCondition(
                center: CLLocationCoordinate2D(latitude: region.center.latitude, longitude: region.center.longitude),
                radius: max(0, region.radiusMeters.isFinite ? region.radiusMeters : 0))
            monitorOperation { await $0.add(condition, identifier: region.identifier) }
        case .removeMonitorCondition(let identifier):
            monitorOperation { await $0.remove(identifier) }
        case .requestMonitorState(let identifier):
            let sink = sink
            monitorOperation { monitor in
                let state = await monitor.record(for: identifier)?.lastEvent.state
                sink.emit(.monitorEvent(identifier: identifier, state: state.map(MonitorConditionState.init) ?? .unmonitored))
            }
        case .beginServiceSession, .endServiceSession:
            // CLServiceSession is iOS 18; the iOS 17.4 SDK this package compiles against lacks it.
            LiveDevice.log.info("service sessions need the iOS 18 SDK; ignored")
        default:
            return false
        }
        return true
    }

    /// Runs `body` on the monitor after every earlier monitor operation, opening it first. Opening
    /// starts reading its events: Core Location delivers the events that came while the app was
    /// not running to the monitor opened at launch (Apple, `CLMonitor`).
    @MainActor
    private func monitorOperation(_ body: @escaping @Sendable (CLMonitor) async -> Void) {
        let previous = modern.chain
        let sink = sink
        let services = modern
        modern.chain = Task { @MainActor in
            await previous?.value
            let monitor: CLMonitor
            if let open = services.monitor {
                monitor = open
            } else {
                monitor = await CLMonitor(LiveDevice.monitorName)
                services.monitor = monitor
                services.monitorEvents = Task.detached {
                    do {
                        for try await event in await monitor.events {
                            sink.emit(.monitorEvent(identifier: event.identifier, state: MonitorConditionState(event.state)))
                        }
                    } catch {
                        LiveDevice.log.error("monitor events ended: \(error.localizedDescription, privacy: .public)")
                    }
                }
            }
            await body(monitor)
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
