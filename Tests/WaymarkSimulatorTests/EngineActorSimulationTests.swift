import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkEngine
@testable import WaymarkSimulator

/// The real ``Engine`` actor and its async API over a ``SimulatedDevice``, second by second.
@Suite("Engine actor over SimulatedDevice", .timeLimit(.minutes(5)))   // a cancellable wait (settle, waitUntil…) that never ends fails instead of hanging
struct EngineActorSimulationTests {
    /// Runs the engine on the device's virtual clock: no real time passes.
    @Test("first launch: request() returns both results, no collision, one start; early and late subscribers see located once",
          arguments: LocationBackend.allCases)
    func firstLaunch(backend: LocationBackend) async throws {
        let device = try SimulatedDevice(scenario: Fixture.opened(duration: 120), seed: 5)
        let engine = Engine(device: device, clock: device.clock, configuration: .init(backend: backend))
        let run = Task { await engine.run() }
        let earlyStates = await engine.launchLocation.states.subscribe()
        let early = Task {
            var seen: [LaunchLocationState] = []
            for await state in earlyStates { seen.append(state) }
            return seen
        }
        await device.open()
        await device.settle(engine)
        // The app asks at launch: let the request reach the device before time moves on.
        let sent = await device.commandsPerformed
        let request = Task { try await engine.permissions.request([.notifications([.alert, .sound]), .locationWhenInUse]) }
        await device.waitForCommands(sent + 1)
        #expect(await device.state.stats.promptsShown == 1)
        for _ in 0..<60 {
            await device.advance(by: 1)
            await device.settle(engine)
        }
        let outcomes = try await request.value
        #expect(outcomes.map(\.result) == [.granted, .granted])
        let sim = await device.state
        #expect(sim.stats.promptCollisions == 0)
        #expect(sim.startTimes.count == 1)
        #expect(sim.stopTimes.count == 1)
        let final = await engine.launchLocation.current
        let fix = try #require(final.fix)

        let launch = try #require(await engine.diagnostics.launch, "the launch is attributed")
        #expect(launch.reason == .user)
        #expect(launch.cause == .userOpened)

        var late = engine.launchLocation.states.makeAsyncIterator()
        #expect(await late.next() == .located(fix))
        await device.finish()
        await run.value
        let earlySeen = await early.value
        #expect(earlySeen.filter { $0 == .located(fix) }.count == 1)
        #expect(earlySeen.first == .idle)
        #expect(await late.next() == nil)
    }
}
