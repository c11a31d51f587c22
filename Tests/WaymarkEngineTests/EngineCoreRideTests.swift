import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkEngine

@Suite("EngineCore runs the ride tracker")
struct EngineCoreRideTests {
    static var configuration: EngineCore.Configuration {
        EngineCore.Configuration(geofencing: .init(hostRegionCount: 7), ride: TrackerHarness.steady)
    }

    static func ride(_ core: inout EngineCore, from: Int, to: Int, speed: Double, offset: Double = 0) -> [EngineUpdate] {
        var updates: [EngineUpdate] = []
        for t in from...to {
            let fix = Ride.fix(Double(t), east: offset + speed * Double(t - from), speed: speed)
            updates += core.handle(.locations([fix]), at: Ride.at(Double(t))).updates
            if let due = core.nextDeadline, due <= Ride.at(Double(t)) { updates += core.deadlineReached(at: Ride.at(Double(t))).updates }
        }
        return updates
    }

    static func recorded(_ updates: [EngineUpdate]) -> [Fix] {
        updates.compactMap { if case .ride(.recorded(let f)) = $0 { f } else { nil } }
    }

    @Test("the geofence budget leaves one slot for the ride's wake fence")
    func budget() {
        let core = EngineCore(configuration: Self.configuration)
        #expect(core.geofences.slotBudget == 20 - 7 - 1)
        #expect(core.configuration.geofencing.reservedRegionSlots == 0)   // the app's configuration is kept as given
    }

    @Test("start through the core: standard and significant-change updates start, fixes are recorded with statistics")
    func startAndRecord() {
        var core = EngineCore(configuration: Self.configuration)
        _ = core.handle(.launched(reason: .user), at: Ride.at(0))
        _ = core.handle(.authorizationChanged(LocationAuthorization(status: .authorizedAlways)), at: Ride.at(0))
        let started = core.rideCommand(.start(rideID: "r1"), at: Ride.at(0))
        #expect(started.updates.contains(.ride(.state(.moving))))
        #expect(started.commands.contains(.startSignificantChanges))
        #expect(started.commands.contains { if case .startUpdatingLocation = $0 { true } else { false } })
        let updates = Self.ride(&core, from: 1, to: 60, speed: 5)
        #expect(Self.recorded(updates).count == 60)
        #expect(core.rideTracker.statistics.distanceMeters > 250)
        let stopped = core.rideCommand(.stop, at: Ride.at(61))
        #expect(stopped.updates.contains(.ride(.state(.ended))))
        #expect(stopped.commands.contains(.stopUpdatingLocation))
        #expect(stopped.commands.contains(.stopSignificantChanges))
    }

    @Test("a second launch keeps the ride: it resumes, and the span without fixes becomes one gap marker")
    func relaunchKeepsRide() throws {
        var core = EngineCore(configuration: Self.configuration)
        _ = core.handle(.launched(reason: .user), at: Ride.at(0))
        _ = core.rideCommand(.start(rideID: "r1"), at: Ride.at(0))
        _ = Self.ride(&core, from: 1, to: 30, speed: 5)
        let relaunched = core.handle(.launched(reason: .location), at: Ride.at(300))
        #expect(core.rideTracker.state == .moving)
        #expect(relaunched.commands.contains { if case .startUpdatingLocation = $0 { true } else { false } })
        let updates = Self.ride(&core, from: 301, to: 310, speed: 5, offset: 1_500)
        let gaps = updates.compactMap { if case .ride(.gap(let g)) = $0 { g } else { nil } }
        #expect(gaps == [GapMarker(start: Ride.at(30), end: Ride.at(301), reason: .terminated)])
        #expect(Self.recorded(updates).count == 10)
    }

    @Test("a refused wake fence is not charged to the geofence monitor's budget")
    func wakeFenceFailure() {
        var core = EngineCore(configuration: Self.configuration)
        _ = core.handle(.launched(reason: .user), at: Ride.at(0))
        _ = core.handle(.regionMonitoringFailed(identifier: RideTracker.wakeFenceIdentifier, reason: .tooManyRegions), at: Ride.at(1))
        #expect(core.geofences.slotBudget == 12)
        _ = core.handle(.regionMonitoringFailed(identifier: "waymark.fence.cafe", reason: .tooManyRegions), at: Ride.at(2))
        #expect(core.geofences.slotBudget == 11)
    }
}
