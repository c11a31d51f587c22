import Foundation
import Testing
import WaymarkEngine
@testable import WaymarkSimulator
import WaymarkGeo

@Suite("§8 app lifecycle and §9 energy")
struct LifecycleEnergyTests {
    @Test("launch, background, foreground: the app sees launched, didEnterBackground, willEnterForeground — never suspension")
    func lifecycleEvents() throws {
        var sim = try Simulation(scenario: Fixture.opened(actions: [UserAction(at: 10, .background), UserAction(at: 100, .open)]))
        sim.run(until: 50)
        #expect(sim.appState == .suspended)
        #expect(sim.log.systemNotes.contains("suspended"))
        sim.run(until: 200)
        #expect(sim.received.map(\.event) == [.launched(reason: .user), .didEnterBackground, .willEnterForeground])
    }

    @Test("a background task that is not ended when time runs out gets the app killed")
    func taskNotEnded() throws {
        var sim = try Simulation(scenario: Fixture.opened(actions: [UserAction(at: 10, .background)]))
        sim.run(until: 0)
        sim.perform(.beginBackgroundTask(id: 7))
        sim.run(until: 39)
        #expect(sim.appState == .background)
        sim.run(until: 40)
        #expect(sim.received.last?.event == .backgroundTaskExpired(id: 7))
        sim.run(until: 45)
        #expect(sim.appState == .notRunning)
    }

    @Test("force-quit ends background location immediately and for good")
    func forceQuitStopsEverything() throws {
        var sim = try StandardUpdateTests.started(LocationConfiguration(pausesLocationUpdatesAutomatically: false,
                                                                        allowsBackgroundLocationUpdates: true),
                                                  modes: [.location],
                                                  actions: [UserAction(at: 10, .background), UserAction(at: 100, .forceQuit)])
        sim.run(until: 600)
        #expect(sim.appState == .notRunning)
        #expect(sim.fixes.allSatisfy { $0.timestamp.timeIntervalSince(sim.epoch) <= 100 })
        #expect(abs(sim.energy[.gnss] - 100) <= 1)
    }

    @Test("energy by consumer follows the table: GNSS per second, a wake per delivery, the app only while running")
    func energyByConsumer() throws {
        var sim = try StandardUpdateTests.started(LocationConfiguration(pausesLocationUpdatesAutomatically: false),
                                                  actions: [UserAction(at: 600, .background)])
        sim.run(until: 1200)
        #expect(abs(sim.energy[.gnss] - 605) < 1)              // the receiver runs until the suspension
        #expect(abs(sim.energy[.cpuWake] - 0.02 * Double(sim.stats.locationDeliveries)) < 1e-9)
        #expect(abs(sim.energy[.app] - 0.01 * 605) < 0.05)     // suspended 5 s after backgrounding
        #expect(sim.energy[.wifi] == 0 && sim.energy[.radio] == 0)
    }

    @Test("the other rates of the table: Wi-Fi 0.15/s, cell 0.05/s, region monitoring 0.002/s, motion 0.001/s")
    func energyRates() throws {
        var wifi = try StandardUpdateTests.started(LocationConfiguration(desiredAccuracy: .hundredMeters,
                                                                         pausesLocationUpdatesAutomatically: false))
        // kilometer: cell cost only where no Wi-Fi is known; elsewhere Wi-Fi positioning answers it [S37].
        var cell = try StandardUpdateTests.started(LocationConfiguration(desiredAccuracy: .kilometer,
                                                                         pausesLocationUpdatesAutomatically: false),
                                                   world: StandardUpdateTests.noWifi)
        var coarseWifi = try StandardUpdateTests.started(LocationConfiguration(desiredAccuracy: .kilometer,
                                                                               pausesLocationUpdatesAutomatically: false))
        wifi.run(until: 1000)
        cell.run(until: 1000)
        coarseWifi.run(until: 1000)
        #expect(abs(wifi.energy[.wifi] - 150) < 0.5 && wifi.energy[.gnss] == 0)
        #expect(abs(cell.energy[.cell] - 50) < 0.5 && cell.energy[.gnss] == 0 && cell.energy[.wifi] == 0)
        #expect(abs(coarseWifi.energy[.wifi] - 150) < 0.5 && coarseWifi.energy[.cell] == 0 && coarseWifi.energy[.gnss] == 0)

        var watcher = try Simulation(scenario: Fixture.opened(device: Fixture.existing(.authorizedAlways, motion: .granted)))
        watcher.run(until: 0)
        watcher.perform(.createLocationManager)
        watcher.perform(.startMonitoring(RegionTests.far))
        watcher.perform(.startMotionActivityUpdates)
        watcher.run(until: 1000)
        #expect(abs(watcher.energy[.regionMonitoring] - 2) < 0.01)
        #expect(abs(watcher.energy[.motion] - 1) < 0.01)
        #expect(watcher.energy[.gnss] == 0 && watcher.energy[.wifi] == 0)
    }

    @Test("the energy table can be overridden per scenario")
    func energyOverride() throws {
        var sim = try StandardUpdateTests.started(LocationConfiguration(pausesLocationUpdatesAutomatically: false),
                                                  overrides: ["cachedFixProbability": .number(0),
                                                              "energy": .object(["gnssPerSecond": .number(2)])])
        sim.run(until: 100)
        #expect(abs(sim.energy[.gnss] - 200) < 1)
    }
}
