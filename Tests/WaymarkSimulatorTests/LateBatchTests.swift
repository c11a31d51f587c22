import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

@Suite("§3 fixes arrive late and in batches after a suspension, and are lost with the process")
struct LateBatchTests {
    /// Significant changes on a fixed cadence, so the tests can name the measurement times: a fresh
    /// (not cached) cell fix at the start, then every 500 m at most every 5 min, no idle wakes.
    static let regularSignificantChanges: [String: JSONValue] = [
        "cachedFixProbability": .number(0), "significantChangeWifiProbability": .number(0),
        "significantChangeRuralMinMeters": .number(500), "significantChangeRuralMaxMeters": .number(500),
        "significantChangeIdleWakeSeconds": .number(0),
    ]

    /// A when-in-use app that started significant changes at 0, then rides east for 20 min at 5 m/s:
    /// the system measures a significant change at 300, 600, 900 and 1200 s but may not wake the app.
    static func riding(_ actions: [UserAction], status: LocationAuthorizationStatus = .authorizedWhenInUse,
                       overrides: [String: JSONValue] = [:]) throws -> Simulation {
        var sim = try Simulation(scenario: Fixture.opened(route: Fixture.eastbound(speed: 5, seconds: 1200),
                                                          device: Fixture.existing(status), actions: actions,
                                                          overrides: regularSignificantChanges.merging(overrides) { $1 },
                                                          duration: 2000))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.startSignificantChanges)
        return sim
    }

    /// `.locations` deliveries with their arrival seconds.
    static func deliveries(_ sim: Simulation) -> [(arrival: Double, fixes: [Fix])] {
        sim.received.compactMap { timed in
            if case .locations(let fixes) = timed.event { (timed.time.timeIntervalSince(sim.epoch), fixes) } else { nil }
        }
    }

    @Test("fixes measured while suspended arrive in one batch on resume, oldest first, with their own timestamps")
    func batchOnResume() throws {
        var sim = try Self.riding([UserAction(at: 10, .background), UserAction(at: 1500, .open)])
        sim.run(until: 1499)
        #expect(sim.appState == .suspended)
        #expect(Self.deliveries(sim).isEmpty)
        sim.run(until: 1600)
        let batches = Self.deliveries(sim)
        #expect(batches.count == 1)
        let batch = try #require(batches.first)
        #expect(batch.arrival == 1500)
        let measured = batch.fixes.map { $0.timestamp.timeIntervalSince(sim.epoch) }
        #expect(measured == [300, 600, 900, 1200])
        #expect(batch.fixes.allSatisfy { $0.source == .cell })
        // Positions belong to the measurement time, not to the arrival: 1.5 km apart along the ride.
        let spacing = zip(batch.fixes, batch.fixes.dropFirst()).map { Geodesy.haversineDistance($0.coordinate, $1.coordinate) }
        #expect(spacing.allSatisfy { $0 > 500 })
        #expect(sim.stats.fixesDeliveredLate == 4)
    }

    @Test("the batch comes after the foreground callback; an app woken in the background gets it before the waking event")
    func orderOnWake() throws {
        // The upgrade to Always must not terminate the suspended app here (a field-evidence setting,
        // default: any change terminates [S13]): this test is about the order on a wake-up.
        var sim = try Self.riding([UserAction(at: 10, .background),
                                   UserAction(at: 700, .settings, location: .authorizedAlways)],
                                  overrides: ["settingsChangeTermination": .string("downgradeOnly")])
        sim.run(until: 900)
        // Always now lets the significant change at 900 wake the app: first what was held, then the new event.
        let woken = sim.received.suffix(2).map(\.event)
        #expect(woken.count == 2)
        guard case .locations(let held)? = woken.first else { Issue.record("no held batch first: \(woken)"); return }
        #expect(held.map { $0.timestamp.timeIntervalSince(sim.epoch) } == [300, 600])
        guard case .significantChange(let fix)? = woken.last else { Issue.record("no waking event: \(woken)"); return }
        #expect(fix.timestamp.timeIntervalSince(sim.epoch) == 900)
    }

    @Test("nothing survives a termination: after a location relaunch the app gets the relaunching event, no backlog")
    func nothingAfterRelaunch() throws {
        // Apple documents the queue for a suspended app only [S41]; fixes measured while the app is
        // not running are lost (issue #14, audit C4).
        var sim = try Self.riding([UserAction(at: 10, .background), UserAction(at: 20, .systemTerminate),
                                   UserAction(at: 700, .settings, location: .authorizedAlways)])
        sim.run(until: 900)
        #expect(sim.received.last?.event == .launched(reason: .background))   // UIScene: no launch key
        #expect(sim.stats.launches["location"] == 1)
        let before = Self.deliveries(sim).count
        sim.perform(.createLocationManager)
        let events = sim.received.suffix(2).map(\.event)
        #expect(events.first == .authorizationChanged(LocationAuthorization(status: .authorizedAlways)))
        #expect(Self.deliveries(sim).dropFirst(before).isEmpty, "no held batch")
        if case .significantChange(let fix)? = events.last {
            #expect(fix.timestamp.timeIntervalSince(sim.epoch) == 900)
        } else {
            Issue.record("the relaunching event should follow the callback: \(events)")
        }
        #expect(sim.stats.fixesDeliveredLate == 0)
        #expect(sim.stats.fixesLostWithProcess == 0, "300 and 600 were measured while not running: never held")
    }

    @Test("a user launch after a system termination gets no backlog either")
    func nothingAfterUserLaunch() throws {
        var sim = try Self.riding([UserAction(at: 10, .background), UserAction(at: 20, .systemTerminate),
                                   UserAction(at: 1500, .open)])
        sim.run(until: 1500)
        sim.perform(.createLocationManager)
        sim.run(until: 1600)
        #expect(Self.deliveries(sim).isEmpty)
        #expect(sim.stats.fixesDeliveredLate == 0)
        #expect(sim.stats.fixesLostWithProcess == 0, "measured while not running: never held")
    }

    @Test("fixes held for a suspended app are lost when the system terminates it; the suspended-then-resumed app still gets its batch",
          arguments: [true, false])
    func heldFixesLostAtTermination(terminated: Bool) throws {
        var actions = [UserAction(at: 10, .background), UserAction(at: 1500, .open)]
        if terminated { actions.insert(UserAction(at: 700, .systemTerminate), at: 1) }
        var sim = try Self.riding(actions)
        sim.run(until: 1500)
        sim.perform(.createLocationManager)
        sim.run(until: 1600)
        let measured = Self.deliveries(sim).map { $0.fixes.map { $0.timestamp.timeIntervalSince(sim.epoch) } }
        if terminated {
            #expect(measured.isEmpty)
            #expect(sim.stats.fixesLostWithProcess == 2)   // 300 and 600 were held; 900 and 1200 never are
            #expect(sim.log.systemNotes.contains("2 held fix(es) lost with the process"))
        } else {
            #expect(measured == [[300, 600, 900, 1200]])
            #expect(sim.stats.fixesLostWithProcess == 0)
        }
    }

    @Test("a crash ends the process like a system termination: what is measured meanwhile is lost, and location events still relaunch an Always app")
    func crashIsNoForceQuit() throws {
        var sim = try Self.riding([], status: .authorizedAlways)
        sim.run(until: 100)
        sim.perform(.startUpdatingLocation(LocationConfiguration(allowsBackgroundLocationUpdates: true)))   // no location mode [S21]
        #expect(sim.appState == .notRunning)
        #expect(sim.stats.crashes == 1)
        sim.run(until: 305)
        #expect(sim.stats.launches["location"] == 1, "relaunched by the significant change at 300 s")
        #expect(sim.appState == .background)
    }

    @Test("a force-quit discards held fixes and nothing is held until the user opens the app again")
    func forceQuitDiscards() throws {
        var sim = try Self.riding([UserAction(at: 10, .background), UserAction(at: 700, .forceQuit),
                                   UserAction(at: 1500, .open)])
        sim.run(until: 1500)
        sim.perform(.createLocationManager)
        sim.run(until: 1600)
        #expect(Self.deliveries(sim).isEmpty)
        #expect(sim.stats.fixesDeliveredLate == 0)
    }

    @Test("the system holds at most heldFixLimit fixes and drops the oldest")
    func limit() throws {
        var sim = try Self.riding([UserAction(at: 10, .background), UserAction(at: 1500, .open)],
                                  overrides: ["heldFixLimit": .number(2)])
        sim.run(until: 1600)
        #expect(Self.deliveries(sim).map { $0.fixes.map { $0.timestamp.timeIntervalSince(sim.epoch) } } == [[900, 1200]])
    }

    @Test("a one-shot request that completes after the app was suspended is delivered late, not lost")
    func oneShotAcrossSuspension() throws {
        var sim = try Simulation(scenario: Fixture.opened(device: Fixture.existing(.authorizedWhenInUse),
                                                          actions: [UserAction(at: 1, .background), UserAction(at: 100, .open)],
                                                          overrides: ["gnssTimeToFirstFixMinSeconds": .number(8),
                                                                      "gnssTimeToFirstFixMaxSeconds": .number(9)]))
        sim.run(until: 0)
        sim.perform(.createLocationManager)
        sim.perform(.requestLocation(.best))
        sim.run(until: 99)
        #expect(sim.appState == .suspended)              // at 6 s; the fix is measured at 8–9 s
        #expect(Self.deliveries(sim).isEmpty)
        sim.run(until: 100)
        let late = try #require(Self.deliveries(sim).first)
        #expect(late.arrival == 100)
        #expect(late.fixes.count == 1)
        #expect((8...9).contains(late.fixes[0].timestamp.timeIntervalSince(sim.epoch)))
    }
}
