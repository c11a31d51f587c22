import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

/// The iOS 17 location APIs in the simulator (PLATFORM.md §9).
@Suite("§9 iOS 17 location APIs")
struct ModernLocationTests {
    static func liveUpdates(_ sim: Simulation) -> [LiveUpdate] {
        sim.received.compactMap { if case .liveUpdate(let u) = $0.event { u } else { nil } }
    }

    static func started(device: DeviceSetup = Fixture.existing(.authorizedAlways, modes: [.location]),
                        route: ScenarioRoute? = nil, actions: [UserAction] = [],
                        overrides: [String: JSONValue] = [:]) throws -> Simulation {
        var sim = try Simulation(scenario: Fixture.opened(route: route, device: device, actions: actions,
                                                          overrides: Fixture.noCache.merging(overrides) { $1 }))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        return sim
    }

    @Test("live updates deliver fixes; stationary after the still time, then resumed by iOS itself when the device moves")
    func stationaryPauseAndResume() throws {
        let route = ScenarioRoute(start: Fixture.origin, legs: [.travel([Fixture.east(600)], speed: 5), .stop(400),
                                                               .travel([Fixture.east(1_200)], speed: 5)])
        var sim = try Self.started(route: route, overrides: ["liveStationarySeconds": .number(120)])
        sim.perform(.startLiveUpdates(.fitness))
        sim.run(until: 700)
        let updates = Self.liveUpdates(sim)
        let stationary = try #require(sim.times { if case .liveUpdate(let u) = $0 { u.isStationary } else { false } }.first)
        #expect(abs(stationary - (120 + 120)) <= 2, "the stop begins at 120 s; stationary 120 s later: \(stationary)")
        let fixTimes = sim.times { if case .liveUpdate(let u) = $0 { u.fix != nil && !u.isStationary } else { false } }
        #expect(!fixTimes.contains { $0 > stationary && $0 < 520 }, "nothing while stationary")
        #expect(fixTimes.contains { $0 > 530 }, "resumed by iOS once moving, no new start")
        #expect(sim.commandTimes { if case .startLiveUpdates = $0 { true } else { false } }.count == 1)
        #expect(updates.filter(\.isStationary).count == 1)
    }

    @Test("a background activity session keeps a when-in-use app's live updates in the background; without one they stop",
          arguments: [true, false])
    func backgroundSession(session: Bool) throws {
        var sim = try Self.started(device: Fixture.existing(.authorizedWhenInUse, modes: [.location]),
                                   route: Fixture.eastbound(speed: 5, seconds: 300), actions: [UserAction(at: 30, .background)])
        sim.perform(.startLiveUpdates(.fitness))
        if session { sim.perform(.beginBackgroundActivitySession) }
        sim.run(until: 200)
        let late = Self.liveUpdates(sim).compactMap(\.fix).filter { $0.timestamp.timeIntervalSince(sim.epoch) > 100 }
        #expect(late.isEmpty != session)
        #expect(sim.appState == (session ? .background : .suspended))
    }

    @Test("a background activity session cannot be created from the background")
    func sessionFromBackground() throws {
        var sim = try Self.started(device: Fixture.existing(.authorizedWhenInUse, modes: [.location]),
                                   actions: [UserAction(at: 10, .background), UserAction(at: 60, .silentPush)])
        sim.run(until: 60)
        sim.perform(.beginBackgroundActivitySession)
        #expect(sim.log.systemNotes.contains { $0.hasPrefix("background activity session refused") })
    }

    @Test("a refused background activity session is reported to the app (LiveDevice does the same)")
    func refusalReported() throws {
        var sim = try Self.started(device: Fixture.existing(.authorizedWhenInUse, modes: [.location]),
                                   actions: [UserAction(at: 10, .background), UserAction(at: 60, .silentPush)])
        sim.run(until: 60)
        sim.perform(.beginBackgroundActivitySession)
        #expect(sim.received.contains { $0.event == .backgroundActivitySessionRefused })
    }

    @Test("M5: a when-in-use app that kept its session across a stop restarts live updates from a background wake; one that ended it cannot",
          arguments: [true, false])
    func sessionKeptAcrossStop(kept: Bool) throws {
        var sim = try Self.started(device: Fixture.existing(.authorizedWhenInUse, modes: [.location]),
                                   route: Fixture.eastbound(speed: 5, seconds: 600),
                                   actions: [UserAction(at: 30, .background), UserAction(at: 240, .silentPush)])
        sim.perform(.startLiveUpdates(.fitness))
        sim.perform(.beginBackgroundActivitySession)
        sim.run(until: 100)
        sim.perform(.stopLiveUpdates)
        if !kept { sim.perform(.endBackgroundActivitySession) }
        sim.run(until: 240)
        sim.perform(.startLiveUpdates(.fitness))
        if !kept { sim.perform(.beginBackgroundActivitySession) }
        sim.run(until: 500)
        let late = Self.liveUpdates(sim).compactMap(\.fix).filter { $0.timestamp.timeIntervalSince(sim.epoch) > 300 }
        #expect(late.isEmpty != kept, "\(late.count) fixes after 300 s")
        #expect(sim.received.contains { $0.event == .backgroundActivitySessionRefused } != kept)
    }

    @Test("iterating live updates while notDetermined raises the when-in-use prompt; a service session goal does too")
    func implicitPrompt() throws {
        for command in [DeviceCommand.startLiveUpdates(.default), .beginServiceSession(.whenInUse)] {
            var sim = try Simulation(scenario: Fixture.opened(overrides: Fixture.noCache))
            sim.run(until: 0)
            sim.perform(.createLocationManager)
            sim.perform(command)
            sim.run(until: 30)
            #expect(sim.log.systemNotes.contains("prompt shown: location when-in-use"), "\(command)")
        }
    }

    @Test("a monitor condition reports its state once known, each crossing as one event, and again when the monitor is opened")
    func monitorConditions() throws {
        let park = MonitoredRegion(identifier: "park", center: Fixture.east(2_000), radiusMeters: 300)
        var sim = try Self.started(route: Fixture.eastbound(speed: 10, seconds: 400),
                                   overrides: RegionTests.fixedLatency)
        sim.perform(.openMonitor)
        sim.perform(.addMonitorCondition(park))
        sim.run(until: 600)
        let events = sim.received.compactMap { if case .monitorEvent(let id, let state) = $0.event, id == "park" { state } else { nil } }
        #expect(events == [.unsatisfied, .satisfied, .unsatisfied], "\(events)")
        #expect(!sim.received.contains { if case .regionEntered = $0.event { true } else { false } })
        sim.perform(.openMonitor)
        let last = sim.received.last?.event
        #expect(last == .monitorEvent(identifier: "park", state: .unsatisfied))
        sim.perform(.removeMonitorCondition(identifier: "park"))
        #expect(sim.monitoredRegionIdentifiers.isEmpty)
    }
}
