import Foundation
import Testing
@testable import WaymarkEngine
import WaymarkGeo

/// Programmer misuse stops the program with a message naming the field (#16); bad input is still
/// a thrown error. The violation lists are checked directly; exit tests check that the consumers
/// really stop.
@Suite("contracts: configurations a component cannot work with stop the program, naming the field")
struct ContractTests {
    @Test("the default configurations break no contract")
    func defaultsAreUsable() {
        #expect(RideTracker.Configuration().contractViolations.isEmpty)
        #expect(RideTracker.Configuration.baseline(.init(accuracy: .hundredMeters)).contractViolations.isEmpty)
        #expect(GeofenceMonitor.Configuration().contractViolations.isEmpty)
        #expect(GeofenceMonitor.Configuration(proximity: .on).contractViolations.isEmpty)
    }

    @Test("each offending ride setting is named, with its value")
    func rideTrackerViolations() {
        var c = RideTracker.Configuration()
        c.maximumSpeed = 0
        c.kalmanProcessNoise = .nan
        c.stopSeconds = -1
        c.dutyCycle.initialOffSeconds = 30
        c.dutyCycle.maximumOffSeconds = 20
        let violations = c.contractViolations
        #expect(violations.count == 4, "\(violations)")
        #expect(violations.contains { $0.hasPrefix("maximumSpeed must be positive, not 0") })
        #expect(violations.contains { $0.hasPrefix("kalmanProcessNoise") })
        #expect(violations.contains { $0.hasPrefix("stopSeconds must be zero or more, not -1") })
        #expect(violations.contains { $0.contains("initialOffSeconds (30.0) must not exceed maximumOffSeconds (20.0)") })
        c = RideTracker.Configuration()
        c.maximumFixAge = .infinity   // "no age limit" is allowed
        c.watchSeconds = nil
        #expect(c.contractViolations.isEmpty)
    }

    @Test("each offending geofence setting is named; proximity settings count only when it is on")
    func geofenceViolations() {
        var c = GeofenceMonitor.Configuration()
        c.regionSlots = -1
        c.indexCellDegrees = 0
        c.refreshRadiusRange = 0...10
        c.proximity = ProximityTracking(enabled: false, nearMeters: 500, approachMeters: 100)
        #expect(c.contractViolations.count == 3, "\(c.contractViolations)")
        c.proximity.enabled = true
        #expect(c.contractViolations.contains { $0.contains("approachMeters (100.0) must be at least nearMeters (500.0)") })
    }

    @Test("a ride tracker with an unusable configuration stops the program, naming the field")
    func rideTrackerStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var c = RideTracker.Configuration()
            c.stopSeconds = -1
            _ = RideTracker(configuration: c)
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("RideTracker.Configuration: stopSeconds must be zero or more, not -1"), "\(message)")
    }

    @Test("a geofence monitor, launch locator or permission sequencer with an unusable configuration stops the program")
    func componentsStop() async throws {
        let monitor = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var c = GeofenceMonitor.Configuration()
            c.fixWaitTimeout = 0
            _ = GeofenceMonitor(configuration: c)
        }
        #expect(Self.text(monitor).contains("GeofenceMonitor.Configuration: fixWaitTimeout must be positive and finite, not 0.0"))
        let locator = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = LaunchLocator(configuration: .init(timeout: 0))
        }
        #expect(Self.text(locator).contains("LaunchLocator.Configuration: timeout must be positive and finite, not 0.0"))
        let sequencer = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = PermissionSequencer(configuration: .init(promptTimeout: -1))
        }
        #expect(Self.text(sequencer).contains("PermissionSequencer.Configuration: promptTimeout must be positive and finite, not -1.0"))
    }

    /// What an exit test's process wrote to standard error.
    static func text(_ result: ExitTest.Result) -> String { String(decoding: result.standardErrorContent, as: UTF8.self) }

    @Test("running an engine twice stops the program (its device's events have one reader)")
    func engineRunsOnce() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let clock = ManualClock()
            let device = FakeDevice(clock: clock)
            let engine = Engine(device: device, clock: clock)
            device.finish()
            await engine.run()
            await engine.run()
        }
        #expect(Self.text(result).contains("Engine.run() was called twice"))
    }

    @Test("a stopped engine's requests say it was stopped")
    func stoppedMessage() async throws {
        let clock = ManualClock()
        let device = FakeDevice(clock: clock)
        let engine = Engine(device: device, clock: clock)
        let run = Task { await engine.run() }
        await engine.stop()
        device.finish()
        await run.value
        await #expect { try await engine.permissions.request([.locationWhenInUse]) } throws: { error in
            guard let error = error as? EngineError, error.code == .stopped else { return false }
            return error.message.contains("was stopped")
        }
    }

    @Test("a fence with a negative, infinite or NaN loitering delay is bad input: a thrown error naming the fence, nothing added")
    func loiteringDelayIsInput() throws {
        let centre = Coordinate(uncheckedLatitude: 46.05, longitude: 14.5)
        let good = Fence(id: "good", shape: .circle(center: centre, radiusMeters: 100))
        var monitor = GeofenceMonitor()
        for delay in [-1, Double.nan, .infinity] {
            let bad = Fence(id: "bad", shape: .circle(center: centre, radiusMeters: 100), loiteringDelay: delay)
            #expect { _ = try monitor.add([good, bad], at: Date(timeIntervalSince1970: 0)) } throws: { error in
                guard let error = error as? GeoError else { return false }
                return error.code == .invalidValue && error.message.hasPrefix("fence \"bad\": loiteringDelay")
            }
            #expect { _ = try monitor.replaceAll(with: [bad], at: Date(timeIntervalSince1970: 0)) } throws: { _ in true }
            #expect(monitor.fences.isEmpty)
        }
        _ = try monitor.add([Fence(id: "at-once", shape: .circle(center: centre, radiusMeters: 100), triggers: [.dwell],
                                   loiteringDelay: 0)], at: Date(timeIntervalSince1970: 0))
        #expect(monitor.fences.count == 1)
    }
}
