import Foundation
import WaymarkEngine
import WaymarkGeo

/// Device-level permission state (persists across launches).
struct Permissions: Hashable, Sendable {
    var location: LocationAuthorizationStatus = .notDetermined
    var precise = true
    var servicesEnabled = true
    var allowOnce = false
    var alwaysUpgradeShown = false
    var notifications: DeviceSetup.PermissionSetting = .notDetermined
    var motion: DeviceSetup.PermissionSetting = .notDetermined

    var authorization: LocationAuthorization {
        guard servicesEnabled else { return LocationAuthorization(status: .denied, accuracy: precise ? .full : .reduced, servicesEnabled: false) }
        return LocationAuthorization(status: location, accuracy: precise ? .full : .reduced)
    }

    var locationAuthorized: Bool {
        servicesEnabled && (location == .authorizedWhenInUse || location == .authorizedAlways)
    }

    var always: Bool { servicesEnabled && location == .authorizedAlways }

    static func rank(_ s: LocationAuthorizationStatus) -> Int {
        switch s {
        case .notDetermined, .restricted, .denied: 0
        case .authorizedWhenInUse: 1
        case .authorizedAlways: 2
        }
    }
}
