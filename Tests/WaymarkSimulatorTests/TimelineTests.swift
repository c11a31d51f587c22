import Foundation
import Testing
import WaymarkEngine
@testable import WaymarkSimulator

@Suite("the human-readable timeline")
struct TimelineTests {
    @Test("prompts, commands and callbacks read as short descriptions, not Swift enum dumps")
    func readable() throws {
        var sim = try Simulation(scenario: Fixture.opened(route: Fixture.eastbound(speed: 5, seconds: 120),
                                                          overrides: Fixture.noCache))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.requestWhenInUseAuthorization)
        sim.perform(.startUpdatingLocation(LocationConfiguration(distanceFilterMeters: 10, activityType: .fitness)))
        sim.run(until: 60)
        let lines = sim.timeline.split(separator: "\n").map(String.init)
        #expect(Array(lines.prefix(2)) == ["      0.0 s  system: launched (user)", "      0.0 s  launched by the user"])
        #expect(lines.contains("      0.0 s  authorization: not determined"))
        #expect(lines.contains("      0.0 s  system: prompt shown: location when-in-use"))
        #expect(lines.contains("      0.0 s  app: start location updates (best, filter 10 m, fitness)"))
        #expect(lines.contains("      2.0 s  system: prompt answered: location when-in-use, allow"))
        #expect(lines.contains("      2.0 s  authorization: when in use"))
        let run = try #require(lines.first { $0.contains("deliveries until") })
        #expect(run.contains(" fixes in ") && (run.contains("(gnss") || run.contains("(wifi")))
        #expect(!sim.timeline.contains("WaymarkEngine.") && !sim.timeline.contains("authorizationChanged("))
    }

    @Test("a late batch has its own line with its size, source, accuracy and age")
    func lateBatch() throws {
        var sim = try LateBatchTests.riding([UserAction(at: 10, .background), UserAction(at: 1500, .open)])
        sim.run(until: 1600)
        let line = try #require(sim.timeline.split(separator: "\n").first { $0.hasPrefix("   1500.0 s  4 fixes (cell, ±") })
        #expect(line.hasSuffix("measured 300–1200 s earlier"))
    }
}
