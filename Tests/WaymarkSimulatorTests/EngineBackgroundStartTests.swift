import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkEngine
@testable import WaymarkSimulator

/// A when-in-use app cannot start location updates while it is not in use; iOS answers with
/// `CLError.denied` (forums 748098). The engine must neither retry in a loop nor give up: it starts
/// them when the app is in use again.
@Suite("Engine: a when-in-use start refused in the background", .timeLimit(.minutes(5)))   // a cancellable wait (settle, waitUntil…) that never ends fails instead of hanging
struct EngineBackgroundStartTests {
    @Test("a ride started from a silent push is refused once, then records when the user opens the app")
    func refusedThenForeground() async throws {
        let scenario = Fixture.opened(route: ScenarioRoute(start: Fixture.origin, legs: [.travel([Fixture.east(3_000)], speed: 5)]),
                                      device: Fixture.existing(.authorizedWhenInUse, modes: [.location], motion: .denied),
                                      actions: [UserAction(at: 10, .background), UserAction(at: 100, .silentPush),
                                                UserAction(at: 200, .open)],
                                      overrides: Fixture.noCache, duration: 400)
        let device = try SimulatedDevice(scenario: scenario, seed: 3)
        let engine = Engine(device: device, clock: device.clock)
        let run = Task { await engine.run() }
        await device.open()
        await device.settle(engine)
        for _ in 0..<100 {
            await device.advance(by: 1)
            await device.settle(engine)
        }
        // The push's wake: the app starts a ride while not in use.
        await engine.ride.start(rideID: "r1")
        for _ in 0..<99 {
            await device.advance(by: 1)
            await device.settle(engine)
        }
        var sim = await device.state
        let rideStarts = { (sim: Simulation) in
            sim.log.entries.filter { entry in
                if case .startUpdatingLocation(let c)? = entry.command { c.allowsBackgroundLocationUpdates } else { false }
            }.count
        }
        // Refused at the push, and once more at the significant change's wake (a location event may
        // let a when-in-use app start, here it does not): bounded, not a retry loop.
        let backgroundStarts = rideStarts(sim)
        #expect(backgroundStarts >= 1 && backgroundStarts <= 2, "\(backgroundStarts)")
        #expect(sim.received.filter { $0.event == .locationError(.denied) }.count == backgroundStarts)
        #expect(sim.fixes.filter { $0.timestamp.timeIntervalSince(sim.epoch) > 100 }.isEmpty)
        // The user opens the app at 200 s: the engine asks again and the ride records.
        for _ in 0..<100 {
            await device.advance(by: 1)
            await device.settle(engine)
        }
        sim = await device.state
        let foregroundStart = sim.log.entries.first { entry in
            if case .startUpdatingLocation(let c)? = entry.command { entry.t >= 200 && c.allowsBackgroundLocationUpdates } else { false }
        }
        #expect(foregroundStart?.t == 200, "asked again as the app came to the foreground")
        #expect(sim.received.filter { $0.event == .locationError(.denied) }.count == backgroundStarts, "and not refused")
        #expect(sim.fixes.filter { $0.timestamp.timeIntervalSince(sim.epoch) > 200 }.count > 20)
        await device.finish()
        await run.value
    }
}
