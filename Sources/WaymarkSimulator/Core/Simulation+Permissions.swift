import Foundation
import WaymarkEngine

extension Simulation {
    mutating func createLocationManager() {
        process.managerCreated = true
        emit(.authorizationChanged(permissions.authorization))
        deliverHeldFixes()
        let pending = process.pendingManagerEvents
        process.pendingManagerEvents = []
        for event in pending { emit(event) }
    }

    /// Shows a prompt unless one is on screen (a collision: the new request is lost) or the usage
    /// description is missing (nothing appears, no callback ever comes).
    mutating func showPrompt(_ kind: PromptKind, requires descriptions: [DeviceSetup.UsageDescription]) {
        if let visible = prompt {
            stats.promptCollisions += 1
            note("prompt collision: \(kind.displayName) requested while \(visible.kind.displayName) is on screen; request lost")
            return
        }
        if let missing = descriptions.first(where: { !usageDescriptions.contains($0) }) {
            stats.missingUsageDescriptions += 1
            note("no prompt: \(missing.rawValue) missing from Info.plist")
            return
        }
        promptSerial += 1
        prompt = (kind, promptSerial)
        stats.promptsShown += 1
        note("prompt shown: \(kind.displayName)")
        let response = scenario.user?.prompts?[kind]
        schedule(.promptAnswered(promptSerial), in: response?.thinkSeconds ?? constants.promptThinkSeconds)
    }

    mutating func answerPrompt(serial: Int) {
        guard let shown = prompt, shown.serial == serial else { return }
        prompt = nil
        let response = scenario.user?.prompts?[shown.kind] ?? PromptResponse(.allow)
        note("prompt answered: \(shown.kind.displayName), \(TimelineText.words(response.answer.rawValue))")
        switch shown.kind {
        case .notifications:
            permissions.notifications = response.answer == .deny ? .denied : .granted
            emit(.notificationAuthorization(granted: response.answer != .deny))
        case .motion:
            permissions.motion = response.answer == .deny ? .denied : .granted
            emit(.motionAuthorization(granted: response.answer != .deny))
            if permissions.motion == .granted, process.motionUpdates { deliverCurrentMotion() }
        case .locationWhenInUse:
            switch response.answer {
            case .deny: permissions.location = .denied
            case .allow: permissions.location = .authorizedWhenInUse
            case .allowOnce:
                permissions.location = .authorizedWhenInUse
                permissions.allowOnce = constants.allowOnceAvailable
            }
            if constants.reducedAccuracyAvailable, response.answer != .deny {
                permissions.precise = response.preciseLocation ?? true
            }
            emit(.authorizationChanged(permissions.authorization))
            authorizationDidChange()
        case .locationAlways:
            if response.answer != .deny { permissions.location = .authorizedAlways }
            emit(.authorizationChanged(permissions.authorization))
            authorizationDidChange()
        }
    }

    mutating func requestWhenInUse() {
        guard permissions.servicesEnabled else { note("no prompt: location services are off"); return }
        guard permissions.location == .notDetermined else { return }
        showPrompt(.locationWhenInUse, requires: [.NSLocationWhenInUseUsageDescription])
    }

    mutating func requestAlways() {
        guard permissions.servicesEnabled else { note("no prompt: location services are off"); return }
        switch permissions.location {
        case .notDetermined:
            showPrompt(.locationWhenInUse, requires: [.NSLocationWhenInUseUsageDescription,
                                                      .NSLocationAlwaysAndWhenInUseUsageDescription])
        case .authorizedWhenInUse where !permissions.alwaysUpgradeShown && !permissions.allowOnce:
            if prompt == nil, usageDescriptions.contains(.NSLocationAlwaysAndWhenInUseUsageDescription) {
                permissions.alwaysUpgradeShown = true
            }
            showPrompt(.locationAlways, requires: [.NSLocationAlwaysAndWhenInUseUsageDescription])
        default:
            break
        }
    }

    mutating func requestMotion() {
        if permissions.motion == .notDetermined {
            showPrompt(.motion, requires: [.NSMotionUsageDescription])
        } else {
            emit(.motionAuthorization(granted: permissions.motion == .granted))
        }
    }

    mutating func requestNotifications() {
        if permissions.notifications == .notDetermined {
            showPrompt(.notifications, requires: [])
        } else {
            emit(.notificationAuthorization(granted: permissions.notifications == .granted))
        }
    }

    mutating func completeRemoteRegistration(generation: Int) {
        guard generation == process.generation else { return }
        let apns = scenario.world?.network?.apnsAvailable ?? true
        if !online {
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
            if var s = standard, s.waitingForAuthorization {
                s.waitingForAuthorization = false
                standard = s
                deliverCachedFix()
            }
            for i in oneShots.indices where oneShots[i].waitingForAuthorization {
                oneShots[i].waitingForAuthorization = false
                scheduleOneShot(index: i)
            }
        } else if permissions.location != .notDetermined || !permissions.servicesEnabled {
            if standard != nil { standard = nil; emit(.locationError(.denied)) }
        }
    }

    mutating func changeSettings(_ action: UserAction) {
        let before = permissions.authorization
        if let location = action.location { permissions.location = location; permissions.allowOnce = false }
        if let precise = action.preciseLocation { permissions.precise = precise }
        if let enabled = action.locationServicesEnabled { permissions.servicesEnabled = enabled }
        if let notifications = action.notifications { permissions.notifications = notifications }
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
            if Permissions.rank(after.status) < Permissions.rank(before.status) {
                terminate(forceQuit: false, reason: "terminated by the system: location permission revoked")
            } else {
                process.pendingAuthorizationCallback = process.managerCreated
            }
        }
    }
}

extension Simulation {
    // Interim: temporary full accuracy is being modelled (issue #14); until then the command is logged only.
    mutating func requestTemporaryFullAccuracy(purposeKey: String) {
        note("temporary full accuracy requested (\(purposeKey)): not modelled yet")
    }
}
