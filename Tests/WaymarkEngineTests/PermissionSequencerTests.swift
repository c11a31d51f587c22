import Testing
@testable import WaymarkEngine

@Suite("PermissionSequencer")
struct PermissionSequencerTests {
    /// A driver after launch, with the first authorization callback delivered.
    static func launched(_ status: LocationAuthorizationStatus = .notDetermined,
                         configuration: PermissionSequencer.Configuration = .init(),
                         memory: PermissionMemory = .init()) -> CoreDriver {
        var driver = CoreDriver(configuration: .init(permissions: configuration), memory: memory)
        driver.send(.launched(reason: .remoteNotification), at: 0)
        driver.send(T.auth(status), at: 0)
        return driver
    }

    @Test("the location prompt waits for the notification answer and the remote-registration token")
    func waitsForNotificationsAndToken() {
        var d = Self.launched()
        #expect(d.request([.notifications([.alert, .sound]), .locationWhenInUse], at: 0)
                == [.requestNotificationAuthorization([.alert, .sound])])
        #expect(d.send(.notificationAuthorization(granted: true), at: 2) == [.registerForRemoteNotifications])
        #expect(d.send(.remoteRegistration(.token("ab")), at: 3) == [.requestWhenInUseAuthorization])
        d.send(T.auth(.authorizedWhenInUse), at: 5)
        let outcomes = d.completedBatches
        #expect(outcomes == [[
            PermissionOutcome(request: .notifications([.alert, .sound]), result: .granted, prompted: true,
                              remoteRegistration: .token("ab")),
            PermissionOutcome(request: .locationWhenInUse, result: .granted, prompted: true),
        ]])
    }

    @Test("a remote-registration failure also releases the next prompt")
    func registrationFailure() {
        var d = Self.launched()
        d.request([.notifications([.alert]), .locationWhenInUse], at: 0)
        d.send(.notificationAuthorization(granted: true), at: 2)
        #expect(d.send(.remoteRegistration(.failed(reason: "no network")), at: 3) == [.requestWhenInUseAuthorization])
        d.send(T.auth(.denied), at: 6)
        #expect(d.completedBatches.first?.map(\.result) == [.granted, .denied])
        #expect(d.completedBatches.first?.first?.remoteRegistration == .failed(reason: "no network"))
    }

    @Test("no registration answer: the next prompt comes after the registration timeout, not before")
    func registrationTimeout() {
        var d = Self.launched(configuration: .init(remoteRegistrationTimeout: 10))
        d.request([.notifications([.alert]), .locationWhenInUse], at: 0)
        d.send(.notificationAuthorization(granted: true), at: 2)
        #expect(d.wake(at: 11.9).isEmpty)
        #expect(d.wake(at: 12) == [.requestWhenInUseAuthorization])
    }

    @Test("denied notifications skip registration and go straight to the next request")
    func deniedNotifications() {
        var d = Self.launched()
        d.request([.notifications([.alert]), .locationWhenInUse], at: 0)
        #expect(d.send(.notificationAuthorization(granted: false), at: 2) == [.requestWhenInUseAuthorization])
    }

    @Test("already determined location is skipped without a prompt", arguments: [
        (LocationAuthorizationStatus.authorizedWhenInUse, PermissionResult.granted),
        (.denied, .denied), (.restricted, .restricted), (.authorizedAlways, .granted),
    ])
    func skipDetermined(status: LocationAuthorizationStatus, expected: PermissionResult) {
        var d = Self.launched(status)
        #expect(d.request([.locationWhenInUse], at: 0).isEmpty)
        #expect(d.completedBatches == [[PermissionOutcome(request: .locationWhenInUse, result: expected, prompted: false)]])
    }

    @Test("a location request made before the first authorization callback waits for it")
    func waitsForStatus() {
        var d = CoreDriver()
        #expect(d.request([.locationWhenInUse], at: 0).isEmpty)
        d.send(.launched(reason: .user), at: 0)
        #expect(d.send(T.auth(.notDetermined), at: 0.1) == [.requestWhenInUseAuthorization])
    }

    @Test("no callback for the location prompt is reported as a missing usage description, not a hang")
    func missingLocationDescription() {
        var d = Self.launched(configuration: .init(promptTimeout: 30))
        d.request([.locationWhenInUse, .notifications([.alert])], at: 0)
        #expect(d.wake(at: 29).isEmpty)
        #expect(d.wake(at: 30) == [.requestNotificationAuthorization([.alert])])
        #expect(d.updates.contains(.permission(.outcome(batch: 1, PermissionOutcome(
            request: .locationWhenInUse, result: .misconfigured(missingUsageDescription: .locationWhenInUse), prompted: true)))))
    }

    @Test("no answer to the motion prompt is a missing NSMotionUsageDescription")
    func missingMotionDescription() {
        var d = Self.launched()
        #expect(d.request([.motion], at: 0) == [.requestMotionPermission])
        d.wake(at: 30)
        #expect(d.completedBatches.first?.first?.result == .misconfigured(missingUsageDescription: .motion))
    }

    @Test("a declared Info.plist without the key is reported at once, without a request")
    func declaredMissing() {
        var d = Self.launched(configuration: .init(declaredUsageDescriptions: [.locationWhenInUse]))
        #expect(d.request([.motion], at: 0).isEmpty)
        #expect(d.completedBatches == [[PermissionOutcome(
            request: .motion, result: .misconfigured(missingUsageDescription: .motion), prompted: false)]])
    }

    @Test("the always-upgrade is asked after when-in-use was granted, and remembered")
    func alwaysUpgradeOnce() {
        var d = Self.launched()
        d.request([.locationWhenInUse, .locationAlwaysUpgrade], at: 0)
        #expect(d.send(T.auth(.authorizedWhenInUse), at: 2) == [.requestAlwaysAuthorization])
        #expect(d.updates.contains(.permission(.memoryChanged(PermissionMemory(alwaysUpgradeAsked: true)))))
        d.send(T.auth(.authorizedAlways), at: 4)
        #expect(d.completedBatches.first?.map(\.result) == [.granted, .granted])

        // Next launch with the stored memory and still when-in-use: not asked again, no waiting.
        var next = Self.launched(.authorizedWhenInUse, memory: d.core.permissions.memory)
        #expect(next.request([.locationAlwaysUpgrade], at: 0).isEmpty)
        #expect(next.completedBatches.first?.first?.result == .notAsked(.alreadyAskedOnThisInstall))
    }

    @Test("declining the upgrade reports denied; a declined when-in-use means the upgrade is not asked")
    func alwaysUpgradeDeclined() {
        var d = Self.launched(.authorizedWhenInUse)
        d.request([.locationAlwaysUpgrade], at: 0)
        d.send(T.auth(.authorizedWhenInUse), at: 3)
        #expect(d.completedBatches.first?.first?.result == .denied)

        var denied = Self.launched()
        denied.request([.locationWhenInUse, .locationAlwaysUpgrade], at: 0)
        #expect(denied.send(T.auth(.denied), at: 2).isEmpty)
        #expect(denied.completedBatches.first?.map(\.result) == [.denied, .notAsked(.whenInUseNotGranted)])
        #expect(denied.core.permissions.memory.alwaysUpgradeAsked == false)
    }

    @Test("an unanswered upgrade after a fresh when-in-use prompt (maybe Allow Once) times out, not misconfigured")
    func upgradeAfterAllowOnce() {
        var d = Self.launched()
        d.request([.locationWhenInUse, .locationAlwaysUpgrade], at: 0)
        d.send(T.auth(.authorizedWhenInUse), at: 2)
        d.wake(at: 40)
        #expect(d.completedBatches.first?.last?.result == .timedOut)
    }

    @Test("batches run one after the other, in order")
    func batchesInOrder() {
        var d = Self.launched()
        #expect(d.request([.notifications([.badge])], batch: 1, at: 0).count == 1)
        #expect(d.request([.motion], batch: 2, at: 0).isEmpty)
        d.send(.notificationAuthorization(granted: false), at: 1)
        #expect(d.commands.last == .requestMotionPermission)
        d.send(.motionAuthorization(granted: true), at: 3)
        #expect(d.completedBatches.map { $0.map(\.result) } == [[.denied], [.granted]])
    }
}
