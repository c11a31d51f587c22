import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

/// The engine's behaviour on both location backends: `CLLocationManager` and the iOS 17 APIs
/// (`CLLocationUpdate`, `CLBackgroundActivitySession`, `CLMonitor`), one test body per backend.
@Suite("The engine on both backends")
struct EngineBackendsSimulationTests {
    static func configuration(_ backend: LocationBackend) -> EngineCore.Configuration {
        EngineCore.Configuration(backend: backend)
    }

    /// Location starts (`startUpdatingLocation` or `startLiveUpdates`) the app performed, in virtual seconds.
    static func locationStarts(_ sim: Simulation) -> [Double] {
        sim.commandTimes {
            switch $0 { case .startUpdatingLocation, .startLiveUpdates: true; default: false }
        }
    }

    static func locationStops(_ sim: Simulation) -> [Double] {
        sim.commandTimes { $0 == .stopUpdatingLocation || $0 == .stopLiveUpdates }
    }

    static func circle(_ id: String, east meters: Double, radius: Double) -> Fence {
        Fence(id: id, shape: .circle(center: Fixture.east(meters), radiusMeters: radius), triggers: [.enter, .exit])
    }

    static func alwaysInstall() -> DeviceSetup {
        DeviceSetup(install: .existing, location: .authorizedAlways, motion: .granted, backgroundModes: [.location])
    }

    @Test("first launch: notifications, then location, never together; one launch fix; location released after it",
          arguments: LocationBackend.allCases)
    func firstLaunch(backend: LocationBackend) throws {
        let scenario = Fixture.opened(overrides: Fixture.noCache, duration: 120)
        var sim = try Simulation(scenario: scenario, seed: 3, app: EngineApp.mapApp(configuration: Self.configuration(backend)))
        sim.runToEnd()
        let app = try #require(sim.engineApp)
        #expect(app.permissionBatches.first?.map(\.result) == [.granted, .granted])
        #expect(sim.stats.promptCollisions == 0)
        #expect(app.launchStates.filter { $0.value.fix != nil }.count == 1)
        #expect(Self.locationStarts(sim).count == 1)
        #expect(Self.locationStops(sim).count == 1)
        if backend == .modern {
            #expect(sim.log.entries.contains { $0.command == .openMonitor })
            #expect(!sim.log.entries.contains { if case .startUpdatingLocation = $0.command { true } else { false } })
        }
    }

    @Test("a ride past two fences with GNSS on: each fence entered and exited once, decided live from fixes",
          arguments: LocationBackend.allCases)
    func rideWithFences(backend: LocationBackend) throws {
        // Balanced fences (the default): their tracker's demand must not change the ride's activity
        // type, or the iOS 17 backend restarts its live updates at each change and records fewer fixes.
        let fences = [Self.circle("a", east: 1_000, radius: 200), Self.circle("b", east: 2_500, radius: 250)]
        let scenario = Scenario(durationSeconds: 700, route: Fixture.eastbound(speed: 6, seconds: 600),
                                device: Self.alwaysInstall(),
                                user: UserBehaviour(actions: [UserAction(at: 0, .open), UserAction(at: 60, .background)]),
                                platform: PlatformSetup(overrides: Fixture.noCache))
        var sim = try Simulation(scenario: scenario, seed: 4,
                                 app: EngineApp(configuration: Self.configuration(backend), script: .init(startsRide: true, fences: fences)))
        sim.runToEnd()
        let app = try #require(sim.engineApp)
        for id in ["a", "b"] {
            let events = app.fenceEvents.filter { $0.fenceID == id }
            #expect(events.map(\.kind) == [.enter, .exit], "\(id): \(events.map(\.kind))")
            #expect(events.allSatisfy { $0.timing == .live })
        }
        #expect(app.recordedFixes.count > 100, "\(app.recordedFixes.count)")
        #expect(sim.stats.crashes == 0)
    }

    @Test("a ride that stops for ten minutes: auto-paused at the stop, recording again once moving on",
          arguments: LocationBackend.allCases)
    func rideWithStop(backend: LocationBackend) throws {
        let route = ScenarioRoute(start: Fixture.origin, legs: [.travel([Fixture.east(1_500)], speed: 5), .stop(600),
                                                               .travel([Fixture.east(3_000)], speed: 5)])
        let scenario = Scenario(durationSeconds: 1_300, route: route, device: Self.alwaysInstall(),
                                user: UserBehaviour(actions: [UserAction(at: 0, .open), UserAction(at: 60, .background)]),
                                platform: PlatformSetup(overrides: Fixture.noCache))
        var sim = try Simulation(scenario: scenario, seed: 5,
                                 app: EngineApp(configuration: Self.configuration(backend), script: .init(startsRide: true)))
        sim.runToEnd()
        let app = try #require(sim.engineApp)
        let states = app.rideStates.map(\.value)
        let paused = try #require(states.firstIndex(of: .autoPaused), "\(states)")
        #expect(states[paused...].contains(.moving), "\(states)")
        let after = app.recordedFixes.filter { $0.timestamp.timeIntervalSince(sim.epoch) > 1_000 }
        #expect(after.count > 30, "recorded after the stop: \(after.count)")
        if backend == .modern {
            // iOS reported the stop and paused the updates itself, then resumed them: the engine
            // never stopped them for the stop.
            #expect(sim.received.contains { if case .liveUpdate(let u) = $0.event { u.isStationary } else { false } })
            #expect(sim.log.systemNotes.contains { $0.hasPrefix("live updates resumed by iOS") })
        }
    }

    @Test("in a pocket (no GNSS, app suspended): iOS reports the crossing of a large fence late, and the event says so",
          arguments: LocationBackend.allCases)
    func pocket(backend: LocationBackend) throws {
        // iOS region events only: the fence's mode is regions (balanced, the default, would run updates near it).
        var park = Self.circle("park", east: 2_000, radius: 500)
        park.mode = .regions
        let fences = [park]
        let scenario = Scenario(durationSeconds: 2_400, route: Fixture.eastbound(speed: 4, seconds: 1_200),
                                device: Self.alwaysInstall(),
                                user: UserBehaviour(actions: [UserAction(at: 0, .open), UserAction(at: 60, .background)]),
                                platform: PlatformSetup(overrides: Fixture.noCache.merging(["regionMissProbability": .number(0)]) { $1 }))
        var sim = try Simulation(scenario: scenario, seed: 6,
                                 app: EngineApp(configuration: Self.configuration(backend), script: .init(fences: fences)))
        sim.runToEnd()
        let app = try #require(sim.engineApp)
        let events = app.fenceEvents.filter { $0.fenceID == "park" }
        #expect(events.map(\.kind) == [.enter, .exit], "\(events.map(\.kind))")
        #expect(events.allSatisfy { $0.timing != .live }, "\(events.map(\.timing))")
        if backend == .modern {
            #expect(sim.log.entries.contains { if case .addMonitorCondition = $0.command { true } else { false } })
            #expect(!sim.log.entries.contains { if case .startMonitoring = $0.command { true } else { false } })
        }
    }
}
