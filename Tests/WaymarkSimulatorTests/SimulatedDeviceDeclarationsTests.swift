import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

/// `SimulatedDevice` reports its scenario's Info.plist declarations, so the engine's
/// configuration diagnostics run in the simulator as on a phone.
@Suite("SimulatedDevice Info.plist declarations")
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
        guard #available(macOS 15, iOS 18, *) else { return }
        let device = try SimulatedDevice(scenario: try Self.scenario(nil, nil))
        let engine = Engine(device: device, clock: device.clock)
        let run = Task { await engine.run() }
        await device.open()
        try await EngineActorSimulationTests.settle(engine, device)
        #expect(await engine.diagnostics.current.isEmpty)
        await engine.ride.start(rideID: "r1")
        let problems = await engine.diagnostics.current
        #expect(problems.map(\.kind) == [.missingBackgroundMode("location")])
        await device.finish()
        await run.value
    }
}
