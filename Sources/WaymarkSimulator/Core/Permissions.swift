import Foundation
import WaymarkEngine
import WaymarkGeo

/// Device-level permission state (persists across launches).
struct Permissions: Hashable, Sendable {
    var location: LocationAuthorizationStatus = .notDetermined
    /// The user's Precise Location switch.
    var preciseSetting = true
    var servicesEnabled = true
    var allowOnce = false
    var alwaysUpgradeShown = false
    var notifications: DeviceSetup.PermissionSetting = .notDetermined
    var motion: DeviceSetup.PermissionSetting = .notDetermined

    // Permission fidelity (issue #14).
    /// Notifications granted provisionally (quiet delivery, no prompt yet) [S47].
    var notificationsProvisional = false
    /// The visible when-in-use prompt was raised by `requestAlwaysAuthorization`: "Allow While
    /// Using" then gives provisional Always [S5].
    var whenInUsePromptForAlways = false
    /// The app reads `authorizedAlways` but the user chose "Allow While Using": iOS asks the user to
    /// confirm the first time the app uses location while not in use [S5][S6].
    var provisionalAlways = false
    /// The visible `locationAlways` prompt is that confirmation, not the upgrade prompt.
    var confirmingProvisionalAlways = false
    /// Location events for a not-in-use app held while the user decides on provisional Always;
    /// delivered on "Change to Always Allow", dropped on "Keep Only While Using" [S5].
    var heldForAlwaysConfirmation: [DeviceEvent] = []
    /// Temporary full accuracy granted over the user's approximate setting [S10].
    var temporaryFullAccuracy = false
    /// When the app stopped being in use while a temporary grant (Allow Once, temporary full
    /// accuracy) is held; nil while in use or with no such grant [S8].
    var outOfUseSince: Double?

    /// Effective precise accuracy: the user's switch, or a temporary full-accuracy grant. Setting it
    /// sets the user's switch.
    var precise: Bool {
        get { preciseSetting || temporaryFullAccuracy }
        set { preciseSetting = newValue }
    }

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
