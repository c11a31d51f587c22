import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

@Suite("Engine in the simulator: first launch, permissions and the launch fix")
struct EngineLaunchSimulationTests {
    struct Combination: Sendable, CustomTestStringConvertible {
        var notifications: PromptResponse.Answer
        var location: PromptResponse.Answer
        var apnsAvailable: Bool
        var testDescription: String { "notifications \(notifications), location \(location), APNs \(apnsAvailable ? "up" : "failing")" }
    }

    static let combinations: [Combination] = [PromptResponse.Answer.allow, .deny].flatMap { n in
        [PromptResponse.Answer.allow, .deny].flatMap { l in [true, false].map { Combination(notifications: n, location: l, apnsAvailable: $0) } }
    }

    static func firstLaunch(_ c: Combination, seed: UInt64 = 1, backend: LocationBackend = .locationManager) throws -> Simulation {
        let scenario = Fixture.opened(prompts: [.notifications: PromptResponse(c.notifications),
                                                .locationWhenInUse: PromptResponse(c.location)],
                                      world: World(network: World.Network(apnsAvailable: c.apnsAvailable)), duration: 300)
        var sim = try Simulation(scenario: scenario, seed: seed, app: EngineApp.mapApp(configuration: .init(backend: backend)))
        sim.runToEnd()
        return sim
    }

    @Test("no prompt collision, correct results, location started at most once", arguments: combinations, LocationBackend.allCases)
    func firstLaunchCombinations(c: Combination, backend: LocationBackend) throws {
        let sim = try Self.firstLaunch(c, backend: backend)
        let app = try #require(sim.engineApp)
        #expect(sim.stats.promptCollisions == 0)
        #expect(sim.stats.promptsShown == 2)
        let outcomes = try #require(app.permissionBatches.first)
        #expect(outcomes.map(\.result) == [c.notifications == .allow ? .granted : .denied,
                                           c.location == .allow ? .granted : .denied])
        if c.notifications == .allow {
            let registration = try #require(outcomes[0].remoteRegistration)
            if case .token = registration { #expect(c.apnsAvailable) } else { #expect(!c.apnsAvailable) }
        }
        // The location prompt came only after the notification exchange ended (answer, and the registration).
        let locationRequest = try #require(sim.commandTimes { $0 == .requestWhenInUseAuthorization }.first)
        let exchangeEnd = sim.times {
            switch $0 {
            case .remoteRegistration: true
            case .notificationAuthorization(granted: false): true
            default: false
            }
        }
        #expect(exchangeEnd.count == 1 && exchangeEnd[0] <= locationRequest)
        // §2 callback sequences.
        #expect(sim.authorizationStatuses == [.notDetermined, c.location == .allow ? .authorizedWhenInUse : .denied])
        #expect(sim.startTimes.count == (c.location == .allow ? 1 : 0))
        let final = try #require(app.launchStates.last?.value)
        if c.location == .allow {
            #expect(final.fix != nil)
            #expect(sim.stopTimes.count == 1)
        } else {
            #expect(final == .unavailable(.denied))
        }
    }

    @Test("the naive app that asks for both at launch collides (so collisions are detected)")
    func naiveCollides() throws {
        var sim = try Simulation(scenario: Fixture.opened(duration: 120), app: NaiveMapApp())
        sim.runToEnd()
        #expect(sim.stats.promptCollisions >= 1)
        #expect(sim.authorizationStatuses == [.notDetermined])   // the lost location request never got an answer
    }

    @Test("the stale cached first fix is rejected; the accepted fix is fresh and accurate; stop within 1 s")
    func staleCachedFix() throws {
        // A cached fix that is accurate enough (65–80 m), so only its age can reject it.
        let scenario = Fixture.opened(overrides: ["cachedFixProbability": .number(1), "cachedFixAccuracyMinMeters": .number(65),
                                                  "cachedFixAccuracyMaxMeters": .number(80)], duration: 120)
        var sim = try Simulation(scenario: scenario, seed: 3, app: EngineApp.mapApp(requests: [.locationWhenInUse]))
        sim.runToEnd()
        let app = try #require(sim.engineApp)
        let delivered = sim.received.compactMap { timed -> (Date, Fix)? in
            if case .locations(let fixes) = timed.event, let fix = fixes.first { (timed.time, fix) } else { nil }
        }
        let (firstArrival, cached) = try #require(delivered.first)
        #expect(firstArrival.timeIntervalSince(cached.timestamp) > 10)      // the simulator did hand out a stale fix
        #expect(try #require(cached.horizontalAccuracy) <= 100)
        let last = try #require(app.launchStates.last)
        let (acceptedAt, state) = (last.time, last.value)
        let fix = try #require(state.fix)
        #expect(fix != cached)
        #expect(acceptedAt.timeIntervalSince(fix.timestamp) <= 10)
        #expect(try #require(fix.horizontalAccuracy) <= 100)
        let stop = try #require(sim.stopTimes.first)
        #expect(stop - acceptedAt.timeIntervalSince(sim.epoch) < 1)
    }

    @Test("a missing usage description is reported as misconfigured after the timeout, not a hang")
    func missingUsageDescription() throws {
        let scenario = Fixture.opened(device: DeviceSetup(usageDescriptions: []), duration: 120)
        var sim = try Simulation(scenario: scenario, app: EngineApp.mapApp(requests: [.locationWhenInUse, .notifications([.alert])]))
        sim.runToEnd()
        let app = try #require(sim.engineApp)
        #expect(sim.stats.missingUsageDescriptions == 1)
        #expect(app.permissionBatches.first?.map(\.result) == [.misconfigured(missingUsageDescription: .locationWhenInUse), .granted])
        #expect(sim.stats.promptCollisions == 0)
        #expect(sim.startTimes.isEmpty)
    }

    @Test("no acceptable fix in a GNSS outage: unavailable(timeout) and the service is released")
    func timeoutInOutage() throws {
        let outage = World.Outage(window: TimeWindow(from: 0))
        let scenario = Fixture.opened(device: Fixture.existing(.authorizedWhenInUse, notifications: .granted),
                                      world: World(outages: [outage]),
                                      overrides: ["cachedFixProbability": .number(0)], duration: 120)
        var sim = try Simulation(scenario: scenario, app: EngineApp.mapApp(requests: []))
        sim.runToEnd()
        let app = try #require(sim.engineApp)
        #expect(app.launchStates.last?.value == .unavailable(.timeout))
        #expect(sim.startTimes == [0])
        #expect(sim.stopTimes == [20])
    }
}
