import Foundation
import WaymarkEngine
import WaymarkGeo

/// The system's permission centre (PLATFORM.md §1–§2), owned by ``Simulation``: the device-level
/// permission settings (they persist across launches), the prompt on screen, temporary grants and
/// provisional Always.
///
/// It owns every permission transition: what a prompt's answer, a Settings change, a lapse or a
/// confirmation does to the settings. The simulation decides when those happen (foreground checks,
/// collisions, think time) and tells the app.
struct PermissionCentre: Sendable {
    /// A prompt on screen, with the serial of its showing (an answer to an older showing is ignored).
    struct VisiblePrompt: Sendable {
        var kind: PromptKind
        var serial: Int
    }

    /// What the user's answer to a prompt did.
    enum AnswerEffect: Sendable {
        case notifications(granted: Bool)
        case motion(granted: Bool)
        /// Location authorization changed (or was confirmed as it was); `provisionalAlways` when
        /// "Allow While Using" on a prompt raised for Always gave provisional Always [S5][S6].
        case location(provisionalAlways: Bool)
        /// The answer to the provisional-Always confirmation (``endConfirmation(keepAlways:)`` applies it).
        case confirmation(keepAlways: Bool)
        /// The answer to a temporary-full-accuracy prompt (``grantTemporaryFullAccuracy()`` applies it).
        case temporaryFullAccuracy(granted: Bool)
    }

    private(set) var location: LocationAuthorizationStatus = .notDetermined
    /// The user's Precise Location switch.
    private(set) var preciseSetting = true
    private(set) var servicesEnabled = true
    private(set) var allowOnce = false
    private(set) var alwaysUpgradeShown = false
    private(set) var notifications: DeviceSetup.PermissionSetting = .notDetermined
    private(set) var motion: DeviceSetup.PermissionSetting = .notDetermined
    /// The prompt on screen, if any.
    private(set) var prompt: VisiblePrompt?
    private var promptSerial = 0

    // Permission fidelity (issue #14).
    /// Notifications granted provisionally (quiet delivery, no prompt yet) [S47].
    private(set) var notificationsProvisional = false
    /// The visible when-in-use prompt was raised by `requestAlwaysAuthorization`: "Allow While
    /// Using" then gives provisional Always [S5].
    private(set) var whenInUsePromptForAlways = false
    /// The app reads `authorizedAlways` but the user chose "Allow While Using": iOS asks the user to
    /// confirm the first time the app uses location while not in use [S5][S6].
    private(set) var provisionalAlways = false
    /// The visible `locationAlways` prompt is that confirmation, not the upgrade prompt.
    private(set) var confirmingProvisionalAlways = false
    /// Location events for a not-in-use app held while the user decides on provisional Always;
    /// delivered on "Change to Always Allow", dropped on "Keep Only While Using" [S5].
    private(set) var heldForAlwaysConfirmation: [DeviceEvent] = []
    /// Temporary full accuracy granted over the user's approximate setting [S10].
    private(set) var temporaryFullAccuracy = false
    /// When the app stopped being in use while a temporary grant (Allow Once, temporary full
    /// accuracy) is held; nil while in use or with no such grant [S8].
    private(set) var outOfUseSince: Double?

    /// A fresh install's permissions, or an existing install's stored ones; the Location Services
    /// switch either way.
    init(device: DeviceSetup) {
        if device.install == .existing {
            location = device.location ?? .notDetermined
            preciseSetting = device.preciseLocation ?? true
            notifications = device.notifications ?? .notDetermined
            motion = device.motion ?? .notDetermined
            alwaysUpgradeShown = device.alwaysUpgradeShown ?? false
        }
        servicesEnabled = device.locationServicesEnabled ?? true
    }

    /// Effective precise accuracy: the user's switch, or a temporary full-accuracy grant.
    var precise: Bool { preciseSetting || temporaryFullAccuracy }

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

    // MARK: prompts

    /// Puts a prompt on screen and returns the serial its answer must carry. Showing the Always
    /// prompt uses up the once-per-install upgrade [S7].
    mutating func show(_ kind: PromptKind) -> Int {
        promptSerial += 1
        prompt = VisiblePrompt(kind: kind, serial: promptSerial)
        if kind == .locationAlways { alwaysUpgradeShown = true }
        return promptSerial
    }

    /// Marks the when-in-use prompt just shown as raised by `requestAlwaysAuthorization` (its "Allow
    /// While Using" then gives provisional Always, where `available`).
    mutating func markWhenInUsePromptForAlways(_ available: Bool) {
        whenInUsePromptForAlways = available
    }

    /// Takes the prompt off screen when the answer belongs to its showing; returns its kind, or nil
    /// for a stale answer.
    mutating func dismiss(serial: Int) -> PromptKind? {
        guard let shown = prompt, shown.serial == serial else { return nil }
        prompt = nil
        return shown.kind
    }

    /// Applies the user's answer to a prompt of `kind` and says what it did.
    mutating func answer(_ kind: PromptKind, with response: PromptResponse, constants: PlatformConstants) -> AnswerEffect {
        let allowed = response.answer != .deny
        switch kind {
        case .notifications:
            notifications = allowed ? .granted : .denied
            notificationsProvisional = false
            return .notifications(granted: allowed)
        case .motion:
            motion = allowed ? .granted : .denied
            return .motion(granted: allowed)
        case .locationWhenInUse:
            let forAlways = whenInUsePromptForAlways
            whenInUsePromptForAlways = false
            var provisional = false
            switch response.answer {
            case .deny: location = .denied
            case .allow where forAlways:
                location = .authorizedAlways
                provisionalAlways = true
                provisional = true
            case .allow: location = .authorizedWhenInUse
            case .allowOnce:
                location = .authorizedWhenInUse
                allowOnce = constants.allowOnceAvailable
            }
            if constants.reducedAccuracyAvailable, allowed { preciseSetting = response.preciseLocation ?? true }
            return .location(provisionalAlways: provisional)
        case .locationAlways where confirmingProvisionalAlways:
            return .confirmation(keepAlways: allowed)
        case .locationAlways:
            if allowed { location = .authorizedAlways }
            return .location(provisionalAlways: false)
        case .temporaryFullAccuracy:
            return .temporaryFullAccuracy(granted: allowed)
        }
    }

    /// `.provisional` notification authorization while notDetermined: granted at once, quietly [S47].
    mutating func grantNotificationsProvisionally() {
        notifications = .granted
        notificationsProvisional = true
    }

    // MARK: temporary grants

    /// Temporary full accuracy granted over the user's approximate setting [S10].
    mutating func grantTemporaryFullAccuracy() {
        temporaryFullAccuracy = true
    }

    /// One tick of a temporary grant (Allow Once, temporary full accuracy) [S8]: returns how long the
    /// app has been out of use when that reaches `lapseSeconds` (the grants lapse now), else nil.
    mutating func stepTemporaryGrants(inUse: Bool, at now: Double, lapseSeconds: Double) -> Double? {
        guard allowOnce || temporaryFullAccuracy, !inUse else {
            outOfUseSince = nil
            return nil
        }
        let since = outOfUseSince ?? now
        outOfUseSince = since
        return now - since >= lapseSeconds ? now - since : nil
    }

    /// Ends an Allow Once grant (back to notDetermined) and temporary full accuracy; returns which
    /// of the two were held.
    mutating func clearTemporaryGrants() -> (allowOnce: Bool, fullAccuracy: Bool) {
        let ended = (allowOnce, temporaryFullAccuracy)
        if allowOnce {
            allowOnce = false
            location = .notDetermined
        }
        temporaryFullAccuracy = false
        outOfUseSince = nil
        return ended
    }

    // MARK: provisional Always

    /// Starts the provisional-Always confirmation, holding the event that triggered it [S5][S6].
    mutating func beginConfirmation(holding event: DeviceEvent) {
        confirmingProvisionalAlways = true
        heldForAlwaysConfirmation.append(event)
    }

    /// Holds one more event behind the confirmation in progress.
    mutating func holdForConfirmation(_ event: DeviceEvent) {
        heldForAlwaysConfirmation.append(event)
    }

    /// Ends the confirmation: "Keep Only While Using" (`keepAlways` false) falls back to when-in-use.
    /// Returns the held events, to deliver when Always was kept.
    mutating func endConfirmation(keepAlways: Bool) -> [DeviceEvent] {
        confirmingProvisionalAlways = false
        provisionalAlways = false
        let held = heldForAlwaysConfirmation
        heldForAlwaysConfirmation = []
        if !keepAlways { location = .authorizedWhenInUse }
        return held
    }

    // MARK: Settings

    /// A change the user makes in the Settings app [S13].
    mutating func apply(settings action: UserAction) {
        if let newLocation = action.location {
            location = newLocation
            allowOnce = false
            provisionalAlways = false
        }
        if let newPrecise = action.preciseLocation {
            preciseSetting = newPrecise
            temporaryFullAccuracy = false
        }
        if let enabled = action.locationServicesEnabled { servicesEnabled = enabled }
        if let newNotifications = action.notifications {
            notifications = newNotifications
            notificationsProvisional = false
        }
    }
}
