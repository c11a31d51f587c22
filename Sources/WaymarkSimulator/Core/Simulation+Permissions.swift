import Foundation
import WaymarkEngine

/// System prompts and permission requests (PLATFORM.md §1–§2). Temporary grants, provisional
/// Always and Settings changes are in `Simulation+Authorization.swift`.
extension Simulation {
    mutating func createLocationManager() {
        let pending = process.createLocationManager()
        emit(.authorizationChanged(permissions.authorization))
        deliverHeldFixes()
        for event in pending { emit(event) }
    }

    /// Shows a prompt, or says why not. Returns whether it is now on screen.
    ///
    /// In order:
    /// - a motion prompt without `NSMotionUsageDescription` crashes the app [S12];
    /// - a location or temporary-full-accuracy prompt needs the app in the foreground: "Your app must
    ///   be in the foreground to show a location authorization prompt" (Apple,
    ///   `requestWhenInUseAuthorization()`) [S3]. The simulator takes the conservative reading: the
    ///   request is dropped (``SimulationStats/promptsRefusedInBackground``), not shown later; the
    ///   app must ask again once in the foreground. `systemInitiated` prompts (the provisional-Always
    ///   confirmation, which iOS shows on its own) are exempt;
    /// - a prompt already on screen is a collision (counted); the request is lost or queued per
    ///   ``PlatformConstants/promptCollisionOutcome`` [S11];
    /// - a missing usage description: nothing appears, no callback ever comes [S4].
    ///
    /// - parameter request: the command to replay if the request is queued behind a visible prompt;
    ///   derived from `kind` when nil.
    @discardableResult
    mutating func showPrompt(_ kind: PromptKind, requires descriptions: [DeviceSetup.UsageDescription],
                             request: DeviceCommand? = nil, systemInitiated: Bool = false) -> Bool {
        if kind == .motion, !usageDescriptions.contains(.NSMotionUsageDescription) {
            crashApp("a motion-activity query without NSMotionUsageDescription in Info.plist")
            return false
        }
        if !systemInitiated, kind.needsForeground, process.state != .foreground {
            stats.promptsRefusedInBackground += 1
            note("no prompt: \(kind.displayName) requested while the app is not in the foreground; request dropped")
            return false
        }
        if let visible = permissions.prompt {
            stats.promptCollisions += 1
            let replay = request ?? kind.defaultRequest
            if constants.promptCollisionOutcome == .shownAfterFirst, let replay {
                process.queuePromptRequest(replay)
                note("prompt collision: \(kind.displayName) requested while \(visible.kind.displayName) is on screen; shown after it")
            } else {
                note("prompt collision: \(kind.displayName) requested while \(visible.kind.displayName) is on screen; request lost")
            }
            return false
        }
        if let missing = descriptions.first(where: { !usageDescriptions.contains($0) }) {
            stats.missingUsageDescriptions += 1
            note("no prompt: \(missing.rawValue) missing from Info.plist")
            return false
        }
        let serial = permissions.show(kind)
        stats.promptsShown += 1
        note("prompt shown: \(permissions.confirmingProvisionalAlways ? "location always (confirming provisional always)" : kind.displayName)")
        let response = scenario.user?.prompts?[kind]
        schedule(.promptAnswered(serial), in: response?.thinkSeconds ?? constants.promptThinkSeconds)
        return true
    }

    mutating func answerPrompt(serial: Int) {
        guard let kind = permissions.dismiss(serial: serial) else { return }
        let response = scenario.user?.prompts?[kind] ?? PromptResponse(.allow)
        note("prompt answered: \(kind.displayName), \(TimelineText.words(response.answer.rawValue))")
        switch permissions.answer(kind, with: response, constants: constants) {
        case .notifications(let granted):
            emit(.notificationAuthorization(granted: granted))
        case .motion(let granted):
            emit(.motionAuthorization(granted: granted))
            if granted, process.motionUpdates { deliverCurrentMotion() }
        case .location(let provisionalAlways):
            // Provisional Always [S5][S6]: the app reads always until iOS asks the user to confirm.
            if provisionalAlways { note("provisional always: the app reads authorizedAlways until the user confirms") }
            emit(.authorizationChanged(permissions.authorization))
            authorizationDidChange()
        case .confirmation(let keepAlways):
            confirmProvisionalAlways(keepAlways: keepAlways)
        case .temporaryFullAccuracy(let granted):
            answerTemporaryFullAccuracy(granted: granted)
        }
        showQueuedPrompt()
    }

    /// Replays the requests that collided with the prompt just answered
    /// (``PromptCollisionOutcome/shownAfterFirst``), until one shows a prompt.
    mutating func showQueuedPrompt() {
        while permissions.prompt == nil, process.isRunning, let request = process.nextQueuedPromptRequest() {
            switch request {
            case .requestWhenInUseAuthorization: requestWhenInUse()
            case .requestAlwaysAuthorization: requestAlways()
            case .requestMotionPermission: requestMotion()
            case .startMotionActivityUpdates: startMotionUpdates()
            case .requestNotificationAuthorization(let options): requestNotifications(options)
            case .requestTemporaryFullAccuracy(let key): requestTemporaryFullAccuracy(purposeKey: key)
            default: break
            }
        }
    }

    mutating func requestWhenInUse() {
        guard permissions.servicesEnabled else { note("no prompt: location services are off"); return }
        guard permissions.location == .notDetermined else { return }
        showPrompt(.locationWhenInUse, requires: [.NSLocationWhenInUseUsageDescription], request: .requestWhenInUseAuthorization)
    }

    /// From notDetermined, the when-in-use prompt; on iOS 13+ its "Allow While Using" gives
    /// provisional Always (``PlatformConstants/provisionalAlwaysAvailable``) [S5]. From when-in-use,
    /// the upgrade prompt, once per install (iOS 13.4+) [S7].
    mutating func requestAlways() {
        guard permissions.servicesEnabled else { note("no prompt: location services are off"); return }
        switch permissions.location {
        case .notDetermined:
            let shown = showPrompt(.locationWhenInUse, requires: [.NSLocationWhenInUseUsageDescription,
                                                                 .NSLocationAlwaysAndWhenInUseUsageDescription],
                                   request: .requestAlwaysAuthorization)
            if shown { permissions.markWhenInUsePromptForAlways(constants.provisionalAlwaysAvailable) }
        case .authorizedWhenInUse where !permissions.alwaysUpgradeShown && !permissions.allowOnce:
            showPrompt(.locationAlways, requires: [.NSLocationAlwaysAndWhenInUseUsageDescription], request: .requestAlwaysAuthorization)
        default:
            break
        }
    }

    /// A motion query: the prompt while notDetermined, else the stored answer at once. Without
    /// `NSMotionUsageDescription` the app crashes whatever the state [S12].
    mutating func requestMotion() {
        guard usageDescriptions.contains(.NSMotionUsageDescription) else {
            crashApp("a motion-activity query without NSMotionUsageDescription in Info.plist")
            return
        }
        if permissions.motion == .notDetermined {
            showPrompt(.motion, requires: [.NSMotionUsageDescription], request: .requestMotionPermission)
        } else {
            emit(.motionAuthorization(granted: permissions.motion == .granted))
        }
    }

    /// Notification authorization [S47]: a prompt once, later requests answer at once with the
    /// stored result. `.provisional` while notDetermined grants at once without a prompt (and so
    /// never collides); a later request without `.provisional` from that state shows the prompt,
    /// whose answer replaces the provisional grant ("Don't Allow" turns notifications off).
    mutating func requestNotifications(_ options: NotificationOptions = []) {
        switch permissions.notifications {
        case .notDetermined where options.contains(.provisional):
            permissions.grantNotificationsProvisionally()
            note("notifications authorized provisionally (no prompt; delivered quietly)")
            emit(.notificationAuthorization(granted: true))
        case .notDetermined:
            showPrompt(.notifications, requires: [], request: .requestNotificationAuthorization(options))
        case .granted where permissions.notificationsProvisional && !options.contains(.provisional):
            showPrompt(.notifications, requires: [], request: .requestNotificationAuthorization(options))
        default:
            emit(.notificationAuthorization(granted: permissions.notifications == .granted))
        }
    }

    /// The app crashes: the process ends at once, like a system termination (it may be relaunched).
    mutating func crashApp(_ cause: String) {
        stats.crashes += 1
        terminate(forceQuit: false, reason: "crashed: \(cause)")
    }

    mutating func completeRemoteRegistration(generation: Int) {
        guard generation == process.generation else { return }
        let apns = scenario.world?.network?.apnsAvailable ?? true
        if !link.online {
            emit(.remoteRegistration(.failed(reason: "no network")))
        } else if !apns {
            emit(.remoteRegistration(.failed(reason: "APNs unavailable")))
        } else {
            var token = ""
            for _ in 0..<4 { token += String(format: "%016llx", rng.next()) }
            emit(.remoteRegistration(.token(token)))
        }
    }

    /// Starts what was waiting for authorization; stops what lost it.
    mutating func authorizationDidChange() {
        if permissions.locationAuthorized {
            if locationService.authorizeStandard() { deliverCachedFix() }
            // New ids: a request's pending authorization timeout no longer finds it.
            for id in locationService.authorizeOneShots() { scheduleOneShot(id) }
        } else if permissions.location != .notDetermined || !permissions.servicesEnabled {
            if locationService.stopStandard() { emit(.locationError(.denied)) }
        }
    }
}

extension PromptKind {
    /// Location prompts (and temporary full accuracy) appear only while the app is in the foreground [S3].
    var needsForeground: Bool {
        switch self {
        case .locationWhenInUse, .locationAlways, .temporaryFullAccuracy: true
        case .notifications, .motion: false
        }
    }

    /// The request to replay for a queued prompt when the caller named none.
    var defaultRequest: DeviceCommand? {
        switch self {
        case .locationWhenInUse: .requestWhenInUseAuthorization
        case .locationAlways: .requestAlwaysAuthorization
        case .motion: .startMotionActivityUpdates
        case .notifications: .requestNotificationAuthorization([])
        case .temporaryFullAccuracy: nil
        }
    }
}
