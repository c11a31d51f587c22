import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

/// `SimulatedDevice` reports its scenario's Info.plist declarations, so the engine's
/// configuration diagnostics run in the simulator as on a phone.
@Suite("SimulatedDevice Info.plist declarations", .timeLimit(.minutes(5)))   // a cancellable wait (settle, waitUntil…) that never ends fails instead of hanging
struct SimulatedDeviceDeclarationsTests {
    static func scenario(_ usage: [DeviceSetup.UsageDescription]?, _ modes: [DeviceSetup.BackgroundMode]?) throws -> Scenario {
        Scenario(durationSeconds: 60, route: ScenarioRoute(start: try Coordinate(latitude: 42.21, longitude: -71.11), legs: []),
                 device: DeviceSetup(install: .existing, location: .authorizedWhenInUse, usageDescriptions: usage, backgroundModes: modes),
                 user: UserBehaviour(actions: [UserAction(at: 0, .open)]))
    }

    @Test("the scenario's usage descriptions and background modes; all three descriptions and no mode by default")
    func declarations() async throws {
        let some = try SimulatedDevice(scenario: try Self.scenario([.NSLocationWhenInUseUsageDescription], [.location, .remoteNotification]))
        let declared = try #require(await some.infoPlist())
        #expect(declared.declaredUsageDescriptions == [.locationWhenInUse])
        #expect(declared.backgroundModes == ["location", "remote-notification"])
        let defaults = try #require(await SimulatedDevice(scenario: try Self.scenario(nil, nil)).infoPlist())
        #expect(defaults.declaredUsageDescriptions == Set(UsageDescriptionKey.allCases))
        #expect(defaults.backgroundModes.isEmpty)
    }

    @Test("the engine on a simulated app without the location mode reports it when a ride starts")
    func engineReportsMissingMode() async throws {
        let device = try SimulatedDevice(scenario: try Self.scenario(nil, nil))
        let engine = Engine(device: device, clock: device.clock)
        let run = Task { await engine.run() }
        await device.open()
        await device.settle(engine)
        #expect(await engine.diagnostics.current.isEmpty)
        await engine.ride.start(rideID: "r1")
        let problems = await engine.diagnostics.current
        #expect(problems.map(\.kind) == [.missingBackgroundMode("location")])
        await device.finish()
        await run.value
    }

    @Test("Background App Refresh off, or Low Power Mode on, is reported as a problem; on, nothing is",
          arguments: [(true, false, false), (false, false, true), (true, true, true)] as [(Bool, Bool, Bool)])
    func backgroundAppRefresh(refresh: Bool, lowPower: Bool, reported: Bool) async throws {
        var scenario = try Self.scenario(nil, [.location])
        scenario.device?.backgroundAppRefresh = refresh
        scenario.device?.lowPowerMode = lowPower
        let device = try SimulatedDevice(scenario: scenario)
        #expect(await device.backgroundAppRefreshAvailable() == !reported)
        let engine = Engine(device: device, clock: device.clock)
        let run = Task { await engine.run() }
        await device.open()
        await device.settle(engine)
        let problems = await engine.diagnostics.current
        #expect(problems.contains(.backgroundAppRefreshOff) == reported, "\(problems)")
        #expect(problems.count == (reported ? 1 : 0))
        await device.finish()
        await run.value
    }
}
