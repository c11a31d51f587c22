import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkEngine

@Suite("EngineCore: the ride's motion updates wait for the permission sequencer")
struct EngineCoreMotionTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    static func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

    /// A launched core with location already granted.
    static func launched() -> EngineCore {
        var core = EngineCore()
        _ = core.handle(.launched(reason: .user), at: at(0))
        _ = core.handle(.authorizationChanged(LocationAuthorization(status: .authorizedAlways)), at: at(0))
        return core
    }

    @Test("a ride started during the notification prompt asks for motion only after the notification exchange")
    func waitsForNotificationPrompt() {
        var core = Self.launched()
        let asked = core.requestPermissions([.notifications([.alert])], batch: 1, at: Self.at(0))
        #expect(asked.commands.contains(.requestNotificationAuthorization([.alert])))
        let started = core.rideCommand(.start(rideID: "r1"), at: Self.at(1))
        #expect(started.updates.contains(.ride(.state(.moving))))
        #expect(!started.commands.contains(.startMotionActivityUpdates))
        #expect(!started.commands.contains(.requestMotionPermission))
        let answered = core.handle(.notificationAuthorization(granted: true), at: Self.at(3))
        #expect(answered.commands.contains(.registerForRemoteNotifications))
        #expect(!answered.commands.contains(.requestMotionPermission))   // still waiting for the registration
        let registered = core.handle(.remoteRegistration(.token("abc")), at: Self.at(4))
        #expect(registered.commands.contains(.requestMotionPermission))
        #expect(!registered.commands.contains(.startMotionActivityUpdates))
        let granted = core.handle(.motionAuthorization(granted: true), at: Self.at(6))
        #expect(granted.commands.contains(.startMotionActivityUpdates))
        #expect(granted.updates.contains { update in
            if case .permission(.outcome(batch: EngineCore.motionPermissionBatch, let outcome)) = update {
                outcome.request == .motion && outcome.result == .granted
            } else { false }
        })
    }

    @Test("with nothing on screen the motion request goes out at once, and updates start on the grant")
    func idleSequencer() {
        var core = Self.launched()
        let started = core.rideCommand(.start(rideID: "r1"), at: Self.at(1))
        #expect(started.commands.contains(.requestMotionPermission))
        #expect(!started.commands.contains(.startMotionActivityUpdates))
        #expect(core.handle(.motionAuthorization(granted: true), at: Self.at(2)).commands.contains(.startMotionActivityUpdates))
        // Granted in this process: a new ride starts motion updates directly.
        _ = core.rideCommand(.stop, at: Self.at(10))
        #expect(core.rideCommand(.start(rideID: "r2"), at: Self.at(11)).commands.contains(.startMotionActivityUpdates))
    }

    @Test("the app's own motion request is not asked twice; refused motion never starts updates")
    func appAsksAndRefuses() {
        var core = Self.launched()
        var commands = core.requestPermissions([.notifications([.alert]), .motion], batch: 1, at: Self.at(0)).commands
        commands += core.rideCommand(.start(rideID: "r1"), at: Self.at(1)).commands
        commands += core.handle(.notificationAuthorization(granted: false), at: Self.at(3)).commands
        commands += core.handle(.motionAuthorization(granted: false), at: Self.at(5)).commands
        commands += core.deadlineReached(at: Self.at(100)).commands
        #expect(commands.filter { $0 == .requestMotionPermission }.count == 1)
        #expect(!commands.contains(.startMotionActivityUpdates))
        #expect(core.rideTracker.state == .moving)           // the ride records without motion data
    }

    @Test("stopping the ride before the answer cancels the held start")
    func stopCancels() {
        var core = Self.launched()
        _ = core.requestPermissions([.notifications([.alert])], batch: 1, at: Self.at(0))
        _ = core.rideCommand(.start(rideID: "r1"), at: Self.at(1))
        var commands = core.rideCommand(.stop, at: Self.at(2)).commands
        commands += core.handle(.notificationAuthorization(granted: false), at: Self.at(3)).commands
        commands += core.handle(.motionAuthorization(granted: true), at: Self.at(5)).commands
        #expect(!commands.contains(.startMotionActivityUpdates))
        #expect(!commands.contains(.stopMotionActivityUpdates))   // nothing had started
    }
}
