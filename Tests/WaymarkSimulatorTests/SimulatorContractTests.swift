import Foundation
import Testing
@testable import WaymarkSimulator
import WaymarkEngine
import WaymarkGeo

/// Programmer misuse of the simulator's building blocks stops the program with a message (#16); a
/// scenario file with the same mistake is bad input, a thrown error naming the field.
@Suite("simulator contracts: routes built in code and ride metrics")
struct SimulatorContractTests {
    static let start = Coordinate(uncheckedLatitude: 46.05, longitude: 14.5)

    @Test("a travel leg without a positive speed, built in code, stops the program, naming the leg")
    func zeroSpeedLeg() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let end = Geodesy.destination(from: SimulatorContractTests.start, bearing: 90, distance: 500)
            _ = Trajectory(start: SimulatorContractTests.start, legs: [.stop(5), .travel([end], speed: 0)])
        }
        #expect(String(decoding: result.standardErrorContent, as: UTF8.self).contains("leg 1 travels at 0.0 m/s"))
    }

    @Test("the same leg in a scenario file is a thrown error naming the field")
    func zeroSpeedInScenario() {
        let end = Geodesy.destination(from: Self.start, bearing: 90, distance: 500)
        let scenario = Scenario(route: ScenarioRoute(start: Self.start, legs: [.travel([end], speed: 0)]))
        #expect { try scenario.validate() } throws: { error in
            (error as? SimulatorError)?.code == .invalidScenario && "\(error)".contains("speed")
        }
    }

    @Test("ride metrics of a simulation that runs no ride app stop the program")
    func rideMetricsNeedARideApp() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let end = Geodesy.destination(from: SimulatorContractTests.start, bearing: 90, distance: 500)
            var sim = try Simulation(scenario: Scenario(route: ScenarioRoute(start: SimulatorContractTests.start,
                                                                              legs: [.travel([end], speed: 5)])))
            sim.runToEnd()
            _ = RideMetrics(sim)
        }
        #expect(String(decoding: result.standardErrorContent, as: UTF8.self).contains("RideMetrics: the simulation runs no RideSimApp"))
    }

    @Test("a scenario built in code with a zero-speed leg and never validated still gets a thrown error from the simulation")
    func unvalidatedScenarioThrows() {
        let end = Geodesy.destination(from: Self.start, bearing: 90, distance: 500)
        let scenario = Scenario(route: ScenarioRoute(start: Self.start, legs: [.travel([end], speed: 0)]))
        #expect { try scenario.makeTrajectory() } throws: { ($0 as? SimulatorError)?.code == .invalidScenario }
    }
}
