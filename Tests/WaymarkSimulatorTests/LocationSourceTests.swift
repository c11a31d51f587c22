import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

/// `World.locationSource`: spells of a mock-location app or an external GNSS accessory, as iOS reports them
/// in `CLLocationSourceInformation`, reach the fixes the app records.
@Suite("Simulator: where fixes come from (CLLocationSourceInformation)")
struct LocationSourceTests {
    static func ride(_ source: World.LocationSource?) throws -> (fixes: [Fix], epoch: Date) {
        let scenario = Fixture.opened(route: Fixture.eastbound(speed: 6, seconds: 600),
                                      device: Fixture.existing(.authorizedAlways, modes: [.location], motion: .granted),
                                      world: World(locationSource: source), overrides: Fixture.noCache, duration: 620)
        var sim = try Simulation(scenario: scenario, seed: 3, app: EngineApp(script: .init(startsRide: true)))
        sim.runToEnd()
        return (try #require(sim.engineApp).recordedFixes, sim.epoch)
    }

    static let spells = World.LocationSource(simulatedBySoftware: [TimeWindow(from: 100, to: 200)],
                                             externalAccessory: [TimeWindow(from: 300, to: 400), TimeWindow(from: 350, to: 450)])

    @Test("a mock-location spell and an accessory spell mark exactly their fixes; other fixes have an unknown origin",
          arguments: [false, true])
    func spellsMarkFixes(reportedForOrdinaryFixes: Bool) throws {
        var source = Self.spells
        source.reportedForOrdinaryFixes = reportedForOrdinaryFixes
        let (fixes, epoch) = try Self.ride(source)
        // The ride's distance filter at 6 m/s records a fix every few seconds (about 90 in the 600 s ride).
        #expect(fixes.count > 50)
        var simulated = 0, accessory = 0
        for fix in fixes {
            let t = fix.timestamp.timeIntervalSince(epoch)
            let inMock = (100..<200).contains(t), inAccessory = (300..<450).contains(t)
            if inMock || inAccessory {
                #expect(fix.sourceInformation == Fix.SourceInformation(isSimulatedBySoftware: inMock, isProducedByAccessory: inAccessory),
                        "at \(t) s")
            } else if reportedForOrdinaryFixes {
                // The setting for the field-report question Apple's documentation leaves open: ordinary fixes
                // carry source information with both flags false.
                #expect(fix.sourceInformation == Fix.SourceInformation(isSimulatedBySoftware: false, isProducedByAccessory: false))
            } else {
                #expect(fix.sourceInformation == nil, "at \(t) s: unknown, not false")
            }
            simulated += fix.sourceInformation?.isSimulatedBySoftware == true ? 1 : 0
            accessory += fix.sourceInformation?.isProducedByAccessory == true ? 1 : 0
        }
        #expect(simulated >= 8 && accessory >= 12, "simulated \(simulated), accessory \(accessory)")
    }

    @Test("without the option every fix has an unknown origin, and the ride is the same as with it")
    func absent() throws {
        let (plain, _) = try Self.ride(nil)
        let (marked, _) = try Self.ride(Self.spells)
        #expect(plain.allSatisfy { $0.sourceInformation == nil })
        // The origin changes no position, time or decision: the same fixes, apart from their marks.
        #expect(plain.map(\.coordinate) == marked.map(\.coordinate))
        #expect(plain.map(\.timestamp) == marked.map(\.timestamp))
    }

    @Test("the scenario JSON reads the option, and a window ending before it starts is named")
    func json() throws {
        let text = #"{"version":1,"durationSeconds":60,"world":{"locationSource":{"simulatedBySoftware":[{"from":10,"to":20}],"#
            + #""externalAccessory":[{"from":30}],"reportedForOrdinaryFixes":true}}}"#
        let scenario = try Scenario.decode(from: Data(text.utf8))
        #expect(scenario.world?.locationSource?.information(at: 15) == Fix.SourceInformation(isSimulatedBySoftware: true,
                                                                                             isProducedByAccessory: false))
        #expect(scenario.world?.locationSource?.information(at: 45)?.isProducedByAccessory == true)
        #expect(scenario.world?.locationSource?.information(at: 25) == Fix.SourceInformation(isSimulatedBySoftware: false,
                                                                                             isProducedByAccessory: false))
        let bad = #"{"version":1,"durationSeconds":60,"world":{"locationSource":{"externalAccessory":[{"from":30,"to":5}]}}}"#
        do {
            _ = try Scenario.decode(from: Data(bad.utf8))
            Issue.record("a backwards window was accepted")
        } catch {
            #expect("\(error)".contains("world.locationSource.externalAccessory[0].to"))
        }
    }
}
