import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

/// Wake-ups while still (issue #32 item 4) in the simulator: the heartbeat through iOS's
/// app-refresh task, opportunistic as iOS runs it, and tracking windows with automatic tracking.
@Suite("Heartbeat and tracking windows in the simulator")
struct HeartbeatSimulationTests {
    static let id = "com.example.rides.heartbeat"
    static let epoch = Date(timeIntervalSince1970: 1_795_000_000)

    /// A phone that lies on a desk for a day, the app opened once and pocketed.
    static func desk(hours: Double = 24, _ change: (inout DeviceSetup) -> Void = { _ in },
                     actions: [UserAction] = [UserAction(at: 0, .open), UserAction(at: 60, .background)]) -> Scenario {
        var device = DeviceSetup(install: .existing, location: .authorizedAlways, notifications: .granted, motion: .granted,
                                 backgroundModes: [.location, .fetch])
        change(&device)
        return Scenario(name: "a day on a desk", startTime: epoch, durationSeconds: hours * 3_600,
                        route: ScenarioRoute(start: Coordinate(uncheckedLatitude: 46.05, longitude: 14.5), legs: [.stop(hours * 3_600)]),
                        device: device, user: UserBehaviour(actions: actions))
    }

    static func run(_ scenario: Scenario, seed: UInt64 = 1, heartbeat: Heartbeat.Configuration = .init(taskIdentifier: id)) throws -> Simulation {
        var sim = try Simulation(scenario: scenario, seed: seed, app: EngineApp(configuration: EngineCore.Configuration(heartbeat: heartbeat)))
        sim.runToEnd()
        return sim
    }

    static func beats(_ sim: Simulation) -> [Heartbeat.Beat] {
        sim.engineApp!.timeline.compactMap { if case .heartbeat(.beat(let beat)) = $0.value { beat } else { nil } }
    }

    @Test("a daily app: iOS wakes it now and then for a day, each wake gives a fix and is completed in time, and the app is suspended between",
          arguments: [UInt64(1), 2, 3])
    func dailyApp(seed: UInt64) throws {
        let sim = try Self.run(Self.desk(), seed: seed)
        let beats = Self.beats(sim)
        print("heartbeat daily seed \(seed): \(sim.stats.appRefreshRuns) wakes, \(beats.filter { $0.fix != nil }.count) with a fix, "
              + "launches \(sim.stats.launches), suspensions \(sim.stats.suspensions)")
        // 15-minute interval plus 0–1 h: between 24 h / 75 min (19) and 24 h / 15 min (96) wakes.
        #expect(sim.stats.appRefreshRuns >= 15 && sim.stats.appRefreshRuns <= 96)
        #expect(beats.count == sim.stats.appRefreshRuns)
        #expect(beats.allSatisfy { $0.fix != nil && !$0.expired }, "an Always app gets a fix at every wake")
        #expect(sim.stats.appRefreshExpired == 0)
        #expect(sim.stats.suspensions >= sim.stats.appRefreshRuns, "the app is suspended after each completed wake")
        // Never before the earliest begin asked for: each wake at least the interval after the previous beat.
        for (earlier, later) in zip(beats, beats.dropFirst()) {
            #expect(later.wokeAt.timeIntervalSince(earlier.endedAt) >= 900 - 0.001)
        }
    }

    @Test("iOS runs the refresh tasks of a rarely used app seldom: fewer wakes than a daily one, same seed")
    func usage() throws {
        let daily = try Self.run(Self.desk(hours: 72))
        let rarely = try Self.run(Self.desk(hours: 72) { $0.appUsage = .rarely })
        print("heartbeat over 3 days: daily \(daily.stats.appRefreshRuns) wakes, rarely \(rarely.stats.appRefreshRuns)")
        #expect(rarely.stats.appRefreshRuns >= 1 && rarely.stats.appRefreshRuns <= 6)
        #expect(daily.stats.appRefreshRuns > 10 * rarely.stats.appRefreshRuns)
    }

    @Test("no wake in Low Power Mode; a refusal with Background App Refresh off; none without the fetch mode")
    func heldBackAndRefused() throws {
        let lowPower = try Self.run(Self.desk { $0.lowPowerMode = true })
        #expect(lowPower.stats.appRefreshRuns == 0 && Self.beats(lowPower).isEmpty)
        let off = try Self.run(Self.desk { $0.backgroundAppRefresh = false })
        #expect(off.stats.appRefreshRuns == 0 && off.stats.appRefreshRefusals == 1)
        #expect(off.engineApp!.timeline.contains { $0.value == .heartbeat(.refused(.unavailable)) })
        let noFetch = try Self.run(Self.desk { $0.backgroundModes = [.location] })
        #expect(noFetch.engineApp!.timeline.contains { $0.value == .heartbeat(.refused(.notPermitted)) })
        let unlisted = try Self.run(Self.desk { $0.appRefreshIdentifiers = ["com.example.other"] })
        #expect(unlisted.engineApp!.timeline.contains { $0.value == .heartbeat(.refused(.notPermitted)) })
    }

    @Test("after a force-quit iOS runs no refresh task until the user opens the app again; a system termination relaunches it for one")
    func forceQuitAndTermination() throws {
        let forceQuit = try Self.run(Self.desk(actions: [UserAction(at: 0, .open), UserAction(at: 60, .forceQuit),
                                                         UserAction(at: 12 * 3_600, .open), UserAction(at: 12 * 3_600 + 60, .background)]))
        let beats = Self.beats(forceQuit)
        #expect(!beats.isEmpty)
        #expect(beats.allSatisfy { $0.wokeAt.timeIntervalSince(Self.epoch) > 12 * 3_600 }, "no wake while force-quit")
        let terminated = try Self.run(Self.desk(actions: [UserAction(at: 0, .open), UserAction(at: 60, .background),
                                                          UserAction(at: 120, .systemTerminate)]))
        #expect(terminated.stats.appRefreshRuns >= 10)
        #expect((terminated.stats.launches["background"] ?? 0) >= 1, "a terminated app is launched in the background for its task")
        #expect(Self.beats(terminated).allSatisfy { $0.fix != nil })
    }

    @Test("without location (services off) each beat ends at its timeout with no fix, and the task is still completed in time")
    func noLocation() throws {
        let sim = try Self.run(Self.desk { $0.locationServicesEnabled = false })
        let beats = Self.beats(sim)
        #expect(!beats.isEmpty && sim.stats.appRefreshExpired == 0)
        #expect(beats.allSatisfy { $0.fix == nil && abs($0.endedAt.timeIntervalSince($0.wokeAt) - 20) <= 1 })
    }

    @Test("an app that never completes its task is told the time is up, and terminated if it still does not")
    func expiryTerminates() throws {
        // A fix timeout past the task's 30 s is outside the heartbeat's contract, so the simulator's
        // own constant is shortened instead: 10 s of task time, less than the beat's 20 s wait for a
        // fix that never comes (location services are off).
        var scenario = Self.desk { $0.locationServicesEnabled = false }
        scenario.platform = PlatformSetup(overrides: ["appRefreshSeconds": .number(10)])
        let sim = try Self.run(scenario)
        #expect(sim.stats.appRefreshExpired >= 1)
        #expect(Self.beats(sim).contains { $0.expired }, "the expiry ends the beat as expired")
        #expect(!sim.log.entries.contains { $0.note?.contains("app-refresh task not completed in time") == true },
                "the engine completes the task at the expiry, so iOS never kills it")
    }
}

/// Tracking windows with automatic tracking on the commute (issue #32 item 4).
@Suite("Tracking windows in the simulator")
struct TrackingWindowsSimulationTests {
    static func utcWindow(from start: Date, to end: Date) throws -> TrackingWindows {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        func minute(_ date: Date) -> Int {
            let parts = calendar.dateComponents([.hour, .minute], from: date)
            return parts.hour! * 60 + parts.minute!
        }
        let startMinute = minute(start)
        let endMinute = calendar.isDate(start, inSameDayAs: end) ? minute(end) : 1440
        return try TrackingWindows([TrackingWindows.Window(weekdays: Set(1...7), startMinute: startMinute, endMinute: endMinute)],
                                   timeZone: calendar.timeZone)
    }

    @Test("a window from the middle of the park at work on: the morning ride does not start, the evening ride does")
    func windowSkipsMorning() throws {
        let scenario = try AutoFixture.commute(.suspended)
        let unwindowed = AutoRides(try AutomaticTrackingTests.run(scenario, backend: .locationManager))
        #expect(unwindowed.rides.count == 2)
        let epoch = unwindowed.epoch
        let park = try #require(AutoFixture.parkStart(scenario.route?.legs ?? []))
        let opens = epoch.addingTimeInterval(park + 3_600)
        // The park at work lasts 8 hours: the window covers the evening set-off.
        let windows = try Self.utcWindow(from: opens, to: opens.addingTimeInterval(9 * 3_600))
        let rides = AutoRides(try AutomaticTrackingTests.run(scenario, backend: .locationManager) { $0.windows = windows })
        print("windows commute: \(rides.rides.count) rides, starts \(rides.rides.map { $0.startedAt.timeIntervalSince(epoch) })")
        #expect(rides.rides.count == 1)
        #expect(rides.rides.allSatisfy { $0.startedAt > opens && $0.automatic })
    }

    @Test("a window that closes during the morning ride ends it there; the rider's own ride is not touched")
    func windowEndsRide() throws {
        let scenario = try AutoFixture.commute(.suspended)
        let unwindowed = AutoRides(try AutomaticTrackingTests.run(scenario, backend: .locationManager))
        let epoch = unwindowed.epoch
        let firstStart = try #require(unwindowed.rides.first?.startedAt)
        let closes = firstStart.addingTimeInterval(600)
        let windows = try Self.utcWindow(from: epoch.addingTimeInterval(-60), to: closes)
        let sim = try AutomaticTrackingTests.run(scenario, backend: .locationManager) { $0.windows = windows }
        let rides = AutoRides(sim)
        let first = try #require(rides.rides.first)
        let lastFix = try #require(first.fixes.last)
        #expect(lastFix.timestamp <= closes.addingTimeInterval(1), "the automatic ride records nothing after its window closed")
        #expect(rides.rides.count == 1, "nothing starts by itself after the window")
        let ended = sim.engineApp!.timeline.contains { entry in
            if case .ride(.state(.ended)) = entry.value { abs(entry.time.timeIntervalSince(closes)) <= 60 } else { false }
        }
        #expect(ended, "the ride ends at the window's close")
    }
}
