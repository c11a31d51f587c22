import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkEngine

@Suite("Engine actor: geofences and the ride over a hand-played device", .timeLimit(.minutes(5)))   // a cancellable wait (settle, waitUntil…) that never ends fails instead of hanging
struct EngineGeofenceRideTests {
    static let shop = Fence(id: "shop", shape: .circle(center: Geodesy.destination(from: Ride.start, bearing: 90, distance: 1_200),
                                                       radiusMeters: 200), triggers: [.enter, .exit])

    @Test("fence events once each, presence and regions with replay; ride states, statistics and records for the store")
    func geofencesAndRide() async throws {
        let rig = EngineTests.Rig(configuration: .init(ride: TrackerHarness.steady))
        let eventStream = await rig.engine.geofences.events.subscribe(), recordStream = await rig.engine.ride.recorded.subscribe()
        let events = Task { var got: [FenceEvent] = []; for await e in eventStream { got.append(e) }; return got }
        let records = Task { var got: [RideEntry] = []; for await r in recordStream { got.append(r) }; return got }

        rig.device.send(.launched(reason: .user))
        #expect(await rig.device.nextCommand() == .createLocationManager)
        rig.device.send(T.auth(.authorizedAlways))
        try await rig.engine.geofences.replace(with: [Self.shop])
        await rig.engine.ride.start(rideID: "r1")
        for t in 0..<400 { rig.device.send(.locations([Ride.fix(Double(t), east: Double(t) * 5, speed: 5)])) }
        #expect(await rig.engine.diagnostics.waitUntilHandled(402))

        // Late subscribers get the current values at once.
        var presence: [String: FencePresence]?
        for await p in rig.engine.geofences.states { presence = p; break }
        #expect(presence == ["shop": .outside])
        var regions: [MonitoredRegion]?
        for await r in rig.engine.geofences.monitoredRegions { regions = r; break }
        #expect(regions?.map(\.identifier).contains("waymark.fence.shop") == true)
        var state: RideState?
        for await s in rig.engine.ride.states { state = s; break }
        #expect(state == .moving)
        var statistics: RideStatistics?
        for await s in rig.engine.ride.statistics { statistics = s; break }
        #expect(abs((statistics?.distanceMeters ?? 0) - 1_995) < 30)

        await rig.engine.ride.stop()
        let performed = await rig.device.performed
        // The ride released GNSS… (the balanced shop fence may keep hundred-metre updates, without
        // GNSS, while the moving device could reach its boundary before the next wake)
        if case .startUpdatingLocation(let configuration)? = performed.last {
            #expect(configuration.desiredAccuracy == .hundredMeters)
        } else {
            #expect(performed.last == .stopUpdatingLocation)
        }
        #expect(!performed.contains(.stopSignificantChanges))             // …the fences keep significant changes
        await rig.stop()
        let delivered = await events.value
        #expect(delivered.map(\.kind) == [.enter, .exit])
        // Decided from the ride's steady fixes: live, bounded by the last fix beyond the margins (issue #14).
        #expect(delivered.allSatisfy { $0.timing == .live && $0.time == $0.latest })
        #expect(delivered.allSatisfy { e in e.earliest.map { e.time.timeIntervalSince($0) <= 10 } == true })
        let stored = await records.value
        #expect(stored.filter { if case .fix = $0 { true } else { false } }.count == 400)
        #expect(!stored.contains { if case .gap = $0 { true } else { false } })
        guard case .checkpoint(let last)? = stored.last else { Issue.record("the last record is not a checkpoint"); return }
        #expect(last.state == .ended)
    }

    @Test("waitUntilHandled returns true once that many events are handled, false for a cancelled waiter or a stopped engine")
    func waitUntilHandled() async throws {
        let rig = EngineTests.Rig()
        let waiter = Task { await rig.engine.diagnostics.waitUntilHandled(2) }
        rig.device.send(.launched(reason: .user))
        #expect(await rig.device.nextCommand() == .createLocationManager)
        rig.device.send(T.auth(.authorizedWhenInUse))
        #expect(await waiter.value)
        #expect(await rig.engine.diagnostics.eventsHandled == 2)
        #expect(await rig.engine.diagnostics.waitUntilHandled(1))   // already reached

        let cancelled = Task { await rig.engine.diagnostics.waitUntilHandled(100) }
        cancelled.cancel()
        #expect(await cancelled.value == false)
        let pending = Task { await rig.engine.diagnostics.waitUntilHandled(100) }
        await rig.stop()
        #expect(await pending.value == false)
        #expect(await rig.engine.diagnostics.waitUntilHandled(100) == false)
    }
}
