#if canImport(CoreLocation) && canImport(UIKit) && canImport(UserNotifications)
import CoreLocation
import Foundation
import WaymarkEngine
import WaymarkGeo
import os

/// The delegate of one of ``LiveDevice``'s location managers. Its role, fixed at creation, says
/// which callbacks it forwards: nothing mutable is read in a callback.
///
/// Every manager gets the authorization callback when it is created (Apple,
/// `locationManagerDidChangeAuthorization(_:)`), and regions are shared by all the managers of an
/// app (Apple, `CLLocationManager.monitoredRegions`); only the main manager reports those, so each
/// arrives once.
final class LocationDelegate: NSObject, CLLocationManagerDelegate, Sendable {
    enum Role: Sendable {
        /// Authorization, standard updates, regions.
        case main
        /// Significant-change monitoring only: its fixes are `DeviceEvent.significantChange(_:)`.
        case significantChange
        /// One-shot requests only.
        case oneShot
    }

    let role: Role
    let sink: EventSink

    init(role: Role, sink: EventSink) {
        self.role = role
        self.sink = sink
    }

    func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {
        guard role == .main else { return }
        sink.emitAuthorization(of: manager)
    }

    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        let fixes = locations.compactMap(Fix.init(location:))
        guard !fixes.isEmpty else { return }
        if role == .significantChange {
            for fix in fixes { sink.emit(.significantChange(fix)) }
        } else {
            sink.emit(.locations(fixes))
        }
    }

    /// Only the main and significant-change managers' errors are the location service's; the
    /// one-shot manager's `locationUnknown` is its own timeout (Apple, `requestLocation()`), which
    /// the engine's one-shot wait handles by its deadline, so it is logged, not forwarded as a
    /// failure of the standard updates (review 2, L2).
    func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {
        if role == .oneShot, (error as? CLError)?.code != .denied {
            LiveDevice.log.info("one-shot request failed: \(error.localizedDescription, privacy: .public)")
            return
        }
        if let mapped = CoreLocationRules.locationError(code: (error as? CLError)?.code.rawValue ?? -1) {
            sink.emit(.locationError(mapped))
        }
    }

    func locationManagerDidPauseLocationUpdates(_ manager: CLLocationManager) {
        guard role == .main else { return }
        sink.emit(.locationUpdatesPaused)
    }

    func locationManagerDidResumeLocationUpdates(_ manager: CLLocationManager) {
        guard role == .main else { return }
        sink.emit(.locationUpdatesResumed)
    }

    /// Forwarded on every call: iOS calls it after registration, on `requestState(for:)`, and on
    /// every boundary crossing alongside `didEnterRegion`/`didExitRegion` (Apple,
    /// `locationManager(_:didDetermineState:for:)`: "in addition to calling the delegate's
    /// didEnterRegion and didExitRegion"). The engine takes a state only for an undecided fence,
    /// so a state after an enter or exit changes nothing (WaymarkEngineTests: LiveDeviceEngineTests, stateAfterEveryTransition).
    func locationManager(_ manager: CLLocationManager, didDetermineState state: CLRegionState, for region: CLRegion) {
        guard role == .main else { return }
        let mapped: RegionState = switch state {
        case .inside: .inside
        case .outside: .outside
        case .unknown: .unknown
        @unknown default: .unknown
        }
        sink.emit(.regionState(identifier: region.identifier, state: mapped))
    }

    /// `CLVisit` marks an unknown arrival with `distantPast` and an open visit with `distantFuture`
    /// (Apple, `CLVisit.arrivalDate`, `.departureDate`); the seam uses nil for both.
    func locationManager(_ manager: CLLocationManager, didVisit visit: CLVisit) {
        guard role == .main, let coordinate = try? Coordinate(latitude: visit.coordinate.latitude,
                                                              longitude: visit.coordinate.longitude) else { return }
        sink.emit(.visit(Visit(coordinate: coordinate, horizontalAccuracy: visit.horizontalAccuracy,
                               arrival: visit.arrivalDate == .distantPast ? nil : visit.arrivalDate,
                               departure: visit.departureDate == .distantFuture ? nil : visit.departureDate)))
    }

    func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion) {
        guard role == .main else { return }
        sink.emit(.regionEntered(identifier: region.identifier))
    }

    func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion) {
        guard role == .main else { return }
        sink.emit(.regionExited(identifier: region.identifier))
    }

    /// Setup-delayed and response-delayed are not failures (Apple, `CLError.Code.regionMonitoringSetupDelayed`,
    /// `.regionMonitoringResponseDelayed`): the region keeps working and nothing is reported.
    /// See `CoreLocationRules.regionFailure(code:monitoredRegionCount:monitoringAvailable:)`.
    func locationManager(_ manager: CLLocationManager, monitoringDidFailFor region: CLRegion?,
                         withError error: any Error) {
        guard role == .main else { return }
        let code = (error as? CLError)?.code.rawValue ?? -1
        guard let reason = CoreLocationRules.regionFailure(
            code: code, monitoredRegionCount: manager.monitoredRegions.count,
            monitoringAvailable: CLLocationManager.isMonitoringAvailable(for: CLCircularRegion.self),
            reducedAccuracy: manager.accuracyAuthorization == .reducedAccuracy) else {
            LiveDevice.log.info("region \(region?.identifier ?? "?", privacy: .public): monitoring delayed (CLError \(code)), not failed")
            return
        }
        sink.emit(.regionMonitoringFailed(identifier: region?.identifier ?? "", reason: reason))
    }
}

extension Fix {
    /// Converts a CoreLocation fix; nil when the position is invalid (negative horizontal accuracy).
    ///
    /// The fix's origin comes from `CLLocation.sourceInformation` (iOS 15+, so always available on this
    /// package's iOS 17 floor), an optional: Apple, "Information about the source that provides the
    /// location" (https://developer.apple.com/documentation/corelocation/cllocation/sourceinformation).
    /// `isSimulatedBySoftware` is true "if the system generated the location using on-device software
    /// simulation" (a GPX loaded in the Xcode debugger, a mock-location tool), and `isProducedByAccessory`
    /// is true "if the system retrieved the location from an external accessory attached to the device,
    /// such as a Made for iPhone GPS dongle or CarPlay" (Apple, CLLocationSourceInformation:
    /// https://developer.apple.com/documentation/corelocation/cllocationsourceinformation). A nil
    /// `sourceInformation` stays nil here (unknown), never "not simulated".
    init?(location: CLLocation) {
        guard location.horizontalAccuracy >= 0,
              let coordinate = try? Coordinate(latitude: location.coordinate.latitude,
                                               longitude: location.coordinate.longitude) else { return nil }
        self.init(coordinate: coordinate,
                  altitude: location.verticalAccuracy >= 0 ? location.altitude : nil,
                  horizontalAccuracy: location.horizontalAccuracy,
                  verticalAccuracy: location.verticalAccuracy >= 0 ? location.verticalAccuracy : nil,
                  speed: location.speed >= 0 ? location.speed : nil,
                  course: location.course >= 0 ? location.course : nil,
                  timestamp: location.timestamp,
                  source: .fused,
                  sourceInformation: location.sourceInformation.map {
                      Fix.SourceInformation(isSimulatedBySoftware: $0.isSimulatedBySoftware,
                                            isProducedByAccessory: $0.isProducedByAccessory)
                  })
    }
}
#endif
