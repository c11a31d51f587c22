import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkEngine
@testable import WaymarkSimulator

/// The engine's field log over a `SimulatedDevice` (issue #32 item 3): what a support engineer
/// needs is in it, with the device's times, and a log that cannot be written changes nothing the
/// engine does.
@Suite("Engine: the field log", .timeLimit(.minutes(5)))
struct EngineFieldLogTests {
    static let fence = Fence(id: "cafe", shape: .circle(center: Fixture.east(600), radiusMeters: 100))

    static func folder(_ name: String = #function) -> URL {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("waymark-enginelog-\(name.filter(\.isLetter))-\(UUID().uuidString)", isDirectory: true)
    }

    /// A fresh install opened at 0: the prompts, then a ride the rider starts at 60 s and stops at
    /// 330 s, east at 5 m/s through the fence.
    static let ride = Fixture.opened(route: Fixture.eastbound(speed: 5, seconds: 240, after: 60),
                                     device: DeviceSetup(install: .fresh, backgroundModes: [.location]), duration: 400)

    struct Run {
        var entries: [FieldLogEntry]
        var recorded: [RideEntry]
        var fenceEvents: [FenceEvent]
        var status: FieldLogStatus
        var epoch: Date
    }

    /// Runs ``ride`` with `log` and returns what the log and the app saw.
    static func run(log: FieldLog) async throws -> Run {
        let device = try SimulatedDevice(scenario: ride, seed: 7)
        let engine = Engine(device: device, clock: device.clock, log: log)
        let records = await engine.ride.recorded.subscribe()
        let fences = await engine.geofences.events.subscribe()
        let recording = Task { var all: [RideEntry] = []; for await entry in records { all.append(entry) }; return all }
        let fenceEvents = Task { var all: [FenceEvent] = []; for await event in fences { all.append(event) }; return all }
        let run = Task { await engine.run() }
        await device.open()
        await device.settle(engine)
        let sent = await device.commandsPerformed
        let request = Task { try await engine.permissions.request([.locationWhenInUse]) }
        await device.waitForCommands(sent + 1)
        for _ in 0..<30 { await device.advance(by: 1); await device.settle(engine) }
        #expect(try await request.value.map(\.result) == [.granted])
        try await engine.geofences.replace(with: [fence])
        for _ in 30..<60 { await device.advance(by: 1); await device.settle(engine) }
        await engine.ride.start(rideID: "log-test")
        for _ in 60..<330 { await device.advance(by: 1); await device.settle(engine) }
        await engine.ride.stop()
        await device.advance(by: 5)
        await device.settle(engine)
        await device.finish()
        await run.value
        return Run(entries: await log.entries(), recorded: await recording.value, fenceEvents: await fenceEvents.value,
                   status: await log.status, epoch: device.epoch)
    }

    static func first(_ entries: [FieldLogEntry], _ category: FieldLogCategory, _ text: String) -> FieldLogEntry? {
        entries.first { $0.category == category && $0.message.contains(text) }
    }

    @Test("holds the launch with its cause, the authorization change, the ride's start and stop, the fence decisions and the background reading")
    func whatSupportNeeds() async throws {
        let dir = Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try await Self.run(log: FieldLog(.init(directory: dir, systemLog: false)))
        let entries = result.entries
        func at(_ entry: FieldLogEntry?) -> Double? { entry.map { ($0.time.timeIntervalSince(result.epoch) * 1000).rounded() / 1000 } }

        let launch = try #require(Self.first(entries, .launch, "launched by the user"), "\(entries.map(\.line))")
        #expect(launch.message.contains("cause: opened by the user"))
        #expect(at(launch) == 0)
        let before = try #require(Self.first(entries, .permission, "location authorization: notDetermined"))
        let granted = try #require(Self.first(entries, .permission, "location authorization changed: authorizedWhenInUse, precise"))
        #expect(before.time <= granted.time && at(granted).map { $0 > 0 && $0 < 30 } == true, "the user answered the prompt")
        #expect(Self.first(entries, .permission, "permission location when in use: granted (asked iOS)") != nil)
        #expect(Self.first(entries, .system, "Background App Refresh on and Low Power Mode off") != nil)

        let started = try #require(Self.first(entries, .ride, "ride 'log-test' started by the rider"))
        #expect(at(started) == 60)
        #expect(Self.first(entries, .ride, "app: start ride 'log-test'") != nil)
        let ended = try #require(Self.first(entries, .ride, "ride 'log-test' ended: "))
        #expect(at(ended) == 330)
        #expect(ended.message.contains(" km, moving "))

        // Every fence event the app received is in the log, at the time the engine decided it.
        let fenceEntries = entries.filter { $0.category == .geofence && $0.message.hasPrefix("fence 'cafe' ") }
        #expect(result.fenceEvents.map(\.kind) == [.enter, .exit], "\(result.fenceEvents)")
        #expect(fenceEntries.count == result.fenceEvents.count)
        for (entry, event) in zip(fenceEntries, result.fenceEvents) {
            #expect(abs(entry.time.timeIntervalSince(event.deliveredAt)) < 0.001, "written at the decision's time")
            #expect(entry.message.hasPrefix("fence 'cafe' \(event.kind.rawValue) #\(event.sequence): decided from a fix"))
            #expect(entry.message.contains("timing \(event.timing.rawValue)"))
        }
        // The files hold the same entries (nothing only in memory), one line each, oldest first.
        #expect(result.status.writeFailures == 0 && result.status.entriesInMemory == 0)
        let fromFiles = try result.status.files.flatMap { url in
            try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map { try #require(FieldLogEntry(line: $0)) }
        }
        #expect(fromFiles == entries)
        #expect(zip(entries, entries.dropFirst()).allSatisfy { $0.time <= $1.time })
        #expect(!entries.contains { $0.level == .debug }, "debug is off by default")
    }

    @Test("a folder that cannot be written changes nothing the engine does; the entries stay in memory")
    func unwritableFolderKeepsTheEngineGoing() async throws {
        let base = Self.folder()
        defer { try? FileManager.default.removeItem(at: base) }
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        let blocker = base.appendingPathComponent("blocker")
        #expect(FileManager.default.createFile(atPath: blocker.path, contents: Data()))
        let broken = try await Self.run(log: FieldLog(.init(directory: blocker.appendingPathComponent("WaymarkLog"), systemLog: false)))
        let working = try await Self.run(log: FieldLog(.init(directory: base.appendingPathComponent("ok"), systemLog: false)))
        // The same simulation (same seed) records the same ride and the same fence events.
        #expect(broken.recorded == working.recorded)
        #expect(broken.fenceEvents == working.fenceEvents)
        #expect(broken.recorded.count > 100)
        #expect(broken.status.writeFailures >= 1 && broken.status.files.isEmpty)
        #expect(broken.status.lastFailure?.contains("blocker") == true)
        // What could not be written is kept in memory: the same entries.
        #expect(broken.entries.map(\.line) == working.entries.map(\.line))
    }

    /// Forwards to a simulated device, with a Background App Refresh reading the test switches.
    struct SwitchedRefresh: Device {
        let inner: SimulatedDevice
        let available = LockedState<Bool?>(true)
        var events: AsyncStream<TimedDeviceEvent> { inner.events }
        func perform(_ command: DeviceCommand) async { await inner.perform(command) }
        func now() async -> Date { await inner.now() }
        func infoPlist() async -> InfoPlistDeclarations? { await inner.infoPlist() }
        func monitoredRegionIdentifiers() async -> Set<String>? { await inner.monitoredRegionIdentifiers() }
        func backgroundAppRefreshAvailable() async -> Bool? { available.withLock { $0 } }
    }

    @Test("Background App Refresh / Low Power Mode: the first reading, and each change at the next foreground return")
    func backgroundRefreshChanges() async throws {
        let scenario = Fixture.opened(device: Fixture.existing(.authorizedAlways, modes: [.location]),
                                      actions: [UserAction(at: 20, .background), UserAction(at: 40, .open),
                                                UserAction(at: 60, .background), UserAction(at: 80, .open)],
                                      duration: 120)
        let inner = try SimulatedDevice(scenario: scenario, seed: 2)
        let device = SwitchedRefresh(inner: inner)
        let log = FieldLog(.init(systemLog: false))
        let engine = Engine(device: device, clock: inner.clock, log: log)
        let run = Task { await engine.run() }
        await inner.open()
        await inner.settle(engine)
        for second in 1...100 {
            if second == 30 { device.available.withLock { $0 = false } }   // Low Power Mode on, in the background
            if second == 70 { device.available.withLock { $0 = true } }
            await inner.advance(by: 1)
            await inner.settle(engine)
        }
        await inner.finish()
        await run.value
        let readings = await log.entries().filter {
            $0.category == .system && $0.message.contains("Background App Refresh") && !$0.message.hasPrefix("configuration problem")
        }
        let seconds = readings.map { ($0.time.timeIntervalSince(inner.epoch) * 1000).rounded() / 1000 }
        #expect(readings.count == 3, "\(readings.map(\.line))")
        #expect(readings.first?.level == .info && readings.first?.message.hasPrefix("Background App Refresh on") == true)
        #expect(readings.dropFirst().first?.level == .warning)
        #expect(readings.dropFirst().first?.message.hasPrefix("changed: Background App Refresh is off or Low Power Mode is on") == true)
        #expect(Array(seconds.dropFirst()) == [40, 80], "read at each return to the foreground")
        #expect(readings.last?.message.hasPrefix("changed: Background App Refresh on") == true)
        // The configuration problem the engine publishes for it is there too.
        #expect(await log.entries().contains { $0.level == .warning && $0.message.hasPrefix("configuration problem: ") })
    }

    @Test("Background App Refresh off, or Low Power Mode on, on the simulated device: the first reading is a warning",
          arguments: [(false, false), (true, true)])
    func lowPowerAtStart(lowPower: Bool, refresh: Bool) async throws {
        var setup = Fixture.existing(.authorizedAlways, modes: [.location])
        setup.lowPowerMode = lowPower
        setup.backgroundAppRefresh = refresh
        let device = try SimulatedDevice(scenario: Fixture.opened(device: setup, duration: 30), seed: 2)
        let log = FieldLog(.init(systemLog: false))
        let engine = Engine(device: device, clock: device.clock, log: log)
        let run = Task { await engine.run() }
        await device.open()
        await device.settle(engine)
        await device.finish()
        await run.value
        let reading = await log.entries().first { $0.category == .system && $0.message.contains("Low Power Mode") }
        let problem = await log.entries().first { $0.category == .system && $0.message.hasPrefix("configuration problem: ") }
        #expect(reading?.level == .warning)
        #expect(reading?.message.hasPrefix("Background App Refresh is off or Low Power Mode is on") == true)
        #expect(problem?.level == .warning && problem?.message.contains("Background App Refresh") == true)
    }

    @Test("debug adds every command and delivery; the default keeps them out")
    func debugLevel() async throws {
        let device = try SimulatedDevice(scenario: Fixture.opened(device: Fixture.existing(.authorizedWhenInUse), duration: 30), seed: 2)
        let log = FieldLog(.init(level: .debug, systemLog: false))
        let engine = Engine(device: device, clock: device.clock, log: log)
        let run = Task { await engine.run() }
        await device.open()
        await device.settle(engine)
        for _ in 0..<10 { await device.advance(by: 1); await device.settle(engine) }
        await device.finish()
        await run.value
        let entries = await log.entries()
        #expect(entries.contains { $0.level == .debug && $0.message == "command: createLocationManager" })
        #expect(entries.contains { $0.level == .debug && $0.message.contains("delivered, newest ±") })
    }
}
