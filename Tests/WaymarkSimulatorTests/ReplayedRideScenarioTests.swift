import Foundation
import Testing
import WaymarkEngine
import WaymarkSimulator
/// `Scenario.replayedRide(gpxPath:)`: a recorded ride as a background ride, built as a value.
@Suite("Replayed GPX ride scenario")
struct ReplayedRideScenarioTests {
    @Test("the ride is replayed in the background with best accuracy and fitness; the scenario validates")
    func replay() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/WaymarkCLI/Resources/blue_hills_big_loop.gpx").path
        let scenario = Scenario.replayedRide(gpxPath: path)
        #expect(scenario.name == "Ride replayed from blue_hills_big_loop.gpx")
        #expect(scenario.app?.accuracy == .best && scenario.app?.activityType == .fitness && scenario.app?.backgroundUpdates == true)
        var sim = try Simulation(scenario: scenario, app: BasicApp(scenario.app ?? .init()))
        sim.run(until: 600)
        #expect(sim.appState == .background)
        let late = sim.received.filter { guard case .locations = $0.event else { return false }; return $0.time.timeIntervalSince(sim.epoch) > 300 }
        #expect(late.count > 100, "recorded in the background: \(late.count)")
    }
}
