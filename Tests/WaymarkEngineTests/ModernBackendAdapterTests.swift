import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkEngine

/// The iOS 17 translation: the components' commands and events stay those of `CLLocationManager`.
@Suite("ModernBackendAdapter")
struct ModernBackendAdapterTests {
    static let fix = Fix(coordinate: T.place, horizontalAccuracy: 5, timestamp: T.origin, source: .gnss)
    static let region = MonitoredRegion(identifier: "waymark.fence.a", center: T.place, radiusMeters: 300)

    /// An adapter in a process whose authorization is determined (when in use) and whose monitor
    /// and service session are open.
    static func authorized(_ status: LocationAuthorizationStatus = .authorizedWhenInUse) -> ModernBackendAdapter {
        var adapter = ModernBackendAdapter()
        _ = adapter.commands([.createLocationManager])
        _ = adapter.events(.authorizationChanged(LocationAuthorization(status: status)))
        _ = adapter.commands([])
        return adapter
    }

    @Test("standard updates become live updates; background permission a background activity session")
    func updates() {
        var adapter = Self.authorized()
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

    @Test("conditions: the first state is only a state; a change is a crossing then the state; unmonitored that condition's failure")
    func monitorEvents() {
        var adapter = Self.authorized()
        let id = Self.region.identifier
        #expect(adapter.commands([.startMonitoring(Self.region), .requestRegionState(identifier: id), .stopMonitoring(identifier: id)]) ==
                [.addMonitorCondition(Self.region), .requestMonitorState(identifier: id), .requestMonitorState(identifier: id),
                 .removeMonitorCondition(identifier: id)], "each add is followed by a read of the condition's record")
        #expect(adapter.events(.monitorEvent(identifier: id, state: .unknown)) == [.regionState(identifier: id, state: .unknown)])
        #expect(adapter.events(.monitorEvent(identifier: id, state: .unsatisfied)) == [.regionState(identifier: id, state: .outside)])
        #expect(adapter.events(.monitorEvent(identifier: id, state: .satisfied)) ==
                [.regionEntered(identifier: id), .regionState(identifier: id, state: .inside)])
        #expect(adapter.events(.monitorEvent(identifier: id, state: .satisfied)) == [.regionState(identifier: id, state: .inside)])
        #expect(adapter.events(.monitorEvent(identifier: id, state: .unsatisfied)) ==
                [.regionExited(identifier: id), .regionState(identifier: id, state: .outside)])
        #expect(adapter.events(.monitorEvent(identifier: id, state: .unmonitored)) ==
                [.regionMonitoringFailed(identifier: id, reason: .failed)], "never the global .unavailable (review 2, M2)")
    }

    @Test("H3: nothing of the iOS 17 vocabulary goes out before authorization is determined; then the monitor, the session and the waiting commands, in order")
    func deferredUntilDetermined() {
        var adapter = ModernBackendAdapter()
        #expect(adapter.commands([.createLocationManager]) == [.createLocationManager], "no monitor at launch")
        let ride = LocationConfiguration(desiredAccuracy: .best, activityType: .fitness, allowsBackgroundLocationUpdates: true)
        #expect(adapter.commands([.startMonitoring(Self.region), .startUpdatingLocation(ride), .requestNotificationAuthorization(.alert)])
                == [.requestNotificationAuthorization(.alert)], "only what creates no implicit session")
        _ = adapter.events(.authorizationChanged(LocationAuthorization(status: .notDetermined)))
        #expect(adapter.commands([]).isEmpty, "notDetermined: still waiting")
        _ = adapter.events(.authorizationChanged(LocationAuthorization(status: .authorizedWhenInUse)))
        #expect(adapter.commands([]) == [.openMonitor, .beginServiceSession(.whenInUse), .addMonitorCondition(Self.region),
                                         .requestMonitorState(identifier: Self.region.identifier),
                                         .startLiveUpdates(.fitness), .beginBackgroundActivitySession])
    }

    @Test("a condition's first known state soon after its add is its initial state; long after, a change from a state the app never heard: a crossing")
    func unheardInitialState() {
        let id = Self.region.identifier
        let t0 = T.origin
        for (delay, crossing) in [(2.0, false), (ModernBackendAdapter.initialStateWindow + 1, true)] {
            var adapter = Self.authorized()
            _ = adapter.events(.authorizationChanged(LocationAuthorization(status: .authorizedWhenInUse)), at: t0)
            #expect(adapter.commands([.startMonitoring(Self.region)]) == [.addMonitorCondition(Self.region), .requestMonitorState(identifier: id)])
            // The record read at once: not determined yet.
            #expect(adapter.events(.monitorEvent(identifier: id, state: .unknown), at: t0) == [.regionState(identifier: id, state: .unknown)])
            let out = adapter.events(.monitorEvent(identifier: id, state: .satisfied), at: t0.addingTimeInterval(delay))
            #expect(out == (crossing ? [.regionEntered(identifier: id), .regionState(identifier: id, state: .inside)]
                                     : [.regionState(identifier: id, state: .inside)]), "after \(delay) s")
        }
    }

    @Test("in the foreground since the add, a condition's first known state is its initial one however late (the device sat near the boundary)")
    func lateInitialStateInTheForeground() {
        let id = Self.region.identifier
        let t0 = T.origin
        let late = t0.addingTimeInterval(ModernBackendAdapter.initialStateWindow + 445)
        for (state, side) in [(MonitorConditionState.unsatisfied, RegionState.outside), (.satisfied, .inside)] {
            // Foreground throughout: only the state (before the fix, a crossing the device never made).
            var adapter = Self.authorized()
            _ = adapter.events(.launched(reason: .user), at: t0)
            _ = adapter.events(.authorizationChanged(LocationAuthorization(status: .authorizedAlways)), at: t0)
            _ = adapter.commands([.startMonitoring(Self.region)])
            _ = adapter.events(.monitorEvent(identifier: id, state: .unknown), at: t0)
            #expect(adapter.events(.monitorEvent(identifier: id, state: state), at: late) == [.regionState(identifier: id, state: side)])
            // Sent to the background after the add: the app may have been suspended, so a crossing as before.
            var background = Self.authorized()
            _ = background.events(.launched(reason: .user), at: t0)
            _ = background.events(.authorizationChanged(LocationAuthorization(status: .authorizedAlways)), at: t0)
            _ = background.commands([.startMonitoring(Self.region)])
            _ = background.events(.monitorEvent(identifier: id, state: .unknown), at: t0)
            _ = background.events(.didEnterBackground, at: t0.addingTimeInterval(30))
            let crossing: DeviceEvent = state == .satisfied ? .regionEntered(identifier: id) : .regionExited(identifier: id)
            #expect(background.events(.monitorEvent(identifier: id, state: state), at: late) == [crossing, .regionState(identifier: id, state: side)])
        }
    }

    @Test("M4: the explicit service session follows authorization (never a goal above it) and is re-created after a launch")
    func serviceSessionFollowsAuthorization() {
        var adapter = Self.authorized(.authorizedWhenInUse)
        #expect(adapter.serviceSession == .whenInUse)
        _ = adapter.events(.authorizationChanged(LocationAuthorization(status: .authorizedAlways)))
        #expect(adapter.commands([]) == [.endServiceSession, .beginServiceSession(.always)])
        _ = adapter.events(.authorizationChanged(LocationAuthorization(status: .denied)))
        #expect(adapter.commands([]) == [.endServiceSession])
        _ = adapter.events(.launched(reason: .background))
        #expect(adapter.commands([.createLocationManager]) == [.createLocationManager])
        _ = adapter.events(.authorizationChanged(LocationAuthorization(status: .authorizedAlways)))
        #expect(adapter.commands([]) == [.openMonitor, .beginServiceSession(.always)], "re-created in the new process")
    }

    @Test("a new process starts with nothing running")
    func relaunch() {
        var adapter = ModernBackendAdapter()
        _ = adapter.commands([.startUpdatingLocation(LocationConfiguration(allowsBackgroundLocationUpdates: true))])
        #expect(adapter.events(.launched(reason: .background)) == [.launched(reason: .background)])
        #expect(adapter == ModernBackendAdapter())
    }

    @Test("M5: a stop keeps the background activity session for its grace; a restart within it reuses it; the grace's end ends it")
    func sessionKeptAcrossShortStop() {
        var adapter = Self.authorized()
        let ride = LocationConfiguration(desiredAccuracy: .best, activityType: .fitness, allowsBackgroundLocationUpdates: true)
        #expect(adapter.commands([.startUpdatingLocation(ride)], at: T.origin) == [.startLiveUpdates(.fitness), .beginBackgroundActivitySession])
        #expect(adapter.commands([.stopUpdatingLocation], at: T.origin.addingTimeInterval(60)) == [.stopLiveUpdates],
                "the session outlives the stop")
        #expect(adapter.session && adapter.sessionReleaseDeadline == T.origin.addingTimeInterval(60 + 600))
        #expect(adapter.commands([.startUpdatingLocation(ride)], at: T.origin.addingTimeInterval(300)) == [.startLiveUpdates(.fitness)],
                "restarted under the session still held: no new one, which the background would refuse")
        #expect(adapter.sessionReleaseDeadline == nil)
        #expect(adapter.commands([.stopUpdatingLocation], at: T.origin.addingTimeInterval(400)) == [.stopLiveUpdates])
        #expect(adapter.commands([], at: T.origin.addingTimeInterval(999)).isEmpty, "still within the grace")
        #expect(adapter.commands([], at: T.origin.addingTimeInterval(1_000)) == [.endBackgroundActivitySession])
        #expect(!adapter.session && adapter.sessionReleaseDeadline == nil)

        var noGrace = ModernBackendAdapter(sessionGrace: 0)
        _ = noGrace.commands([.createLocationManager])
        _ = noGrace.events(.authorizationChanged(LocationAuthorization(status: .authorizedWhenInUse)))
        _ = noGrace.commands([], at: T.origin)
        _ = noGrace.commands([.startUpdatingLocation(ride)], at: T.origin)
        #expect(noGrace.commands([.stopUpdatingLocation], at: T.origin) == [.stopLiveUpdates, .endBackgroundActivitySession],
                "a grace of 0 ends the session with its updates, as before")
    }

    @Test("M5: a refused session is reported and asked for again when the app next comes to the foreground, not before")
    func refusedSessionRetried() {
        var adapter = Self.authorized()
        let ride = LocationConfiguration(activityType: .fitness, allowsBackgroundLocationUpdates: true)
        _ = adapter.events(.didEnterBackground)
        #expect(adapter.commands([.startUpdatingLocation(ride)]) == [.startLiveUpdates(.fitness), .beginBackgroundActivitySession])
        #expect(adapter.events(.backgroundActivitySessionRefused) == [.backgroundActivitySessionRefused], "passed on to the app")
        #expect(!adapter.session)
        #expect(adapter.commands([]).isEmpty, "no retry from the background, where iOS refuses it again")
        _ = adapter.events(.willEnterForeground)
        #expect(adapter.commands([]) == [.beginBackgroundActivitySession], "in use again: asked for once more")
        #expect(adapter.session)
        _ = adapter.events(.willEnterForeground)
        #expect(adapter.commands([]).isEmpty, "held now: not asked twice")
        #expect(DeviceEvent.backgroundActivitySessionRefused.systemPart == .backgroundActivitySessionRefused,
                "engine.system.events tells the app")
    }

    @Test("a new process keeps what the app heard of each condition: a re-emitted state that differs is the crossing that happened meanwhile, one that agrees is only a state")
    func heardStatesOutliveTheProcess() {
        var adapter = ModernBackendAdapter(heard: ["a": .unsatisfied, "b": .satisfied])
        _ = adapter.events(.launched(reason: .location))
        #expect(adapter.conditions == ["a": .unsatisfied, "b": .satisfied], "a launch keeps the heard states")
        #expect(adapter.events(.monitorEvent(identifier: "a", state: .satisfied)) ==
                [.regionEntered(identifier: "a"), .regionState(identifier: "a", state: .inside)])
        #expect(adapter.events(.monitorEvent(identifier: "b", state: .satisfied)) == [.regionState(identifier: "b", state: .inside)])

        var core = EngineCore(configuration: EngineCore.Configuration(backend: .modern))
        _ = core.handle(.launched(reason: .user), at: T.origin)
        _ = core.handle(.monitorEvent(identifier: "c", state: .unsatisfied), at: T.origin)
        #expect(core.geofences.persistentState.conditionStates == ["c": .unsatisfied], "stored with the geofences")
        let relaunched = EngineCore(configuration: EngineCore.Configuration(backend: .modern),
                                    geofences: core.geofences.persistentState)
        #expect(relaunched.modern.conditions == ["c": .unsatisfied], "seeded in the next process")
    }
}
