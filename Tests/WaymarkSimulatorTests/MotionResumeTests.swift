import Foundation
import Testing
import WaymarkEngine
@testable import WaymarkSimulator

@Suite("§7 motion activity across suspension")
struct MotionResumeTests {
    static func walking(_ actions: [UserAction]) throws -> Simulation {
        var sim = try Simulation(scenario: Fixture.opened(route: Fixture.eastbound(speed: 1.4, seconds: 600, after: 100),
                                                          device: Fixture.existing(.authorizedWhenInUse, motion: .granted),
                                                          actions: actions))
        sim.run(until: 0)
        sim.perform(.startMotionActivityUpdates)
        return sim
    }

    @Test("nothing is delivered while suspended; on resume the handler gets only the latest activity")
    func latestOnResume() throws {
        var sim = try Self.walking([UserAction(at: 10, .background), UserAction(at: 300, .open)])
        sim.run(until: 299)
        #expect(sim.motionActivities.isEmpty)          // stationary at 30 s and walking at 130 s were missed
        sim.run(until: 400)
        #expect(sim.motionActivities.map(\.0) == [300])
        #expect(sim.motionActivities.map(\.1) == [MotionActivity(.walking, confidence: .high)])
    }

    @Test("a background wake-up also delivers the missed activity")
    func latestOnWake() throws {
        var sim = try Simulation(scenario: Fixture.opened(route: Fixture.eastbound(speed: 1.4, seconds: 600, after: 100),
                                                          device: Fixture.existing(.authorizedAlways, motion: .granted),
                                                          actions: [UserAction(at: 10, .background), UserAction(at: 300, .silentPush)]))
        sim.run(until: 0)
        sim.perform(.startMotionActivityUpdates)
        sim.run(until: 400)
        #expect(sim.motionActivities.map(\.0) == [300])
        #expect(sim.motionActivities.first?.1.kind == .walking)
    }

    @Test("an app that missed nothing gets no repeat on resume")
    func noRepeat() throws {
        var sim = try Self.walking([UserAction(at: 200, .background), UserAction(at: 250, .open)])
        sim.run(until: 400)
        #expect(sim.motionActivities.map(\.1.kind) == [.stationary, .walking])   // live, before the background
        #expect(sim.motionActivities.allSatisfy { $0.0 < 200 })
    }
}
