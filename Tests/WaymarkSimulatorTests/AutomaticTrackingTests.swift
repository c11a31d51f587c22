import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

/// Automatic tracking (issue #31) in the simulator, on both location backends: rides start by
/// themselves near where the rider set off, record the distance, cost little while still, and
/// never start at a desk.
@Suite("Automatic tracking in the simulator")
struct AutomaticTrackingTests {
    static let cases: [(LocationBackend, AutoFixture.AppAtStart)] = LocationBackend.allCases.flatMap { backend in
        [AutoFixture.AppAtStart.suspended, .terminated, .forceQuit].map { (backend, $0) }
    }

    static func run(_ scenario: Scenario, trajectory: Trajectory? = nil, backend: LocationBackend, seed: UInt64 = 1,
                    _ change: (inout AutomaticTracking) -> Void = { _ in }) throws -> Simulation {
        var sim = try Simulation(scenario: scenario, seed: seed,
                                 app: EngineApp(configuration: AutoFixture.configuration(backend, change)), trajectory: trajectory)
        sim.runToEnd()
        return sim
    }

    static func describe(_ values: [Double?]) -> String {
        values.map { $0.map { String(format: "%.0f m", $0) } ?? "none" }.joined(separator: ", ")
    }

    @Test("the commute: each ride starts by itself within 150 m of where the rider set off, ≥ 99% of the distance recorded",
          arguments: cases)
    func commute(backend: LocationBackend, app: AutoFixture.AppAtStart) throws {
        let sim = try Self.run(try AutoFixture.commute(app), backend: backend)
        let rides = AutoRides(sim)
        let starts = rides.startDistances
        let share = rides.recordedDistance / rides.trueDistance
        print("auto commute \(backend) \(app): rides \(rides.rides.count), start \(Self.describe(starts)); first fix on the move "
              + "\(Self.describe(rides.firstLiveDistances)); distance \(String(format: "%.2f%%", share * 100)); gaps "
              + "\(rides.rides.flatMap(\.gaps).map { "\($0.reason)" })")
        #expect(rides.setOffs.count == 2, "the commute sets off twice (home, work)")
        #expect(rides.rides.allSatisfy { $0.automatic })
        #expect(starts.count == 2 && starts.allSatisfy { ($0 ?? .infinity) <= 150 }, "\(Self.describe(starts))")
        #expect(share >= 0.99, "\(share)")
    }

    @Test("the Blue Hills loop: the ride starts by itself within 150 m of the trailhead, ≥ 99% of the distance recorded",
          arguments: cases)
    func blueHills(backend: LocationBackend, app: AutoFixture.AppAtStart) throws {
        let (scenario, trajectory) = try AutoFixture.blueHills(app)
        let sim = try Self.run(scenario, trajectory: trajectory, backend: backend)
        let rides = AutoRides(sim)
        let starts = rides.startDistances
        let share = rides.recordedDistance / rides.trueDistance
        print("auto Blue Hills \(backend) \(app): rides \(rides.rides.count), start \(Self.describe(starts)); first fix on the move "
              + "\(Self.describe(rides.firstLiveDistances)); distance \(String(format: "%.2f%%", share * 100))")
        let first = try #require(starts.first ?? nil)
        #expect(first <= 150)
        #expect(rides.rides.first?.automatic == true)
        #expect(share >= 0.99, "\(share)")
    }

    @Test("a day of 15 hours still and one hour riding costs at most 1.2× recording that hour alone",
          arguments: LocationBackend.allCases)
    func energyDay(backend: LocationBackend) throws {
        // The commute with 3.5 hours at home before and after: 15 hours still with the 8-hour park.
        let day = try AutoFixture.commute(.suspended, stillSeconds: 12_600, after: 12_600)
        let auto = try Self.run(day, backend: backend)
        // The same two rides recorded alone: the rider opens the app, starts a ride, and stops it on arrival.
        var alone = try Scenario.load(contentsOf: AutoFixture.commutePath)
        let legs = alone.route?.legs ?? []
        let park = legs.firstIndex { ($0.stopSeconds ?? 0) > 3600 }!
        var energyAlone = 0.0
        var movingSeconds = 0.0
        for part in [Array(legs[..<park]), Array(legs[(park + 1)...])] {
            alone.route = ScenarioRoute(start: part == Array(legs[..<park]) ? alone.route!.start! : Self.end(of: legs[..<park], from: alone.route!.start!),
                                        legs: part)
            alone.user = UserBehaviour(actions: [UserAction(at: 0, .open), UserAction(at: 30, .background)])
            alone.durationSeconds = nil
            var probe = try Simulation(scenario: alone, seed: 1)
            let end = probe.trajectory.endTime
            probe.run(until: 0)
            let script = EngineApp.Script(startsRide: true, actions: [.init(at: probe.date(end), .ride(.stop))])
            var sim = try Simulation(scenario: alone, seed: 1,
                                     app: EngineApp(configuration: EngineCore.Configuration(backend: backend), script: script))
            sim.runToEnd()
            energyAlone += sim.energy.total
            movingSeconds += end
        }
        let ratio = auto.energy.total / energyAlone
        let rides = AutoRides(auto)
        print("auto energy day \(backend): \(String(format: "%.0f", auto.energy.total)) units for the day vs "
              + "\(String(format: "%.0f", energyAlone)) for the rides alone (\(String(format: "%.0f", movingSeconds)) s): "
              + "ratio \(String(format: "%.3f", ratio)); by consumer \(auto.energy.byConsumer.mapValues { Int($0) })")
        #expect(rides.rides.count == 2)
        #expect(ratio <= 1.2, "\(ratio)")
    }

    static func end(of legs: ArraySlice<RouteLeg>, from start: Coordinate) -> Coordinate {
        legs.compactMap { $0.waypoints?.last }.last ?? start
    }

    @Test("a day at a desk with GPS drift and the phone picked up now and then starts no ride",
          arguments: LocationBackend.allCases)
    func desk(backend: LocationBackend) throws {
        let desk = Coordinate(uncheckedLatitude: 46.05, longitude: 14.5)
        // Picked up every 40 minutes: walking (medium confidence) for a minute, as when the user
        // walks to a meeting inside the building; GNSS checks each time, indoors in an urban canyon.
        var script: [MotionSetup.ScriptedActivity] = [.init(at: 0, activity: .stationary, confidence: .high)]
        for t in stride(from: 1800.0, to: 36_000, by: 2400) {
            script += [.init(at: t, activity: .walking, confidence: .medium), .init(at: t + 60, activity: .stationary, confidence: .high)]
        }
        let scenario = Scenario(durationSeconds: 36_000, route: ScenarioRoute(start: desk, legs: [.stop(36_000)]),
                                device: AutoFixture.device(),
                                user: UserBehaviour(actions: [UserAction(at: 0, .open), UserAction(at: 60, .background),
                                                              UserAction(at: 14_400, .open), UserAction(at: 14_500, .background)]),
                                world: World(urbanAreas: [BoundingCircle(center: desk, radiusMeters: 2000)]),
                                motion: MotionSetup(mode: .scripted, script: script))
        for seed in UInt64(1)...3 {
            let sim = try Self.run(scenario, backend: backend, seed: seed)
            let app = try #require(sim.engineApp)
            let checks = app.commands.filter {
                switch $0.value { case .startUpdatingLocation, .startLiveUpdates: true; default: false }
            }.count
            let rides = AutoRides(sim)
            print("auto desk \(backend) seed \(seed): \(rides.rides.count) rides, \(checks) GNSS checks")
            #expect(rides.rides.isEmpty, "seed \(seed): \(rides.rides.map(\.id))")
            #expect(checks >= 10, "seed \(seed): the walks made GNSS check (\(checks))")
        }
    }
}
