import Foundation
import Testing
import WaymarkEngine
@testable import WaymarkSimulator

@Suite("scenario files, determinism and long rides")
struct ScenarioTests {
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Examples")

    /// Every scenario file under Examples/ (without the extension), so a new example is covered too.
    static let exampleNames: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: examples.path)) ?? [])
        .filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()

    static func run(_ name: String, seed: UInt64? = nil) throws -> Simulation {
        let scenario = try Scenario.load(contentsOf: examples.appendingPathComponent("\(name).json"))
        var sim = try Simulation(scenario: scenario, seed: seed, app: BasicApp(scenario.app ?? BasicApp.Configuration()))
        sim.runToEnd()
        return sim
    }

    @Test("every example scenario loads and runs", arguments: exampleNames)
    func examplesRun(name: String) throws {
        #expect(Self.exampleNames.count >= 7)
        let sim = try Self.run(name)
        #expect(sim.now == sim.endTime)
        #expect(!sim.received.isEmpty)
    }

    @Test("the same scenario and seed give a byte-identical log; another seed does not")
    func determinism() throws {
        let a = try Self.run("ride-with-tunnel").log.jsonLines()
        let b = try Self.run("ride-with-tunnel").log.jsonLines()
        let c = try Self.run("ride-with-tunnel", seed: 43).log.jsonLines()
        #expect(a == b)
        #expect(a != c)
        #expect(a.split(separator: "\n").count > 4000)
    }

    @Test("a two-hour ride is simulated to its end with a fix every second while tracking")
    func twoHourRide() throws {
        var scenario = Scenario(durationSeconds: 7200, route: Fixture.eastbound(speed: 6, seconds: 7200, activity: .cycling),
                                device: Fixture.existing(.authorizedAlways, modes: [.location]),
                                user: UserBehaviour(actions: [UserAction(at: 0, .open), UserAction(at: 60, .background)]))
        scenario.app = BasicApp.Configuration(requests: [], backgroundUpdates: true)
        var sim = try Simulation(scenario: scenario, app: BasicApp(scenario.app!))
        sim.runToEnd()
        #expect(sim.now == 7200)
        #expect(sim.stats.fixesDelivered >= 7190)
        #expect(sim.appState == .background)
    }

    @Test("the naive first-launch app collides its prompts")
    func firstLaunchCollides() throws {
        let sim = try Self.run("first-launch")
        #expect(sim.stats.promptCollisions == 1)
    }

    @Test("bad scenarios name the field and what was expected", arguments: [
        (#"{"version": 1, "device": {"location": "maybe"}}"#, "device.location", "expected one of"),
        (#"{"version": 1, "user": {"actions": [{"at": 5, "do": "dance"}]}}"#, "user.actions[0].do", "expected one of: open, background"),
        (#"{"version": 1, "durationSeconds": "long"}"#, "durationSeconds", "expected a number"),
        (#"{"version": 1, "route": {"start": {"latitude": 1, "longitude": 2}, "legs": [{"speed": 3}]}}"#, "route.legs[0]", "waypoints"),
        (#"{"version": 1, "world": {"outages": [{}]}}"#, "world.outages[0]", "window"),
        (#"{"version": 1, "devise": {}}"#, "devise", "unknown field"),
        (#"{"version": 1, "platform": {"overrides": {"regionLatency": 5}}}"#, "platform.overrides.regionLatency", "unknown platform constant"),
        (#"{"version": 1, "user": {"actions": [{"at": -1, "do": "open"}]}}"#, "user.actions[0].at", "≥ 0"),
        (#"{"version": 1, "world": {"network": {"server": {"rules": [{"window": {"from": 0}, "status": 503}, {"window": {"from": 0}}]}}}}"#,
         "world.network.server.rules[1]", "exactly one of"),
        (#"{"version": 1, "world": {"network": {"server": {"rules": [{"window": {"from": 0}, "timeout": true, "replyLost": true}]}}}}"#,
         "world.network.server.rules[0]", "exactly one of"),
        (#"{"version": 1, "app": {"uploadEveryFixes": 60}}"#, "app.uploadEveryFixes", "unknown field"),
        (#"{"version": 1, "platform": {"overrides": {"uploadTimeoutSeconds": 5}}}"#, "platform.overrides.uploadTimeoutSeconds", "unknown platform constant"),
    ])
    func badScenario(json: String, field: String, expected: String) throws {
        let error = #expect(throws: SimulatorError.self) { try Scenario.decode(from: Data(json.utf8)) }
        #expect(error?.fieldPath == field)
        #expect(error?.message.contains(expected) == true, "\(String(describing: error))")
    }

    @Test("a scenario of another version is rejected")
    func version() throws {
        let error = #expect(throws: SimulatorError.self) { try Scenario.decode(from: Data(#"{"version": 2}"#.utf8)) }
        #expect(error?.code == .unsupportedVersion)
    }

    @Test("overrides and the iOS profile change the constants in force")
    func overrides() throws {
        let scenario = try Scenario.decode(from: Data(#"""
        {"version": 1, "platform": {"profile": "ios12", "overrides": {"regionLatencySeconds": 240, "energy": {"gnssPerSecond": 0.5}}}}
        """#.utf8))
        let constants = try scenario.resolvedConstants()
        #expect(constants.regionLatencySeconds == 240)
        #expect(constants.energy.gnssPerSecond == 0.5)
        #expect(constants.energy.wifiPerSecond == 0.15)
        // Every profile relaunches a force-quit app for location events (issue #14, [S25]); iOS 12
        // differs from the current profile by having no "Allow Once".
        #expect(!constants.allowOnceAvailable)
        #expect(PlatformConstants.profile(.current).allowOnceAvailable)
    }

    @Test("the Device seam: SimulatedDevice yields events in order with virtual timestamps")
    func asyncDevice() async throws {
        let device = try SimulatedDevice(scenario: Fixture.opened(device: Fixture.existing(.authorizedWhenInUse),
                                                                  overrides: Fixture.noCache))
        await device.run(until: 0)
        await device.perform(.createLocationManager)
        await device.perform(.startUpdatingLocation(LocationConfiguration()))
        await device.advance(by: 5)
        await device.finish()
        var seen: [TimedDeviceEvent] = []
        for await timed in device.events { seen.append(timed) }
        #expect(seen.first?.event == .launched(reason: .user))
        #expect(seen.count == 2 + 5)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.time <= $1.time })
        let now = await device.now()
        #expect(now == Scenario.defaultStartTime.addingTimeInterval(5))
    }
}
