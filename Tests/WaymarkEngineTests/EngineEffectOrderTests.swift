import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkEngine

/// The engine is an actor and `Device.perform` suspends, so an app call can run while an earlier
/// step's commands are still on their way. The device must see them in the order the core chose.
@Suite("Engine effects in core order")
struct EngineEffectOrderTests {
    /// Launches with `status` and waits until the launch locator has started its updates.
    static func locating(_ status: LocationAuthorizationStatus) async -> EngineTests.Rig {
        let rig = EngineTests.Rig()
        rig.device.send(.launched(reason: .user))
        rig.device.send(T.auth(status))
        #expect(await rig.device.nextCommand() == .createLocationManager)
        #expect(await rig.device.nextCommand() == .startUpdatingLocation(LocationConfiguration(desiredAccuracy: .best)))
        return rig
    }

    @Test("a ride started while the launch locator's stop is on its way keeps its GNSS on")
    func rideStartDuringLaunchStop() async throws {
        let rig = await Self.locating(.authorizedAlways)

        // The launch fix ends the launch locator; its stop is held on the way to the device.
        await rig.device.hold(.stopUpdatingLocation)
        rig.device.send(.locations([Fix(coordinate: T.place, horizontalAccuracy: 8, timestamp: rig.clock.date, source: .gnss)]))
        await rig.device.waitUntilHeld()

        // The user taps Start meanwhile.
        let start = Task { await rig.engine.ride.start(rideID: "r1") }
        // Signal: the ride's step has been decided and chained. `rideCommand` changes the core's ride state and
        // sets `effects` to the ride's step in one actor turn (no suspension between them), so once the core
        // says the ride is on, its step exists, and its first act is to await the held stop's step. Nothing
        // the scheduler does later can let it overtake, so checking now is as strong as checking at any later
        // time. (A step not chained behind the previous one fails the order check after release below.)
        let held = await rig.engine.effects
        while await rig.engine.core.rideTracker.state == .idle { await Task.yield() }
        #expect(await rig.engine.effects != held, "the ride's step was not chained after the held one")
        let overtaken = await rig.device.performed.contains { if case .startUpdatingLocation(let c) = $0 { c.activityType == .fitness } else { false } }
        #expect(!overtaken, "the ride's start reached the device before the launch locator's stop")
        await rig.device.release()
        await start.value

        let updates = await rig.device.performed.filter {
            switch $0 { case .startUpdatingLocation, .stopUpdatingLocation: true; default: false }
        }
        #expect(updates.count == 3, "\(updates)")
        guard case .startUpdatingLocation(let last) = updates.last else {
            Issue.record("the last location command was \(String(describing: updates.last)), so the ride records nothing")
            return
        }
        #expect(last.activityType == .fitness)
        #expect(last.allowsBackgroundLocationUpdates)
        await rig.stop()
    }

    @Test("a deadline already past when a newer event arrives is handled first, at its own time")
    func overdueDeadlineBeforeEvent() async throws {
        let rig = await Self.locating(.authorizedWhenInUse)
        // The launch timeout is 20 s; the clock never wakes the timer, but a fix stamped 25 s
        // later arrives. The launch locator gave up at 20 s, so that late fix is not the launch fix.
        let late = Fix(coordinate: T.place, horizontalAccuracy: 8, timestamp: rig.clock.date.addingTimeInterval(25), source: .gnss)
        rig.device.send(.locations([late]), after: 25)
        #expect(await rig.device.nextCommand() == .stopUpdatingLocation)
        #expect(await rig.engine.launchLocation.current == .unavailable(.timeout))
        await rig.stop()
    }

    @Test("handleDeadlines(through:) acts on a due deadline without the clock, and only on due ones")
    func drivenDeadlines() async throws {
        let rig = await Self.locating(.authorizedWhenInUse)
        await rig.engine.handleDeadlines(through: rig.clock.date.addingTimeInterval(19))
        #expect(await rig.engine.launchLocation.current == .locating)
        await rig.engine.handleDeadlines(through: rig.clock.date.addingTimeInterval(20))
        #expect(await rig.device.performed.last == .stopUpdatingLocation)
        #expect(await rig.engine.launchLocation.current == .unavailable(.timeout))
        await rig.stop()
    }
}
