import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkEngine

/// The iOS 17 translation: the components' commands and events stay those of `CLLocationManager`.
@Suite("ModernBackendAdapter")
struct ModernBackendAdapterTests {
    static let fix = Fix(coordinate: T.place, horizontalAccuracy: 5, timestamp: T.origin, source: .gnss)
    static let region = MonitoredRegion(identifier: "waymark.fence.a", center: T.place, radiusMeters: 300)

    @Test("standard updates become live updates; background permission a background activity session")
    func updates() {
        var adapter = ModernBackendAdapter()
        #expect(adapter.commands([.createLocationManager]) == [.createLocationManager, .openMonitor])
        let ride = LocationConfiguration(desiredAccuracy: .best, activityType: .fitness, allowsBackgroundLocationUpdates: true)
        #expect(adapter.commands([.startUpdatingLocation(ride)]) == [.startLiveUpdates(.fitness), .beginBackgroundActivitySession])
        // The ride's low-power setting: the same live updates (no desired accuracy), nothing to send.
        var coarse = ride
        coarse.desiredAccuracy = .threeKilometers
        #expect(adapter.commands([.startUpdatingLocation(coarse)]).isEmpty)
        #expect(adapter.commands([.startUpdatingLocation(LocationConfiguration())]) ==
                [.stopLiveUpdates, .startLiveUpdates(.default), .endBackgroundActivitySession])
        #expect(adapter.commands([.stopUpdatingLocation]) == [.stopLiveUpdates])
        #expect(adapter.commands([.stopUpdatingLocation]).isEmpty)
        #expect(adapter.commands([.startSignificantChanges, .requestLocation(.best)]) == [.startSignificantChanges, .requestLocation(.best)])
    }

    @Test("a live fix is a location; a stationary report is nothing to act on (iOS pauses and resumes by itself)")
    func liveEvents() {
        var adapter = ModernBackendAdapter()
        _ = adapter.commands([.startUpdatingLocation(LocationConfiguration())])
        #expect(adapter.events(.liveUpdate(LiveUpdate(fix: Self.fix))) == [.locations([Self.fix])])
        #expect(adapter.events(.liveUpdate(LiveUpdate(fix: Self.fix, isStationary: true))).isEmpty)
        #expect(adapter.events(.liveUpdate(LiveUpdate(fix: Self.fix))) == [.locations([Self.fix])])
        #expect(adapter.events(.liveUpdate(LiveUpdate(fix: nil))) == [.locationError(.locationUnknown)])
    }

    @Test("conditions: the first state is only a state; a change is a crossing then the state; unmonitored a failure")
    func monitorEvents() {
        var adapter = ModernBackendAdapter()
        let id = Self.region.identifier
        #expect(adapter.commands([.startMonitoring(Self.region), .requestRegionState(identifier: id), .stopMonitoring(identifier: id)]) ==
                [.addMonitorCondition(Self.region), .requestMonitorState(identifier: id), .removeMonitorCondition(identifier: id)])
        #expect(adapter.events(.monitorEvent(identifier: id, state: .unknown)) == [.regionState(identifier: id, state: .unknown)])
        #expect(adapter.events(.monitorEvent(identifier: id, state: .unsatisfied)) == [.regionState(identifier: id, state: .outside)])
        #expect(adapter.events(.monitorEvent(identifier: id, state: .satisfied)) ==
                [.regionEntered(identifier: id), .regionState(identifier: id, state: .inside)])
        #expect(adapter.events(.monitorEvent(identifier: id, state: .satisfied)) == [.regionState(identifier: id, state: .inside)])
        #expect(adapter.events(.monitorEvent(identifier: id, state: .unsatisfied)) ==
                [.regionExited(identifier: id), .regionState(identifier: id, state: .outside)])
        #expect(adapter.events(.monitorEvent(identifier: id, state: .unmonitored)) ==
                [.regionMonitoringFailed(identifier: id, reason: .unavailable)])
    }

    @Test("a new process starts with nothing running")
    func relaunch() {
        var adapter = ModernBackendAdapter()
        _ = adapter.commands([.startUpdatingLocation(LocationConfiguration(allowsBackgroundLocationUpdates: true))])
        #expect(adapter.events(.launched(reason: .background)) == [.launched(reason: .background)])
        #expect(adapter == ModernBackendAdapter())
    }
}
