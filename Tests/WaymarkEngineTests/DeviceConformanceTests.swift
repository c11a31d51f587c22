import Foundation
import Testing
import WaymarkGeo
import WaymarkSimulator
@testable import WaymarkEngine

/// The `Device` contract, run against every device the engine is tested on, the way the store suite
/// runs on SQLite and PostgreSQL: the simulated iPhone on both location backends (`CLLocationManager`
/// and the iOS 17 APIs), the simulated iPhone behind a forwarding wrapper (what an app's own device
/// wrapper looks like), and the engine tests' hand-played `FakeDevice`.
///
/// Rules about time, order and declarations hold for every device. Rules about what iOS does on its
/// own (an authorization report when a location manager is created, no fixes unless asked, none after
/// a stop) hold for the devices that model iOS; the fake is played by hand, so a test decides what it
/// reports, and those rules are not asked of it. `LiveDevice` (WaymarkApple) runs only on a phone;
/// its mapping rules are checked in `LiveDeviceRulesTests`.
@Suite("Device contract", .timeLimit(.minutes(1)))
struct DeviceConformanceTests {
    /// A device under the contract, with what the suite needs to drive it.
    struct Harness: Sendable {
        let device: any Device
        /// Lets `seconds` of the device's time pass.
        let advance: @Sendable (Double) async -> Void
        /// Makes the device report a marker event now, so a reader that sees it has seen everything before.
        let mark: @Sendable () async -> Void
        let isMarker: @Sendable (DeviceEvent) -> Bool
        /// Whether the device models what iOS does on its own.
        let modelsTheOS: Bool
        /// How to start and stop location updates on it.
        let start: DeviceCommand, stop: DeviceCommand
    }

    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case simulatedLocationManager, simulatedModern, forwardingWrapper, fake
        var testDescription: String { rawValue }

        func harness() async throws -> Harness {
            let ride = LocationConfiguration(desiredAccuracy: .best, activityType: .fitness)
            switch self {
            case .simulatedLocationManager, .simulatedModern, .forwardingWrapper:
                let simulated = try SimulatedDevice(scenario: DeviceConformanceTests.scenario())
                await simulated.open()   // the user opens the app: its process runs from here
                let device: any Device = self == .forwardingWrapper ? Forwarding(simulated) : simulated
                let modern = self == .simulatedModern
                return Harness(device: device, advance: { await simulated.advance(by: $0) },
                               mark: { await device.perform(.createLocationManager) },
                               isMarker: { if case .authorizationChanged = $0 { true } else { false } },
                               modelsTheOS: true,
                               start: modern ? .startLiveUpdates(.fitness) : .startUpdatingLocation(ride),
                               stop: modern ? .stopLiveUpdates : .stopUpdatingLocation)
            case .fake:
                let clock = ManualClock()
                let fake = FakeDevice(clock: clock, declarations: InfoPlistDeclarations(usageDescriptions: [:], backgroundModes: ["location"]))
                return Harness(device: fake, advance: { clock.advance(by: .milliseconds(Int64($0 * 1000))) },
                               mark: { fake.send(.networkReachability(online: true)) },
                               isMarker: { $0 == .networkReachability(online: true) },
                               modelsTheOS: false, start: .startUpdatingLocation(ride), stop: .stopUpdatingLocation)
            }
        }
    }

    /// Standing still with When In Use granted and the app open: fixes come whenever they are asked for.
    static func scenario() -> Scenario {
        Scenario(durationSeconds: 3_600,
                 route: ScenarioRoute(start: Coordinate(uncheckedLatitude: 46.05, longitude: 14.5), legs: []),
                 device: DeviceSetup(install: .existing, location: .authorizedWhenInUse, notifications: .granted),
                 user: UserBehaviour(actions: [UserAction(at: 0, .open)]))
    }

    /// Reads the device's one event stream for the whole test.
    actor Reader {
        private var iterator: AsyncStream<TimedDeviceEvent>.Iterator
        init(_ device: any Device) { iterator = device.events.makeAsyncIterator() }

        /// The events up to and including the next one `isMarker` accepts.
        func untilMarker(_ isMarker: @Sendable (DeviceEvent) -> Bool) async -> [TimedDeviceEvent] {
            var read: [TimedDeviceEvent] = []
            var copy = iterator   // the iterator's storage is a reference: the copy reads the same stream
            while let timed = await copy.next(isolation: self) {
                read.append(timed)
                if isMarker(timed.event) { break }
            }
            iterator = copy
            return read
        }
    }

    /// Makes the device report a marker and returns everything it reported up to it.
    static func settle(_ h: Harness, _ reader: Reader) async -> [TimedDeviceEvent] {
        await h.mark()
        return await reader.untilMarker(h.isMarker)
    }

    static func isFix(_ event: DeviceEvent) -> Bool {
        switch event {
        case .locations(let fixes): !fixes.isEmpty
        case .liveUpdate(let update): update.fix != nil
        default: false
        }
    }

    @Test("now() never goes back, and moves as the device's time passes", arguments: Kind.allCases)
    func clock(kind: Kind) async throws {
        let h = try await kind.harness()
        var previous = await h.device.now()
        for step in [0.0, 1, 30, 0, 600] {
            await h.advance(step)
            let now = await h.device.now()
            #expect(now >= previous, "\(kind): time went back")
            #expect(abs(now.timeIntervalSince(previous) - step) < 0.001, "\(kind): \(step) s passed, the device says \(now.timeIntervalSince(previous))")
            previous = now
        }
    }

    @Test("events come in time order, none stamped later than the device's now", arguments: Kind.allCases)
    func eventOrder(kind: Kind) async throws {
        let h = try await kind.harness()
        let reader = Reader(h.device)
        // The marker of a device that models iOS creates its location manager.
        var events = await Self.settle(h, reader)
        await h.device.perform(h.start)
        for _ in 0..<6 {
            await h.advance(10)
            if let fake = h.device as? FakeDevice {
                // The fake reports what the test plays: a fix at its own time.
                fake.send(.locations([Fix(coordinate: Coordinate(uncheckedLatitude: 46.05, longitude: 14.5),
                                          horizontalAccuracy: 5, timestamp: await fake.now())]))
            }
            events += await Self.settle(h, reader)
            let now = await h.device.now()
            #expect(events.allSatisfy { $0.time <= now }, "\(kind): an event from the future")
        }
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.time <= $1.time }, "\(kind): events out of time order")
        #expect(events.contains { Self.isFix($0.event) }, "\(kind): the exercise produced fixes")
    }

    @Test("what the device declares reads the same every time", arguments: Kind.allCases)
    func declarations(kind: Kind) async throws {
        let h = try await kind.harness()
        let plist = await h.device.infoPlist()
        let regions = await h.device.monitoredRegionIdentifiers()
        let refresh = await h.device.backgroundAppRefreshAvailable()
        await h.advance(60)
        #expect(await h.device.infoPlist() == plist)
        #expect(await h.device.monitoredRegionIdentifiers() == regions)
        #expect(await h.device.backgroundAppRefreshAvailable() == refresh)
        if h.modelsTheOS {
            #expect(plist?.usageDescriptions[.locationWhenInUse] != nil, "\(kind): the scenario declares When In Use")
        }
    }

    @Test("creating a location manager reports the authorization (Apple: locationManagerDidChangeAuthorization is called when the manager is created)",
          arguments: Kind.allCases.filter { $0 != .fake })
    func authorizationOnCreation(kind: Kind) async throws {
        let h = try await kind.harness()
        let reader = Reader(h.device)
        await h.device.perform(.createLocationManager)
        let events = await reader.untilMarker { if case .authorizationChanged = $0 { true } else { false } }
        #expect(events.last?.event == .authorizationChanged(LocationAuthorization(status: .authorizedWhenInUse, accuracy: .full)),
                "\(kind): \(events.map(\.event))")
    }

    @Test("no fixes unless the app asks; none after it stops; stopping what never started is harmless",
          arguments: Kind.allCases.filter { $0 != .fake })
    func fixesOnlyWhenAsked(kind: Kind) async throws {
        let h = try await kind.harness()
        let reader = Reader(h.device)
        _ = await Self.settle(h, reader)   // creates the location manager
        // Stops of services never started.
        for stop: DeviceCommand in [.stopUpdatingLocation, .stopLiveUpdates, .stopSignificantChanges, .stopMonitoringVisits,
                                    .stopMotionActivityUpdates, .stopMonitoring(identifier: "never"), .endBackgroundTask(id: 99)] {
            await h.device.perform(stop)
        }
        await h.advance(120)
        let idle = await Self.settle(h, reader)
        #expect(!idle.contains { Self.isFix($0.event) }, "\(kind): fixes nobody asked for")
        #expect(!idle.contains { if case .locationError = $0.event { true } else { false } }, "\(kind): a stop of nothing failed")
        await h.device.perform(h.start)
        await h.advance(30)
        let started = await Self.settle(h, reader)
        #expect(started.contains { Self.isFix($0.event) }, "\(kind): started, yet no fix: \(started.map(\.event))")
        await h.device.perform(h.stop)
        _ = await Self.settle(h, reader)
        await h.advance(300)
        let after = await Self.settle(h, reader)
        #expect(!after.contains { Self.isFix($0.event) }, "\(kind): a fix after the stop")
    }
}

/// An app's own device wrapper: forwards everything to the device inside.
private struct Forwarding: Device {
    let inner: SimulatedDevice
    init(_ inner: SimulatedDevice) { self.inner = inner }
    var events: AsyncStream<TimedDeviceEvent> { inner.events }
    func perform(_ command: DeviceCommand) async { await inner.perform(command) }
    func now() async -> Date { await inner.now() }
    func infoPlist() async -> InfoPlistDeclarations? { await inner.infoPlist() }
    func monitoredRegionIdentifiers() async -> Set<String>? { await inner.monitoredRegionIdentifiers() }
    func monitoredRegion(identifier: String) async -> MonitoredRegion? { await inner.monitoredRegion(identifier: identifier) }
    func backgroundAppRefreshAvailable() async -> Bool? { await inner.backgroundAppRefreshAvailable() }
}
