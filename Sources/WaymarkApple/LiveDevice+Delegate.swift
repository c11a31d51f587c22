#if canImport(CoreLocation) && canImport(UIKit) && canImport(UserNotifications)
import CoreLocation
import Foundation
import WaymarkEngine
import WaymarkGeo

extension LiveDevice: CLLocationManagerDelegate {
    public func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {
        emit(.authorizationChanged(LocationAuthorization(
            status: manager.authorizationStatus.waymarkStatus,
            accuracy: manager.accuracyAuthorization == .fullAccuracy ? .full : .reduced,
            servicesEnabled: CLLocationManager.locationServicesEnabled())))
    }

    public func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        let fixes = locations.compactMap(Fix.init(location:))
        if !fixes.isEmpty { emit(.locations(fixes)) }
    }

    public func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {
        let code = (error as? CLError)?.code
        emit(.locationError(code == .denied ? .denied : .locationUnknown))
    }

    public func locationManagerDidPauseLocationUpdates(_ manager: CLLocationManager) {
        emit(.locationUpdatesPaused)
    }

    public func locationManagerDidResumeLocationUpdates(_ manager: CLLocationManager) {
        emit(.locationUpdatesResumed)
    }

    public func locationManager(_ manager: CLLocationManager, didDetermineState state: CLRegionState, for region: CLRegion) {
        let mapped: RegionState = state == .inside ? .inside : state == .outside ? .outside : .unknown
        emit(.regionState(identifier: region.identifier, state: mapped))
    }

    public func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion) {
        emit(.regionEntered(identifier: region.identifier))
    }

    public func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion) {
        emit(.regionExited(identifier: region.identifier))
    }

    public func locationManager(_ manager: CLLocationManager, monitoringDidFailFor region: CLRegion?,
                                withError error: any Error) {
        let code = (error as? CLError)?.code
        let reason: RegionFailure = code == .denied ? .denied
            : code == .regionMonitoringDenied ? .denied
            : code == .regionMonitoringFailure ? .tooManyRegions : .unavailable
        emit(.regionMonitoringFailed(identifier: region?.identifier ?? "", reason: reason))
    }
}

extension Fix {
    /// Converts a CoreLocation fix; nil when the position is invalid (negative horizontal accuracy).
    init?(location: CLLocation) {
        guard location.horizontalAccuracy >= 0,
              let coordinate = try? Coordinate(latitude: location.coordinate.latitude,
                                               longitude: location.coordinate.longitude) else { return nil }
        let source: Fix.Source
        if #available(iOS 15.0, *), location.sourceInformation?.isSimulatedBySoftware == true {
            source = .unknown
        } else {
            source = .fused
        }
        self.init(coordinate: coordinate,
                  altitude: location.verticalAccuracy >= 0 ? location.altitude : nil,
                  horizontalAccuracy: location.horizontalAccuracy,
                  verticalAccuracy: location.verticalAccuracy >= 0 ? location.verticalAccuracy : nil,
                  speed: location.speed >= 0 ? location.speed : nil,
                  course: location.course >= 0 ? location.course : nil,
                  timestamp: location.timestamp,
                  source: source)
    }
}
#endif
