import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkEngine
@testable import WaymarkSimulator

/// `engine.ride.automatic`: where automatic tracking stands, published as it changes (issue #31), so an
/// app can show "waiting for you to ride" and "recording" without polling the tracker.
@Suite("Engine: the automatic-tracking state as a stream", .timeLimit(.minutes(5)))
struct EngineAutomaticStreamTests {
    /// Still for two minutes, 2 km east at 5 m/s, then still; the app opens at 0 and goes to the background at 20 s.
    static let scenario = Fixture.opened(route: Fixture.eastbound(speed: 5, seconds: 400, after: 120, activity: .cycling),
                                         device: Fixture.existing(.authorizedAlways, modes: [.location], motion: .granted),
                                         actions: [UserAction(at: 20, .background)], overrides: Fixture.noCache,
                                         motion: MotionSetup(mode: .derived), duration: 1_500)

    /// Runs the scenario with `automatic` and returns every state the stream delivered, in order.
    static func states(automatic: AutomaticTracking) async throws -> [AutomaticTracking.State] {
        let device = try SimulatedDevice(scenario: scenario, seed: 2)
        var ride = RideTracker.Configuration()
        ride.automatic = automatic
        let engine = Engine(device: device, clock: device.clock, configuration: EngineCore.Configuration(ride: ride))
        let stream = await engine.ride.automatic.subscribe()
        let collected = Task {
            var all: [AutomaticTracking.State] = []
            for await state in stream { all.append(state) }
            return all
        }
        let run = Task { await engine.run() }
        await device.open()
        await device.settle(engine)
        for _ in 0..<1_500 {
            await device.advance(by: 1)
            await device.settle(engine)
        }
        await device.finish()
        await run.value
        return await collected.value
    }

    @Test("on: still before the ride, riding while moving, still again after the stop timeout; each change once")
    func followsTheRide() async throws {
        let states = try await Self.states(automatic: AutomaticTracking(enabled: true, stopTimeoutSeconds: 300, usesVisits: false))
        let riding = try #require(states.firstIndex(of: .riding), "\(states)")
        #expect(states[..<riding].contains(.still), "\(states)")
        #expect(states.last == .still, "\(states)")
        #expect(zip(states, states.dropFirst()).allSatisfy { $0 != $1 }, "a change is published once: \(states)")
        #expect(states.filter { $0 == .riding }.count == 1, "one ride: \(states)")
    }

    @Test("off: the stream holds .off and nothing else")
    func off() async throws {
        #expect(try await Self.states(automatic: AutomaticTracking()) == [.off])
    }
}
