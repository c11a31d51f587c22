import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkEngine

/// The live device's decisions (audit §3), pinned down off-device: the Info.plist check, the
/// Core Location error mapping, the region radius and the launch reason.
@Suite("LiveDevice rules: Info.plist, errors, radius, launch reason")
struct LiveDeviceRulesTests {
    static var complete: [String: Any] { [
        "NSLocationWhenInUseUsageDescription": "Shows where you are on the map.",
        "NSLocationAlwaysAndWhenInUseUsageDescription": "Records your ride with the screen off.",
        "NSMotionUsageDescription": "Saves battery when you stop.",
        "UIBackgroundModes": ["location", "remote-notification", "fetch", "processing"],
        "BGTaskSchedulerPermittedIdentifiers": ["app.upload"],
    ] }
    static let everything = AppCapabilities(locationAlways: true, backgroundLocation: true, motion: true,
                                            remoteNotifications: true, appRefreshTaskIdentifiers: ["app.upload"],
                                            processingTaskIdentifiers: ["app.upload"])

    @Test("a complete Info.plist has no problems")
    func completePlist() {
        #expect(InfoPlistCheck.problems(in: Self.complete, for: Self.everything).isEmpty)
        #expect(InfoPlistCheck.declaredUsageDescriptions(in: Self.complete) == Set(UsageDescriptionKey.allCases))
    }

    @Test("an empty Info.plist: the when-in-use key is always needed, the rest only for what the app uses")
    func emptyPlist() {
        #expect(InfoPlistCheck.problems(in: [:], for: AppCapabilities()).map(\.kind)
                == [.missingUsageDescription(.locationWhenInUse)])
        let kinds = InfoPlistCheck.problems(in: [:], for: Self.everything).map(\.kind)
        #expect(kinds == [
            .missingUsageDescription(.locationWhenInUse), .missingUsageDescription(.locationAlwaysAndWhenInUse),
            .missingUsageDescription(.motion), .missingBackgroundMode("location"),
            .missingBackgroundMode("remote-notification"), .missingBackgroundMode("fetch"),
            .missingBackgroundMode("processing"), .missingPermittedTaskIdentifier("app.upload"),
            .missingPermittedTaskIdentifier("app.upload"),
        ])
    }

    @Test("messages name the key and say what to do")
    func messages() throws {
        let problems = InfoPlistCheck.problems(in: [:], for: AppCapabilities(backgroundLocation: true, motion: true))
        let whenInUse = try #require(problems.first)
        #expect(whenInUse.message.contains("NSLocationWhenInUseUsageDescription"))
        #expect(whenInUse.message.contains("Add it"))
        #expect(problems.contains { $0.message.contains("crashes") && $0.message.contains("NSMotionUsageDescription") })
        #expect(problems.contains { $0.message.contains("UIBackgroundModes") && $0.message.contains("\"location\"") })
    }

    @Test("an empty or non-string usage description is a problem of its own and is not declared")
    func emptyDescription() {
        let info: [String: Any] = ["NSLocationWhenInUseUsageDescription": "  ", "NSMotionUsageDescription": 3]
        #expect(InfoPlistCheck.problems(in: info, for: AppCapabilities(motion: true)).map(\.kind)
                == [.emptyUsageDescription(.locationWhenInUse), .emptyUsageDescription(.motion)])
        #expect(InfoPlistCheck.declaredUsageDescriptions(in: info).isEmpty)
    }

    @Test("allowsBackgroundLocationUpdates is set only with the location background mode (else iOS raises)")
    func backgroundLocationGuard() {
        #expect(InfoPlistCheck.allowsBackgroundLocationUpdates(requested: true, info: Self.complete))
        #expect(!InfoPlistCheck.allowsBackgroundLocationUpdates(requested: true, info: [:]))
        #expect(!InfoPlistCheck.allowsBackgroundLocationUpdates(requested: true, info: ["UIBackgroundModes": ["fetch"]]))
        #expect(!InfoPlistCheck.allowsBackgroundLocationUpdates(requested: true, info: ["UIBackgroundModes": "location"]))
        #expect(!InfoPlistCheck.allowsBackgroundLocationUpdates(requested: false, info: Self.complete))
    }

    @Test("error codes match CLError.h")
    func errorCodes() {
        #expect(CoreLocationRules.ErrorCode.regionMonitoringFailure.rawValue == 5)
        #expect(CoreLocationRules.ErrorCode.regionMonitoringResponseDelayed.rawValue == 7)
        #expect(CoreLocationRules.ErrorCode.promptDeclined.rawValue == 18)
        #expect(CoreLocationRules.ErrorCode.allCases.count == 20)
    }

    @Test("location errors: denied ends, unknown and network are transient, other services' errors are not reported")
    func locationErrors() {
        #expect(CoreLocationRules.locationError(code: 1) == .denied)
        #expect(CoreLocationRules.locationError(code: 0) == .locationUnknown)
        #expect(CoreLocationRules.locationError(code: 2) == .locationUnknown)
        #expect(CoreLocationRules.locationError(code: 3) == nil)    // heading
        #expect(CoreLocationRules.locationError(code: 18) == nil)   // prompt declined (temporary full accuracy)
        #expect(CoreLocationRules.locationError(code: 99) == .locationUnknown)   // unknown: never silent
        #expect(CoreLocationRules.locationError(code: -1) == .locationUnknown)   // not a CLError
    }

    @Test("region errors: delays are not failures; the generic failure is the slot limit only at 20 regions, else that region's (M3); reduced accuracy, read, blocks all")
    func regionErrors() {
        func failure(_ code: CoreLocationRules.ErrorCode, count: Int = 5, available: Bool = true, reduced: Bool = false) -> RegionFailure? {
            CoreLocationRules.regionFailure(code: code.rawValue, monitoredRegionCount: count, monitoringAvailable: available,
                                            reducedAccuracy: reduced)
        }
        #expect(failure(.regionMonitoringFailure, count: 3, reduced: true) == .unavailable)
        #expect(failure(.regionMonitoringFailure, count: 20, reduced: true) == .unavailable)
        #expect(failure(.regionMonitoringSetupDelayed) == nil)
        #expect(failure(.regionMonitoringResponseDelayed) == nil)
        #expect(failure(.regionMonitoringDenied) == .denied)
        #expect(failure(.denied) == .denied)
        #expect(failure(.regionMonitoringFailure, count: 20) == .tooManyRegions)
        #expect(failure(.regionMonitoringFailure, count: 19) == .failed, "that region's, not a global block")
        #expect(failure(.regionMonitoringFailure, count: 20, available: false) == .unavailable)
    }

    @Test("region radius: clamped to the maximum, never negative, nil when monitoring is unavailable")
    func radius() {
        #expect(CoreLocationRules.regionRadius(requested: 150, maximum: 1000) == 150)
        #expect(CoreLocationRules.regionRadius(requested: 5000, maximum: 1000) == 1000)
        #expect(CoreLocationRules.regionRadius(requested: -10, maximum: 1000) == 0)
        #expect(CoreLocationRules.regionRadius(requested: .nan, maximum: 1000) == 0)
        #expect(CoreLocationRules.regionRadius(requested: .infinity, maximum: 1000) == 1000)
        #expect(CoreLocationRules.regionRadius(requested: 150, maximum: -1) == nil)
        #expect(CoreLocationRules.regionRadius(requested: 150, maximum: .nan) == nil)
    }

    @Test("launch reason: keys first, then a keyless background launch is .background, never .user")
    func launchReason() {
        #expect(CoreLocationRules.launchReason(hasLocationKey: true, hasRemoteNotificationKey: false, launchedInBackground: true) == .location)
        #expect(CoreLocationRules.launchReason(hasLocationKey: false, hasRemoteNotificationKey: true, launchedInBackground: true) == .remoteNotification)
        #expect(CoreLocationRules.launchReason(hasLocationKey: false, hasRemoteNotificationKey: false, launchedInBackground: true) == .background)
        #expect(CoreLocationRules.launchReason(hasLocationKey: false, hasRemoteNotificationKey: false, launchedInBackground: false) == .user)
    }
}

/// How the engine reacts to what the live device now reports.
@Suite("Engine under the live device's events")
struct LiveDeviceEngineTests {
    @Test("a keyless background launch does not start the launch locator; opening the app does")
    func backgroundLaunch() {
        var d = CoreDriver()
        d.send(.launched(reason: .background), at: 0)
        d.request([.locationWhenInUse], at: 0)
        d.send(T.auth(.authorizedWhenInUse), at: 0)
        #expect(d.starts == 0)
        #expect(d.commands.contains(.createLocationManager))
        d.send(.willEnterForeground, at: 30)
        #expect(d.starts == 1)
    }

    @Test("a ride relaunched in the background without a key records the gap as terminated, not as not running")
    func backgroundRelaunchGap() throws {
        let stored = try #require(RideTrackerTests.riding().lastSnapshot)
        var h = TrackerHarness(RideTracker(configuration: TrackerHarness.steady, restoring: stored))
        h.send(.launched(reason: .background), at: 400)
        h.ride(from: 420, to: 430, speed: 5, offset: 2000)
        #expect(h.gaps.map(\.reason) == [.terminated])
    }

    @Test("didDetermineState on every transition: a state after the enter changes nothing")
    func stateAfterEveryTransition() throws {
        var m = try GeofencingMonitorTests.monitor()
        _ = GeofencingMonitorTests.walk(&m, [0])
        let region = m.configuration.regionIdentifier(forFence: "shop")
        let t = GeofencingMonitorTests.t0
        var kinds: [FenceEvent.Kind] = []
        for (event, seconds) in [(DeviceEvent.regionEntered(identifier: region), 600.0),
                                 (.regionState(identifier: region, state: .inside), 600),
                                 (.regionExited(identifier: region), 1200),
                                 (.regionState(identifier: region, state: .outside), 1200)] {
            let out = m.handle(event, at: t.addingTimeInterval(seconds))
            for case .event(let e) in out.updates { kinds.append(e.kind) }
        }
        #expect(kinds.filter { $0 == .enter || $0 == .exit } == [.enter, .exit])
        #expect(m.presence(of: "shop") == .outside)
    }
}
