import Foundation

extension PermissionSequencer {
    /// Issues requests from the head of the queue until one has to wait.
    mutating func advance(at now: Date, into out: inout Output) {
        while waiting == nil, let head = queue.first {
            let request = head.request
            if let key = request.usageDescription, let declared = configuration.declaredUsageDescriptions,
               !declared.contains(key) {
                finish(.misconfigured(missingUsageDescription: key), prompted: false, into: &out)
                continue
            }
            switch request {
            case .notifications(let options):
                wait(for: .notificationAnswer, at: now)
                out.commands.append(.requestNotificationAuthorization(options))
            case .motion:
                wait(for: .motionAnswer, at: now)
                out.commands.append(.requestMotionPermission)
            case .locationWhenInUse:
                guard let auth = authorization else { wait(for: .locationStatus, at: now); return }
                if auth.servicesEnabled && auth.status == .notDetermined {
                    whenInUsePromptedThisProcess = true
                    wait(for: .locationAnswer, at: now)
                    out.commands.append(.requestWhenInUseAuthorization)
                } else {
                    finish(Self.result(of: auth), prompted: false, into: &out)
                }
            case .locationAlwaysUpgrade:
                guard let auth = authorization else { wait(for: .locationStatus, at: now); return }
                startAlwaysUpgrade(auth, at: now, into: &out)
            }
        }
    }

    private mutating func startAlwaysUpgrade(_ auth: LocationAuthorization, at now: Date, into out: inout Output) {
        guard auth.servicesEnabled else { finish(.servicesDisabled, prompted: false, into: &out); return }
        switch auth.status {
        case .authorizedAlways:
            finish(.granted, prompted: false, into: &out)
        case .authorizedWhenInUse where memory.alwaysUpgradeAsked:
            finish(.notAsked(.alreadyAskedOnThisInstall), prompted: false, into: &out)
        case .authorizedWhenInUse:
            memory.alwaysUpgradeAsked = true
            out.updates.append(.memoryChanged(memory))
            wait(for: .alwaysAnswer, at: now)
            out.commands.append(.requestAlwaysAuthorization)
        case .notDetermined, .denied, .restricted:
            finish(.notAsked(.whenInUseNotGranted), prompted: false, into: &out)
        }
    }

    /// A location authorization callback: an answer, or the status a waiting request needed.
    mutating func receiveAuthorization(_ auth: LocationAuthorization, at now: Date, into out: inout Output) {
        switch waiting?.what {
        case .locationStatus:
            waiting = nil
        case .locationAnswer where auth.status != .notDetermined || !auth.servicesEnabled:
            finish(Self.result(of: auth), into: &out)
        case .alwaysAnswer:
            finish(auth.servicesEnabled && auth.status == .authorizedAlways ? .granted : .denied, into: &out)
        default:
            break
        }
    }

    private mutating func wait(for what: Waiting, at now: Date) {
        let timeout = what == .remoteRegistration ? configuration.remoteRegistrationTimeout : configuration.promptTimeout
        waiting = (what, now.addingTimeInterval(timeout))
    }

    /// Ends the request at the head of the queue with `result`.
    mutating func finish(_ result: PermissionResult, prompted: Bool = true, remoteRegistration: RemoteRegistration? = nil,
                         into out: inout Output) {
        waiting = nil
        guard !queue.isEmpty else { return }
        let head = queue.removeFirst()
        let outcome = PermissionOutcome(request: head.request, result: result, prompted: prompted,
                                        remoteRegistration: remoteRegistration)
        out.updates.append(.outcome(batch: head.batch, outcome))
        guard var batch = batches[head.batch] else { return }
        batch.outcomes.append(outcome)
        if batch.outcomes.count == batch.expected {
            batches[head.batch] = nil
            out.updates.append(.batchCompleted(batch: head.batch, batch.outcomes))
        } else {
            batches[head.batch] = batch
        }
    }

    /// The result a determined location authorization stands for.
    static func result(of auth: LocationAuthorization) -> PermissionResult {
        guard auth.servicesEnabled else { return .servicesDisabled }
        switch auth.status {
        case .authorizedWhenInUse, .authorizedAlways: return .granted
        case .denied: return .denied
        case .restricted: return .restricted
        case .notDetermined: return .timedOut
        }
    }
}
