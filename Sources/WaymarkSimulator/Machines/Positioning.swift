import Foundation
import WaymarkEngine
import WaymarkGeo

/// What positioning can deliver where and when (PLATFORM.md §3, §9): the sources a request uses,
/// their accuracies, GNSS outages, urban areas and places without Wi-Fi.
///
/// A read-only value the simulation makes once from its scenario and hands to ``LocationService``
/// on every step; it holds no state and draws no random numbers.
struct Positioning: Sendable {
    let constants: PlatformConstants
    let world: World?
    /// The device's true path.
    let trajectory: Trajectory
    /// The wall-clock time of virtual second 0.
    let epoch: Date

    /// Converts virtual seconds to a date.
    func date(_ t: Double) -> Date { epoch.addingTimeInterval(t) }

    /// The source a request with `accuracy` uses; `precise` is whether Precise Location is on (or
    /// reduced accuracy does not exist on this iOS).
    func sourceClass(_ accuracy: DesiredAccuracy, precise: Bool) -> SourceClass {
        SourceClass(accuracy, precise: precise || !constants.reducedAccuracyAvailable)
    }

    /// Whether GNSS is out at time `t` and `point` (``World/outages``).
    func isOutage(at t: Double, _ point: Coordinate) -> Bool {
        (world?.outages ?? []).contains { outage in
            (outage.window?.contains(t) ?? true) && (outage.area?.contains(point) ?? true)
        }
    }

    /// Whether `point` is in an urban area (``World/urbanAreas``): GNSS is worse, cell towers denser.
    func isUrban(_ point: Coordinate) -> Bool {
        (world?.urbanAreas ?? []).contains { $0.contains(point) }
    }

    /// Whether Wi-Fi positioning works at a point: everywhere except in ``World/noWifiAreas``.
    func wifiAvailable(_ point: Coordinate) -> Bool {
        !(world?.noWifiAreas ?? []).contains { $0.contains(point) }
    }

    /// The source of a fix that does not come from GNSS (a coarse request, a receiver still
    /// acquiring, the outage fall-back): Wi-Fi where available, else cell towers.
    ///
    /// For kilometer and threeKilometers, Core Location "typically provides more accurate data than
    /// you have requested … you may receive accuracy within a hundred meters or so" (Apple, Energy
    /// Efficiency Guide [S37]): Wi-Fi-level fixes (a typical one is ±65 m, [S39]) at Wi-Fi cost;
    /// cell-only fixes of 500–3000 m only where no Wi-Fi is known.
    func networkSource(_ point: Coordinate) -> Fix.Source {
        wifiAvailable(point) ? .wifi : .cell
    }

    /// The range of reported accuracies of a source.
    func accuracyRange(_ source: Fix.Source, urban: Bool) -> (Double, Double) {
        switch source {
        case .gnss where urban: (constants.gnssUrbanAccuracyMinMeters, constants.gnssUrbanAccuracyMaxMeters)
        case .gnss: (constants.gnssAccuracyMinMeters, constants.gnssAccuracyMaxMeters)
        case .wifi: (constants.wifiAccuracyMinMeters, constants.wifiAccuracyMaxMeters)
        default: (constants.cellAccuracyMinMeters, constants.cellAccuracyMaxMeters)
        }
    }

    /// The range of reported accuracies without Precise Location.
    var reducedRange: (Double, Double) { (constants.reducedAccuracyMinMeters, constants.reducedAccuracyMaxMeters) }
}

/// What the rest of the simulation tells the location service for one step.
struct LocationStep {
    /// Virtual seconds now.
    var now: Double
    /// The device's true state now.
    var truth: Trajectory.State
    /// Whether Precise Location is on.
    var precise: Bool
    /// Whether location is authorized.
    var authorized: Bool
}

/// What a step of the location service asks the simulation to do, in order.
enum LocationOutput: Sendable, Equatable {
    /// Tell the app (the simulation delivers it, or holds it while the app cannot take it).
    case event(DeviceEvent)
    /// A line for the log.
    case note(String)
    /// Standard (or live) updates just paused: a background app may now be suspended.
    case paused
    /// iOS resumed paused live updates because the device moves: it wakes a suspended app that
    /// may run live updates in the background.
    case resumedByMovement
    /// A fix was measured but the distance filter kept it from the app.
    case suppressedByDistanceFilter
}
