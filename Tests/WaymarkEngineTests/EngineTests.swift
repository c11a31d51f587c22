import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkEngine

@Suite("Engine actor over a hand-played device")
struct EngineTests {
    struct Rig {
        let clock = ManualClock()
        let device: FakeDevice
        let engine: Engine
        let run: Task<Void, Never>

        init(configuration: EngineCore.Configuration = .init(), memory: PermissionMemory = .init(),
             declarations: InfoPlistDeclarations? = nil, geofences: GeofenceMonitor.PersistentState? = nil) {
            device = FakeDevice(clock: clock, declarations: declarations)
            let engine = Engine(device: device, clock: clock, configuration: configuration, memory: memory, geofences: geofences)
            self.engine = engine
            run = Task { await engine.run() }
        }

        func stop() async {
            device.finish()
            await run.value
        }
    }

    @Test("request() returns the outcomes after notifications, registration failure and location, one prompt at a time")
    func requestFlow() async throws {
        let rig = Rig()
        rig.device.send(.launched(reason: .user))
        #expect(await rig.device.nextCommand() == .createLocationManager)
        rig.device.send(T.auth(.notDetermined))
        let request = Task { try await rig.engine.permissions.request([.notifications([.alert, .sound]), .locationWhenInUse]) }
        #expect(await rig.device.nextCommand() == .requestNotificationAuthorization([.alert, .sound]))
        rig.device.send(.notificationAuthorization(granted: true))
        #expect(await rig.device.nextCommand() == .registerForRemoteNotifications)
        rig.device.send(.remoteRegistration(.failed(reason: "no network")))
        #expect(await rig.device.nextCommand() == .requestWhenInUseAuthorization)
        rig.device.send(T.auth(.authorizedWhenInUse))
        #expect(await rig.device.nextCommand() == .startUpdatingLocation(LocationConfiguration(desiredAccuracy: .best)))
        let outcomes = try await request.value
        #expect(outcomes.map(\.result) == [.granted, .granted])
        #expect(outcomes.first?.remoteRegistration == .failed(reason: "no network"))
        await rig.stop()
    }

    @Test("a prompt that never answers ends as misconfigured when the clock reaches the timeout")
    func timeoutWithClock() async throws {
        let rig = Rig(configuration: .init(permissions: .init(promptTimeout: 30)))
        rig.device.send(.launched(reason: .user))
        rig.device.send(T.auth(.notDetermined))
        let request = Task { try await rig.engine.permissions.request([.motion]) }
        // The launch and the request are independent inputs: either command may come first.
        let first = await rig.device.nextCommand(), second = await rig.device.nextCommand()
        #expect(Set([first, second]) == [.createLocationManager, .requestMotionPermission], "\(first), \(second)")
        await rig.clock.waitForSleepers()
        rig.clock.advance(by: .seconds(30))
        let outcomes = try await request.value
        #expect(outcomes.map(\.result) == [.misconfigured(missingUsageDescription: .motion)])
        await rig.stop()
    }

    @Test("launch locator timeout through the clock, then the service is stopped")
    func locatorTimeout() async throws {
        let rig = Rig()
        rig.device.send(.launched(reason: .user))
        rig.device.send(T.auth(.authorizedWhenInUse))
        #expect(await rig.device.nextCommand() == .createLocationManager)
        #expect(await rig.device.nextCommand() == .startUpdatingLocation(LocationConfiguration(desiredAccuracy: .best)))
        await rig.clock.waitForSleepers()
        rig.clock.advance(by: .seconds(20))
        #expect(await rig.device.nextCommand() == .stopUpdatingLocation)
        #expect(await rig.engine.launchLocation.current == .unavailable(.timeout))
        await rig.stop()
    }

    @Test("early and late subscribers both get located(fix), exactly once")
    func replay() async throws {
        let rig = Rig()
        let (ready, readySignal) = AsyncStream.makeStream(of: Void.self)
        let early = Task {
            var seen: [LaunchLocationState] = []
            for await state in rig.engine.launchLocation.states {
                seen.append(state)
                if seen.count == 1 { readySignal.yield() }
            }
            return seen
        }
        var readyIterator = ready.makeAsyncIterator()
        _ = await readyIterator.next()   // the early subscriber is subscribed (it got the current state)
        rig.device.send(.launched(reason: .user))
        rig.device.send(T.auth(.notDetermined))
        rig.device.send(T.auth(.authorizedWhenInUse))
        _ = await rig.device.nextCommand()
        #expect(await rig.device.nextCommand() == .startUpdatingLocation(LocationConfiguration(desiredAccuracy: .best)))
        let fix = Fix(coordinate: T.place, horizontalAccuracy: 8, timestamp: rig.clock.date, source: .gnss)
        rig.device.send(.locations([Fix(coordinate: T.place, horizontalAccuracy: 300, timestamp: rig.clock.date - 600)]))
        rig.device.send(.locations([fix]))
        #expect(await rig.device.nextCommand() == .stopUpdatingLocation)

        var late = rig.engine.launchLocation.states.makeAsyncIterator()
        #expect(await late.next() == .located(fix))
        await rig.stop()
        #expect(await late.next() == nil)
        let earlySeen = await early.value
        #expect(earlySeen == [.idle, .waitingForPermission, .locating, .located(fix)])
    }

    @Test("the map state centers once and enables the button; memory is published for storage")
    func mapAndMemory() async throws {
        let rig = Rig()
        rig.device.send(.launched(reason: .user))
        rig.device.send(T.auth(.authorizedWhenInUse))
        _ = await rig.device.nextCommand()
        _ = await rig.device.nextCommand()
        let upgrade = Task { try await rig.engine.permissions.request([.locationAlwaysUpgrade]) }
        #expect(await rig.device.nextCommand() == .requestAlwaysAuthorization)
        var memory = rig.engine.permissions.memory.makeAsyncIterator()
        #expect(await memory.next() == PermissionMemory(alwaysUpgradeAsked: true))
        rig.device.send(T.auth(.authorizedAlways))
        #expect(try await upgrade.value.map(\.result) == [.granted])
        let fix = Fix(coordinate: T.place, horizontalAccuracy: 5, timestamp: rig.clock.date, source: .gnss)
        rig.device.send(.locations([fix]))
        #expect(await rig.device.nextCommand() == .stopUpdatingLocation)
        var map = rig.engine.map.states.makeAsyncIterator()
        #expect(await map.next() == MapLaunchState(center: T.place, currentLocationButtonEnabled: true))
        await rig.stop()
    }

    @Test("a request pending when the device stream ends throws stopped")
    func stoppedThrows() async {
        let rig = Rig()
        rig.device.send(.launched(reason: .user))
        let request = Task { try await rig.engine.permissions.request([.notifications([.alert])]) }
        _ = await rig.device.nextCommand()
        _ = await rig.device.nextCommand()
        await rig.stop()
        await #expect(throws: EngineError.self) { try await request.value }
    }
}
