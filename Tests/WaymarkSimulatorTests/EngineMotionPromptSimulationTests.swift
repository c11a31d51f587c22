import Foundation
import Testing
import WaymarkEngine
@testable import WaymarkSimulator

@Suite("Engine in the simulator: a ride started at launch does not collide with the notification prompt")
struct EngineMotionPromptSimulationTests {
    @Test("first launch with the ride started at once: no collision, the motion prompt follows the other prompts",
          arguments: [PromptResponse.Answer.allow, .deny])
    func rideAtLaunch(motion: PromptResponse.Answer) throws {
        // The engine's ride asks for background updates: the app declares the `location` background
        // mode (without it, setting allowsBackgroundLocationUpdates crashes the app [S21]).
        let scenario = Fixture.opened(route: Fixture.eastbound(speed: 5, seconds: 200, after: 20),
                                      device: DeviceSetup(backgroundModes: [.location]),
                                      prompts: [.motion: PromptResponse(motion)], duration: 300)
        let app = EngineApp(script: EngineApp.Script(permissions: [.notifications([.alert]), .locationWhenInUse], startsRide: true))
        var sim = try Simulation(scenario: scenario, app: app)
        sim.runToEnd()
        #expect(sim.stats.promptCollisions == 0)
        #expect(sim.stats.promptsShown == 3)
        let notes = sim.log.systemNotes.filter { $0.hasPrefix("prompt shown") }
        #expect(notes == ["prompt shown: notifications", "prompt shown: location when-in-use", "prompt shown: motion"])
        let motionRequest = try #require(sim.commandTimes { $0 == .requestMotionPermission }.first)
        let locationAnswer = try #require(sim.times { if case .authorizationChanged(let a) = $0 { a.status != .notDetermined } else { false } }.first)
        #expect(locationAnswer <= motionRequest)
        // Motion updates run only when granted, and then motion activities arrive.
        #expect(sim.commandTimes { $0 == .startMotionActivityUpdates }.count == (motion == .allow ? 1 : 0))
        #expect(sim.motionActivities.isEmpty == (motion == .deny))
        #expect(sim.engineApp?.recordedFixes.isEmpty == false)
    }
}
