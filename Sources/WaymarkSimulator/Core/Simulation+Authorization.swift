import Foundation
import WaymarkEngine

/// Location authorization over time (PLATFORM.md §2, issue #14): when the app is "in use",
/// temporary grants that lapse (Allow Once, temporary full accuracy), provisional Always and its
/// confirmation, and Settings changes.
extension Simulation {
    // MARK: in use

    /// Whether iOS counts the app as in use: in the foreground, within the few seconds' grace after
    /// leaving it (``PlatformConstants/backgroundSuspendSeconds``; not after a background launch or
    /// wake-up), or running background location updates started while in use (the blue indicator).
    /// Apple: apps "are considered in use when they're in the foreground or running in the
    /// background with the background location usage indicator enabled" ("Choosing the Location
    /// Services Authorization to Request" [S22]); WWDC19 705 on the grace period [S5].
    var appInUse: Bool {
        switch process.state {
        case .foreground:
            return true
        case .background:
            if backgroundLocationActive { return true }
            guard process.wakeUntil == nil, let since = process.backgroundSince else { return false }
            return now - since < constants.backgroundSuspendSeconds
        case .suspended, .notRunning:
            return false
        }
    }

    // MARK: temporary grants

    /// Called on every tick: a temporary grant (Allow Once, temporary full accuracy) lapses once the
    /// app has been out of use for ``PlatformConstants/temporaryAuthorizationLapseSeconds`` [S8].
    mutating func stepTemporaryAuthorization() {
        guard let out = permissions.stepTemporaryGrants(inUse: appInUse, at: now,
                                                        lapseSeconds: constants.temporaryAuthorizationLapseSeconds) else { return }
        let before = permissions.authorization
        clearTemporaryGrants(because: "lapsed after \(Int(out)) s out of use")
        reportAuthorizationChange(from: before)
    }

    /// A new process never inherits a temporary grant: Allow Once is "this process only", and
    /// temporary full accuracy lasts while the app is in use [S8][S10]. Called from `launch()`.
    mutating func lapseTemporaryGrantsAtLaunch() {
        clearTemporaryGrants(because: "expired with the previous process")
    }

    /// Ends an Allow Once grant (back to notDetermined) and temporary full accuracy, noting why.
    private mutating func clearTemporaryGrants(because reason: String) {
        let ended = permissions.clearTemporaryGrants()
        if ended.allowOnce { note("allow-once grant \(reason)") }
        if ended.fullAccuracy { note("temporary full accuracy \(reason)") }
    }

    /// Reports a status change the system made on its own: at once to a running app with a location
    /// manager, when it next comes to the foreground to a suspended one, at the next manager
    /// creation to a terminated one.
    mutating func reportAuthorizationChange(from before: LocationAuthorization) {
        let after = permissions.authorization
        guard after != before else { return }
        switch process.state {
        case .foreground, .background:
            if process.managerCreated { emit(.authorizationChanged(after)) }
            authorizationDidChange()
        case .suspended:
            process.deferAuthorizationCallback()
        case .notRunning:
            break
        }
    }

    /// `requestTemporaryFullAccuracyAuthorization(withPurposeKey:)` [S10]: while the user chose
    /// approximate location, a prompt (foreground only, sequenced like any prompt) asks for full
    /// accuracy. "Allow" → an authorization callback with accuracy `.full`, which lapses like Allow
    /// Once once the app is out of use (``PlatformConstants/temporaryAuthorizationLapseSeconds``)
    /// and never outlives the process. "Don't Allow" (CLError.promptDeclined on a device) → no
    /// callback, since the status did not change [S1]. Nothing happens (no prompt, no callback)
    /// before iOS 14, without location authorization, with full accuracy already, or when the
    /// purpose key is not in the app's `NSLocationTemporaryUsageDescriptionDictionary`
    /// (``DeviceSetup/temporaryUsagePurposeKeys``; every key is declared when absent).
    mutating func requestTemporaryFullAccuracy(purposeKey: String) {
        guard constants.reducedAccuracyAvailable else { note("temporary full accuracy: not available on this iOS"); return }
        guard permissions.locationAuthorized else { note("temporary full accuracy: location not authorized"); return }
        guard !permissions.precise else { return }
        if let keys = scenario.device?.temporaryUsagePurposeKeys, !keys.contains(purposeKey) {
            stats.missingUsageDescriptions += 1
            note("no prompt: purpose key \(purposeKey) missing from NSLocationTemporaryUsageDescriptionDictionary")
            return
        }
        showPrompt(.temporaryFullAccuracy, requires: [], request: .requestTemporaryFullAccuracy(purposeKey: purposeKey))
    }

    mutating func answerTemporaryFullAccuracy(granted: Bool) {
        guard granted else { note("temporary full accuracy declined"); return }
        let before = permissions.authorization
        permissions.grantTemporaryFullAccuracy()
        reportAuthorizationChange(from: before)
    }

    // MARK: provisional Always

    /// Called for every event about to reach a running app. With provisional Always, a location
    /// event for an app that is not in use is the first use of Always [S5][S6]: iOS holds the event
    /// and asks the user "Change to Always Allow" / "Keep Only While Using" (answered with the
    /// scenario's `locationAlways` response, allow by default like every prompt). The held events
    /// are delivered if the user keeps Always and dropped otherwise. WWDC19 705 notes (pastebin
    /// VYaQQL2h): "the background event that triggered the location prompt is stored for a limited
    /// time. If a user allows access, your app receives the location." On a device the prompt may
    /// appear later and old events expire; the simulator shows it at once and keeps the events.
    ///
    /// Returns true when the event is held (the caller must not deliver it).
    mutating func holdForAlwaysConfirmation(_ event: DeviceEvent) -> Bool {
        guard permissions.provisionalAlways, event.isLocationUse, !appInUse else { return false }
        if permissions.confirmingProvisionalAlways {
            permissions.holdForConfirmation(event)
            return true
        }
        guard permissions.prompt == nil else { return false }   // another prompt is up: ask at the next event
        permissions.beginConfirmation(holding: event)
        note("provisional always: \(event.logName) while not in use; held until the user confirms")
        showPrompt(.locationAlways, requires: [], systemInitiated: true)
        return true
    }

    /// The user's answer to the provisional-Always confirmation.
    mutating func confirmProvisionalAlways(keepAlways: Bool) {
        let before = permissions.authorization
        let held = permissions.endConfirmation(keepAlways: keepAlways)
        if keepAlways {
            note("provisional always confirmed; \(held.count) held event(s) delivered")
            for event in held { emit(event) }
        } else {
            note("always declined (keep only while using); \(held.count) held event(s) dropped")
            reportAuthorizationChange(from: before)
        }
    }

    // MARK: Settings

    /// A change in the Settings app. While the app is not running, the new status is reported at the
    /// next location manager creation. An app running in the background or suspended is terminated
    /// (``PlatformConstants/settingsChangeTermination``: any change by default, or a downgrade only)
    /// [S13]; if it survives, the callback comes when it returns to the foreground. (The user cannot
    /// be in Settings with the app in the foreground; a scripted change then is delivered at once.)
    mutating func changeSettings(_ action: UserAction) {
        let before = permissions.authorization
        permissions.apply(settings: action)
        let after = permissions.authorization
        note("settings changed: location \(after.status.rawValue), accuracy \(after.accuracy.rawValue)")
        guard after != before else { return }
        switch process.state {
        case .notRunning:
            break
        case .foreground:
            if process.managerCreated { emit(.authorizationChanged(after)) }
            authorizationDidChange()
        case .background, .suspended:
            let downgrade = PermissionCentre.rank(after.status) < PermissionCentre.rank(before.status)
            if constants.settingsChangeTermination == .anyChange || downgrade {
                terminate(forceQuit: false, reason: downgrade ? "terminated by the system: location permission revoked"
                                                              : "terminated by the system: privacy settings changed")
            } else {
                process.deferAuthorizationCallback()
            }
        }
    }
}

extension DeviceEvent {
    /// Location data or a location event: what a not-in-use app may receive only with Always.
    var isLocationUse: Bool {
        switch self {
        case .locations, .regionEntered, .regionExited, .significantChange, .visit: true
        default: false
        }
    }
}
