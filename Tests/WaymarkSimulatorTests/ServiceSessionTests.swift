import Foundation
import Testing
import WaymarkEngine
@testable import WaymarkSimulator

/// Review 2, H3 and M4: on iOS 18, iterating a monitor's events creates an implicit service session
/// that can raise the location prompt (WWDC24 10212; Apple `CLServiceSession`; PLATFORM.md §9), so
/// the iOS 17 backend must open nothing before the permission sequencer has determined authorization.
@Suite("H3/M4: iOS 18 service sessions — the monitor's implicit prompt, explicit sessions")
struct ServiceSessionTests {
    /// Opens the monitor right after launch, with the notification prompt up.
    static func monitorOpenedBesideNotificationPrompt(profile: IOSProfile, explicitKey: Bool) throws -> Simulation {
        var device = DeviceSetup()
        device.requiresExplicitServiceSession = explicitKey
        var sim = try Simulation(scenario: Fixture.opened(device: device, profile: profile))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.requestNotificationAuthorization([.alert]))
        sim.perform(.openMonitor)
        sim.run(until: 30)
        return sim
    }

    @Test("iterating a monitor's events while notDetermined prompts on iOS 18 (a collision beside another prompt); not with NSLocationRequireExplicitServiceSession, not on iOS 17",
          arguments: [(IOSProfile.ios18, false, 1), (.ios18, true, 0), (.ios17, false, 0)] as [(IOSProfile, Bool, Int)])
    func implicitMonitorPrompt(profile: IOSProfile, explicitKey: Bool, collisions: Int) throws {
        let sim = try Self.monitorOpenedBesideNotificationPrompt(profile: profile, explicitKey: explicitKey)
        #expect(sim.stats.promptCollisions == collisions)
        #expect(sim.log.systemNotes.contains { $0.hasPrefix("monitor events iterated while notDetermined") } == (collisions > 0))
    }

    static func firstLaunch(backend: LocationBackend, fences: Bool = true) throws -> Simulation {
        let fence = Fence(id: "park", shape: .circle(center: Fixture.east(2_000), radiusMeters: 300), triggers: [.enter, .exit])
        let scenario = Fixture.opened(route: Fixture.eastbound(speed: 5, seconds: 900), duration: 900)
        var sim = try Simulation(scenario: scenario, seed: 4, app: EngineApp(
            configuration: EngineCore.Configuration(backend: backend),
            script: .init(permissions: [.notifications([.alert]), .locationWhenInUse], fences: fences ? [fence] : [])))
        sim.runToEnd()
        return sim
    }

    @Test("first launch of an engine with fences on either backend: the sequencer's prompts only, no collision, location granted",
          arguments: LocationBackend.allCases)
    func noCollisionAtFirstLaunch(backend: LocationBackend) throws {
        let sim = try Self.firstLaunch(backend: backend)
        #expect(sim.stats.promptCollisions == 0)
        #expect(sim.stats.promptsShown == 2)
        #expect(sim.authorizationStatuses.last == .authorizedWhenInUse)
    }

    @Test("the iOS 17 backend opens the monitor and begins a when-in-use service session only after the user answered; none before")
    func monitorAfterAuthorization() throws {
        let sim = try Self.firstLaunch(backend: .modern)
        let commands = sim.log.entries.compactMap { entry in entry.command.map { (t: entry.t, command: $0) } }
        let open = try #require(commands.firstIndex { $0.command == .openMonitor })
        let granted = try #require(sim.log.entries.first { entry in
            if case .authorizationChanged(let auth) = entry.event { auth.status == .authorizedWhenInUse } else { false }
        })
        #expect(commands[open].t >= granted.t)
        #expect(commands[open...].contains { $0.command == .beginServiceSession(.whenInUse) })
        #expect(!commands[..<open].contains { if case .beginServiceSession = $0.command { true } else { false } })
        #expect(!commands[..<open].contains { if case .addMonitorCondition = $0.command { true } else { false } })
    }

    static func withKey(session: Bool) throws -> Simulation {
        var device = Fixture.existing(.authorizedAlways, modes: [.location])
        device.requiresExplicitServiceSession = true
        let park = MonitoredRegion(identifier: "park", center: Fixture.east(2_000), radiusMeters: 300)
        var sim = try Simulation(scenario: Fixture.opened(route: Fixture.eastbound(speed: 10, seconds: 400), device: device,
                                                          overrides: Fixture.noCache.merging(RegionTests.fixedLatency) { $1 },
                                                          profile: .ios18))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.run(until: 1)
        if session { sim.perform(.beginServiceSession(.always)) }
        sim.perform(.startLiveUpdates(.fitness))
        sim.perform(.openMonitor)
        sim.perform(.addMonitorCondition(park))
        sim.run(until: 300)
        return sim
    }

    static func monitorEvents(_ sim: Simulation) -> Int {
        sim.received.filter { if case .monitorEvent = $0.event { true } else { false } }.count
    }

    static func liveFixes(_ sim: Simulation) -> Int {
        sim.received.filter { if case .liveUpdate(let u) = $0.event { u.fix != nil } else { false } }.count
    }

    @Test("serviceSessionRequired: with NSLocationRequireExplicitServiceSession on iOS 18, an app holding no explicit session gets no live updates and no monitor events; a session releases the held monitor events")
    func withheldWithoutExplicitSession() throws {
        var without = try Self.withKey(session: false)
        #expect(Self.liveFixes(without) == 0)
        #expect(Self.monitorEvents(without) == 0)
        #expect(without.stats.liveUpdatesWithheldForServiceSession > 100)
        without.perform(.beginServiceSession(.always))
        without.run(until: 301)
        #expect(Self.monitorEvents(without) > 0, "held back, not lost: delivered once a session is held")

        let with = try Self.withKey(session: true)
        #expect(Self.liveFixes(with) > 100)
        #expect(Self.monitorEvents(with) > 0)
        #expect(with.stats.liveUpdatesWithheldForServiceSession == 0)
    }

    @Test("the engine on the iOS 17/18 backend with the key declared holds its session, so nothing is withheld: the fence's crossing arrives")
    func engineHoldsItsSession() throws {
        var device = DeviceSetup()
        device.requiresExplicitServiceSession = true
        let fence = Fence(id: "park", shape: .circle(center: Fixture.east(2_000), radiusMeters: 300), triggers: [.enter, .exit])
        let scenario = Fixture.opened(route: Fixture.eastbound(speed: 5, seconds: 900), device: device, profile: .ios18, duration: 900)
        var sim = try Simulation(scenario: scenario, seed: 4, app: EngineApp(
            configuration: EngineCore.Configuration(backend: .modern),
            script: .init(permissions: [.notifications([.alert]), .locationWhenInUse], fences: [fence])))
        sim.runToEnd()
        #expect(sim.stats.liveUpdatesWithheldForServiceSession == 0)
        #expect(sim.received.contains { if case .monitorEvent(_, .satisfied) = $0.event { true } else { false } },
                "the crossing into the fence reaches the app")
        #expect(sim.stats.promptCollisions == 0)
    }
}
