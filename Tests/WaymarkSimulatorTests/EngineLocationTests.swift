import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkEngine
@testable import WaymarkSimulator

/// `engine.location` (issue #32 item 1): one fix on demand and a stream of fixes outside a ride, on
/// the engine's one location session, with no second manager and no prompt.
@Suite("Engine: current location and location updates", .timeLimit(.minutes(5)))
struct EngineLocationTests {
    /// The answer of a request running beside the simulated clock.
    actor Answer {
        var result: Result<Fix, LocationRequestError>?
        var at: Double?
        func set(_ result: Result<Fix, LocationRequestError>, at t: Double) { self.result = result; self.at = t }
    }

    /// A running engine on `scenario`, opened and settled for `seconds`.
    struct Rig {
        let device: SimulatedDevice
        let engine: Engine
        let run: Task<Void, Never>

        init(_ scenario: Scenario, seed: UInt64 = 3, configuration: EngineCore.Configuration = .init(), settle seconds: Int = 40) async throws {
            device = try SimulatedDevice(scenario: scenario, seed: seed)
            engine = Engine(device: device, clock: device.clock, configuration: configuration)
            let engine = engine
            run = Task { await engine.run() }
            await device.open()
            await device.settle(engine)
            await advance(seconds)
        }

        func advance(_ seconds: Int) async {
            for _ in 0..<seconds {
                await device.advance(by: 1)
                await device.settle(engine)
            }
        }

        /// Asks for the current location and advances the device one second at a time until it is answered.
        func current(accuracy: DesiredAccuracy = .best, maximumAge: TimeInterval = 0, timeout: TimeInterval = 15,
                     limit: Int = 60) async -> (result: Result<Fix, LocationRequestError>?, seconds: Double?) {
            let answer = Answer()
            let start = await device.state.now
            let engine = engine, device = device
            Task {
                let result: Result<Fix, LocationRequestError>
                do throws(LocationRequestError) {
                    result = .success(try await engine.location.current(accuracy: accuracy, maximumAge: maximumAge, timeout: timeout))
                } catch {
                    result = .failure(error)
                }
                await answer.set(result, at: await device.state.now)
            }
            for _ in 0..<limit {
                for _ in 0..<20 { await Task.yield() }
                await device.settle(engine)
                if await answer.result != nil { break }
                await advance(1)
            }
            return (await answer.result, await answer.at.map { $0 - start })
        }

        func finish() async {
            await device.finish()
            await run.value
        }
    }

    static func commands(_ sim: Simulation, after t: Double = 0, _ match: (DeviceCommand) -> Bool) -> [Double] {
        sim.log.entries.compactMap { entry in entry.command.flatMap { match($0) && entry.t >= t ? entry.t : nil } }
    }

    static func isStart(_ command: DeviceCommand) -> Bool {
        switch command {
        case .startUpdatingLocation, .startLiveUpdates, .requestLocation: true
        default: false
        }
    }

    static let still = Fixture.opened(device: Fixture.existing(.authorizedWhenInUse), overrides: Fixture.noCache, duration: 600)

    @Test("outside a ride: one fix within the accuracy asked for, the service released after it, never a second manager")
    func currentOutsideARide() async throws {
        let rig = try await Rig(Self.still)
        let asked = await rig.device.state.now
        let (result, seconds) = await rig.current(accuracy: .hundredMeters)
        let fix = try #require(try result?.get())
        // Indoors at a desk the simulated iPhone's first fixes are Wi-Fi ones, tens of metres.
        #expect((fix.horizontalAccuracy ?? .infinity) <= LocationRequests.acceptableMeters(for: .hundredMeters))
        #expect(fix.timestamp >= (await rig.device.state).date(asked))
        #expect((seconds ?? .infinity) <= 5, "answered after \(seconds ?? -1) s")
        await rig.advance(5)
        let sim = await rig.device.state
        #expect(Self.commands(sim) { $0 == .createLocationManager }.count == 1)
        #expect(Self.commands(sim, after: asked, Self.isStart).count == 1, "one start for the request")
        let stopped = Self.commands(sim, after: asked) { if case .stopUpdatingLocation = $0 { true } else { false } }
        #expect(!stopped.isEmpty, "the updates stop once the request is answered")
        #expect(sim.log.entries.allSatisfy { entry in
            entry.command.map { if case .requestWhenInUseAuthorization = $0 { false } else { true } } ?? true
        })
        // A second request within a minute takes the cached fix: no radio at all.
        let again = await rig.current(accuracy: .hundredMeters, maximumAge: 60)
        let cached = try #require(try again.result?.get())
        #expect(cached.timestamp >= fix.timestamp && again.seconds == 0)
        let after = await rig.device.state
        #expect(Self.commands(after, after: asked, Self.isStart).count == 1, "the cached fix needed no new start")
        await rig.finish()
    }

    @Test("not authorized: refused at once, and no prompt is raised outside the sequencer")
    func notAuthorized() async throws {
        let rig = try await Rig(Fixture.opened(overrides: Fixture.noCache, duration: 300))
        let (result, seconds) = await rig.current()
        #expect(seconds == 0)
        guard case .failure(let error)? = result else { Issue.record("expected a refusal, got \(String(describing: result))"); return }
        #expect(error.reason == .notAuthorized)
        #expect(error.message.contains("engine.permissions"))
        let sim = await rig.device.state
        #expect(!sim.log.entries.contains { entry in
            entry.command.map { if case .requestWhenInUseAuthorization = $0 { true } else { false } } ?? false
        })
        await rig.finish()
    }

    @Test("no fix good enough before the timeout: the best seen, or a timeout error when none came")
    func timeout() async throws {
        // In a building: only Wi-Fi and cell fixes (tens to hundreds of metres).
        let indoors = Fixture.opened(device: Fixture.existing(.authorizedWhenInUse),
                                     world: World(outages: [World.Outage(area: BoundingCircle(center: Fixture.origin, radiusMeters: 300))]),
                                     overrides: Fixture.noCache, duration: 600)
        let rig = try await Rig(indoors)
        let (result, seconds) = await rig.current(accuracy: .best, timeout: 10)
        #expect((seconds ?? 0) >= 10 && (seconds ?? .infinity) <= 12, "answered at the timeout: \(seconds ?? -1) s")
        switch result {
        case .success(let fix)?:
            #expect((fix.horizontalAccuracy ?? 0) > LocationRequests.acceptableMeters(for: .best), "the best of the coarse fixes")
        case .failure(let error)?:
            #expect(error.reason == .timedOut)
        case nil:
            Issue.record("no answer")
        }
        await rig.finish()
    }

    @Test("during a ride: answered within seconds on the ride's session, with no new manager and at most two reconfigurations")
    func duringARide() async throws {
        let route = Fixture.eastbound(speed: 5, seconds: 300, after: 0, activity: .cycling)
        let rig = try await Rig(Fixture.opened(route: route, device: Fixture.existing(.authorizedAlways, modes: [.location]),
                                               overrides: Fixture.noCache, duration: 600), settle: 0)
        await rig.engine.ride.start(rideID: "r")
        await rig.advance(60)
        let asked = await rig.device.state.now
        let commandsBefore = await rig.device.state.log.entries.filter { $0.command != nil }.count
        let (result, seconds) = await rig.current(accuracy: .best)
        #expect(try result?.get() != nil)
        #expect((seconds ?? .infinity) <= 5, "answered after \(seconds ?? -1) s")
        let sim = await rig.device.state
        let commandsAfter = sim.log.entries.filter { $0.command != nil && $0.t >= asked }
        // The merged demand reconfigures the ride's own updates at most twice: when the request
        // opens (GNSS may be resting on a steady stretch) and when it is answered.
        #expect(commandsAfter.filter { Self.isStart($0.command!) }.count <= 2, "\(commandsAfter.map { String(describing: $0.command!) })")
        #expect(!commandsAfter.contains { $0.command == .createLocationManager })
        #expect(sim.log.entries.filter { $0.command != nil }.count >= commandsBefore)
        await rig.finish()
    }

    @Test("a stream outside a ride: fixes at least the distance filter apart; ending it releases the service")
    func updatesStream() async throws {
        let route = Fixture.eastbound(speed: 1.4, seconds: 400, after: 0)   // a walk
        let rig = try await Rig(Fixture.opened(route: route, device: Fixture.existing(.authorizedWhenInUse),
                                               overrides: Fixture.noCache, duration: 600), settle: 30)
        let collected = Task { [engine = rig.engine] in
            var fixes: [Fix] = []
            for await fix in engine.location.updates(accuracy: .nearestTenMeters, distanceFilterMeters: 50) {
                fixes.append(fix)
                if fixes.count == 5 { break }
            }
            return fixes
        }
        // The stream opens from a task of its own: wait until the engine holds it.
        for _ in 0..<1_000 where await !rig.engine.core.location.isActive { await Task.yield() }
        #expect(await rig.engine.core.location.isActive)
        await rig.advance(300)
        collected.cancel()   // an iteration waiting for a sixth fix ends with the cancellation
        let fixes = await collected.value
        #expect(fixes.count == 5)
        for (a, b) in zip(fixes, fixes.dropFirst()) {
            #expect(Geodesy.haversineDistance(a.coordinate, b.coordinate) >= 50)
        }
        await rig.advance(5)
        let sim = await rig.device.state
        let ended = try #require(fixes.last).timestamp.timeIntervalSince(sim.epoch)   // the consumer stopped at its fifth fix
        let lastStop = Self.commands(sim) { if case .stopUpdatingLocation = $0 { true } else { false } }.last ?? -1
        let lastStart = Self.commands(sim, Self.isStart).last ?? -1
        #expect(lastStop > lastStart && lastStop >= ended && lastStop <= ended + 5,
                "released when the stream ended at \(ended) s: last stop \(lastStop) s, last start \(lastStart) s")
        await rig.finish()
    }
}
