import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkEngine
@testable import WaymarkSimulator

/// `SimulatedDevice.clock`: the engine's timeouts on the device's virtual time, no real time.
@Suite("SimulatedClock")
struct SimulatedClockTests {
    static func outageScenario() -> Scenario {
        Fixture.opened(device: Fixture.existing(.authorizedWhenInUse, notifications: .granted),
                       world: World(outages: [World.Outage(window: TimeWindow(from: 0))]),
                       overrides: ["cachedFixProbability": .number(0)], duration: 600)
    }

    @Test("a sleeper wakes when the device is advanced to its deadline, not before; now follows the device")
    func sleepWakesOnAdvance() async throws {
        guard #available(macOS 15, iOS 18, *) else { return }
        let device = try SimulatedDevice(scenario: Self.outageScenario())
        let clock = device.clock
        let start = clock.now
        let woke = WokeFlag()
        let sleeper = Task {
            try await clock.sleep(until: start.advanced(by: .seconds(30)), tolerance: nil)
            await woke.set()
        }
        await device.advance(by: 29)
        for _ in 0..<200 { await Task.yield() }
        #expect(await !woke.value)
        #expect(start.duration(to: clock.now) == .seconds(29))
        await device.advance(by: 1)
        try await sleeper.value
        #expect(await woke.value)
    }

    @Test("a cancelled sleeper throws CancellationError at once")
    func cancellation() async throws {
        guard #available(macOS 15, iOS 18, *) else { return }
        let device = try SimulatedDevice(scenario: Self.outageScenario())
        let clock = device.clock
        let sleeper = Task { try await clock.sleep(until: clock.now.advanced(by: .seconds(3600)), tolerance: nil) }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }

    @Test("the engine's launch timeout fires on virtual time: unavailable(timeout) after 20 virtual seconds, and the service is released")
    func engineTimeoutOnVirtualTime() async throws {
        guard #available(macOS 15, iOS 18, *) else { return }
        let device = try SimulatedDevice(scenario: Self.outageScenario())
        let engine = Engine(device: device, clock: device.clock)
        let run = Task { await engine.run() }
        await device.open()
        try await EngineActorSimulationTests.settle(engine, device)
        await device.advance(by: 19)
        try await EngineActorSimulationTests.settle(engine, device)
        #expect(await engine.launchLocation.current == .locating)
        await device.advance(by: 1)
        // The timer's task wakes on the clock; wait for it by yielding (no real time passes).
        for _ in 0..<10_000 where await engine.launchLocation.current == .locating { await Task.yield() }
        #expect(await engine.launchLocation.current == .unavailable(.timeout))
        for _ in 0..<10_000 where await device.state.stopTimes.isEmpty { await Task.yield() }
        #expect(await device.state.stopTimes == [20])
        await device.finish()
        await run.value
    }
}

private actor WokeFlag {
    var value = false
    func set() { value = true }
}
