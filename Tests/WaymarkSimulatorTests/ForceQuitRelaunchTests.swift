import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

@Suite("§4 location relaunch policy: force-quit, Background App Refresh, Low Power Mode")
struct ForceQuitRelaunchTests {
    /// An always app with significant changes on, riding east at 10 m/s after `wait` seconds still.
    static func riding(wait: Double = 0, device: DeviceSetup = Fixture.existing(.authorizedAlways), actions: [UserAction],
                       overrides: [String: JSONValue] = [:], profile: IOSProfile? = nil) throws -> Simulation {
        try SignificantChangeTests.slc(speed: 10, seconds: 3600, after: wait, device: device, actions: actions,
                                       world: SignificantChangeTests.city,
                                       overrides: Fixture.noCache.merging(overrides) { $1 }, profile: profile)
    }

    @Test("after a force-quit, significant changes still relaunch the app on every profile [S25]", arguments: IOSProfile.allCases)
    func slcRelaunches(profile: IOSProfile) throws {
        var sim = try Self.riding(actions: [UserAction(at: 30, .forceQuit)], profile: profile)
        sim.run(until: 3600)
        #expect(sim.stats.launches["location", default: 0] >= 1)
    }

    @Test("relaunchAfterForceQuit off (the iOS 7.0 behaviour): nothing until the user opens the app")
    func settingOff() throws {
        var sim = try Self.riding(actions: [UserAction(at: 30, .forceQuit)], overrides: ["relaunchAfterForceQuit": .bool(false)])
        sim.run(until: 3600)
        #expect(sim.stats.launches["location"] == nil)
        #expect(sim.log.systemNotes.contains { $0.hasPrefix("no relaunch after force-quit: significantChange dropped") })
    }

    @Test("only once the device has moved 200 m from where it was force-quit [S25]; setting 0: at once")
    func needsMovement() throws {
        // Still for 2000 s: the idle wakes at 900 and 1800 find the device where it was force-quit.
        var still = try Self.riding(wait: 2000, actions: [UserAction(at: 30, .forceQuit)])
        still.run(until: 1999)
        #expect(still.stats.launches["location"] == nil)
        #expect(still.log.systemNotes.contains { $0.contains("the device moved 0 m since") })
        still.run(until: 3600)
        #expect(still.stats.launches["location", default: 0] >= 1)
        let firstLaunch = try #require(still.received.first { if case .launched = $0.event { $0.time > still.date(1) } else { false } })
        #expect(firstLaunch.time > still.date(2000))

        var anyMove = try Self.riding(wait: 2000, actions: [UserAction(at: 30, .forceQuit)],
                                      overrides: ["forceQuitRelaunchMinMeters": .number(0)])
        anyMove.run(until: 900)
        #expect(anyMove.stats.launches["location"] == 1)
    }

    @Test("a region crossing relaunches a force-quit app")
    func regionRelaunches() throws {
        let office = MonitoredRegion(identifier: "office", center: Fixture.east(2000), radiusMeters: 300)
        var sim = try Simulation(scenario: Fixture.opened(route: Fixture.eastbound(speed: 10, seconds: 300, after: 100),
                                                          device: Fixture.existing(.authorizedAlways, regions: [office]),
                                                          actions: [UserAction(at: 10, .forceQuit)], duration: 1200))
        sim.run(until: 1200)
        #expect(sim.stats.launches["location"] == 1)
        #expect(!sim.log.systemNotes.contains { $0.hasPrefix("no relaunch after force-quit") })
    }

    @Test("a silent push still does not relaunch the force-quit app that significant changes relaunch [S18]")
    func silentPushDoesNot() throws {
        var sim = try Self.riding(actions: [UserAction(at: 30, .forceQuit), UserAction(at: 60, .silentPush)])
        sim.run(until: 200)
        #expect(sim.stats.launches["remoteNotification"] == nil)
        sim.run(until: 3600)
        #expect(sim.stats.launches["location", default: 0] >= 1)
    }

    @Test("Background App Refresh off or Low Power Mode on: no relaunch of a terminated app [S31]",
          arguments: [(true, false, true), (false, false, false), (true, true, false)])
    func backgroundRefresh(refresh: Bool, lowPower: Bool, relaunches: Bool) throws {
        let device = DeviceSetup(install: .existing, location: .authorizedAlways, backgroundAppRefresh: refresh, lowPowerMode: lowPower)
        var sim = try Self.riding(device: device, actions: [UserAction(at: 30, .systemTerminate)])
        sim.run(until: 3600)
        #expect((sim.stats.launches["location", default: 0] > 0) == relaunches)
        #expect(sim.backgroundRefreshAvailable == (refresh && !lowPower))
    }

    @Test("Background App Refresh off: a suspended app is not woken; its fixes wait for it to run again")
    func noWakeWithoutRefresh() throws {
        let device = DeviceSetup(install: .existing, location: .authorizedAlways, backgroundAppRefresh: false)
        var sim = try Self.riding(device: device, actions: [UserAction(at: 10, .background), UserAction(at: 2000, .open)])
        sim.run(until: 1999)
        #expect(sim.appState == .suspended)
        #expect(sim.stats.suspensions == 1)
        #expect(sim.log.systemNotes.contains { $0 == "not delivered: significantChange Background App Refresh is off" })
        sim.run(until: 2000)
        #expect(sim.fixes.count >= 3)                        // the held significant changes, late
        #expect(sim.fixes.allSatisfy { $0.timestamp < sim.date(2000) })
    }
}
