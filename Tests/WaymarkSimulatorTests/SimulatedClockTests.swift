import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkEngine
@testable import WaymarkSimulator

/// `SimulatedDevice.clock`: the engine's timeouts on the device's virtual time, no real time.
@Suite("SimulatedClock", .timeLimit(.minutes(5)))   // a cancellable wait (settle, waitUntil…) that never ends fails instead of hanging
struct SimulatedClockTests {
    static func outageScenario() -> Scenario {
        Fixture.opened(device: Fixture.existing(.authorizedWhenInUse, notifications: .granted),
                       world: World(outages: [World.Outage(window: TimeWindow(from: 0))]),
                       overrides: ["cachedFixProbability": .number(0)], duration: 600)
    }

    @Test("a sleeper wakes when the device is advanced to its deadline, not before; now follows the device")
    func sleepWakesOnAdvance() async throws {
        let device = try SimulatedDevice(scenario: Self.outageScenario())
        let clock = device.clock
        let start = clock.now
        let sleeper = Task { try await clock.sleep(until: start.advanced(by: .seconds(30)), tolerance: nil) }
        #expect(await clock.waitUntil(sleepers: 1))
        await device.advance(by: 29)
        #expect(clock.sleeperCount == 1, "woken a second early")
        #expect(start.duration(to: clock.now) == .seconds(29))
        await device.advance(by: 1)
        #expect(clock.sleeperCount == 0)
        try await sleeper.value
    }

    @Test("a cancelled sleeper throws CancellationError at once")
    func cancellation() async throws {
        let device = try SimulatedDevice(scenario: Self.outageScenario())
        let clock = device.clock
        let sleeper = Task { try await clock.sleep(until: clock.now.advanced(by: .seconds(3600)), tolerance: nil) }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }

    @Test("time moved backwards stops the program, naming the call: a simulation run to the past, a negative advance, a clock advanced by a negative duration; so does advancing a device's clock behind its back")
    func timeOnlyMovesForward() async throws {
        let run = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var sim = try Simulation(scenario: Fixture.opened(duration: 60))
            sim.run(until: 10)
            sim.run(until: 5)
        }
        #expect(String(decoding: run.standardErrorContent, as: UTF8.self)
            .contains("Simulation.run(until: 5.0) is before the current virtual second 10.0"))
        let advance = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var sim = try Simulation(scenario: Fixture.opened(duration: 60))
            sim.advance(by: -1)
        }
        #expect(String(decoding: advance.standardErrorContent, as: UTF8.self).contains("Simulation.advance(by: -1.0)"))
        let clock = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            SimulatedClock(startingAt: 0).advance(by: .seconds(-1))
        }
        #expect(String(decoding: clock.standardErrorContent, as: UTF8.self).contains("SimulatedClock.advance(by: -1.0 seconds)"))
        let deviceClock = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try SimulatedDevice(scenario: Fixture.opened(duration: 60)).clock.advance(by: .seconds(1))
        }
        #expect(String(decoding: deviceClock.standardErrorContent, as: UTF8.self)
            .contains("SimulatedClock.advance(by:) on a SimulatedDevice's clock; advance the device instead"))
        // Standing still is allowed.
        var sim = try Simulation(scenario: Fixture.opened(duration: 60))
        sim.run(until: 10)
        sim.run(until: 10)
        sim.advance(by: 0)
        #expect(sim.now == 10)
    }

    @Test("the engine's launch timeout fires on virtual time: unavailable(timeout) after 20 virtual seconds, and the service is released")
    func engineTimeoutOnVirtualTime() async throws {
        let device = try SimulatedDevice(scenario: Self.outageScenario())
        let engine = Engine(device: device, clock: device.clock)
        let run = Task { await engine.run() }
        await device.open()
        await device.settle(engine)
        await device.advance(by: 19)
        await device.settle(engine)
        #expect(await engine.launchLocation.current == .locating)
        await device.advance(by: 1)
        await device.settle(engine)   // the timeout is due: settle hands it to the engine, whose timer task may run later
        #expect(await engine.launchLocation.current == .unavailable(.timeout))
        #expect(await device.state.stopTimes == [20])
        await device.finish()
        await run.value
    }
}
