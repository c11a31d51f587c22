import Testing
import WaymarkGeo
@testable import WaymarkEngine

@Suite("LaunchLocator and PLATFORM.md §2 callback sequences")
struct LaunchLocatorTests {
    /// The map app: launches, asks for when-in-use, sees the callbacks of one §2 path.
    static func firstLaunch() -> CoreDriver {
        var d = CoreDriver()
        d.send(.launched(reason: .user), at: 0)
        d.request([.locationWhenInUse], at: 0)
        d.send(T.auth(.notDetermined), at: 0)
        return d
    }

    @Test("first launch, user allows: notDetermined then authorizedWhenInUse starts updates once")
    func allows() {
        var d = Self.firstLaunch()
        #expect(d.starts == 0)
        d.send(T.auth(.authorizedWhenInUse), at: 2)
        d.send(T.auth(.authorizedWhenInUse), at: 2.5)   // a repeated callback changes nothing
        #expect(d.starts == 1)
        #expect(d.launchStates == [.waitingForPermission, .locating])
    }

    @Test("first launch, user denies: unavailable(denied), never started")
    func denies() {
        var d = Self.firstLaunch()
        d.send(T.auth(.denied), at: 2)
        #expect(d.starts == 0)
        #expect(d.launchStates.last == .unavailable(.denied))
        #expect(d.core.nextDeadline == nil)
    }

    @Test("relaunch after allowing: one authorizedWhenInUse callback, updates start once")
    func relaunch() {
        var d = CoreDriver()
        d.send(.launched(reason: .user), at: 0)
        d.request([.locationWhenInUse], at: 0)
        d.send(T.auth(.authorizedWhenInUse), at: 0)
        #expect(d.starts == 1)
        #expect(!d.commands.contains(.requestWhenInUseAuthorization))
    }

    @Test("a second launched event is a new process: one start in each")
    func newProcessStartsAgainOnce() {
        var d = Self.firstLaunch()
        d.send(T.auth(.authorizedWhenInUse), at: 2)
        d.send(.locations([T.fix(measuredAt: 3, accuracy: 8)]), at: 3)
        d.send(.launched(reason: .user), at: 100)
        d.send(T.auth(.authorizedWhenInUse), at: 100)
        #expect(d.starts == 2)
        #expect(d.commands.filter { $0 == .createLocationManager }.count == 2)
    }

    @Test("the stale cached first fix is rejected; the first fresh accurate fix is accepted and updates stop at once")
    func staleRejected() throws {
        var d = Self.firstLaunch()
        d.send(T.auth(.authorizedWhenInUse), at: 2)
        let cached = T.fix(measuredAt: -300, accuracy: 65, source: .wifi)
        #expect(d.send(.locations([cached]), at: 2).isEmpty)
        #expect(d.core.launchLocator.state == .locating)
        let fresh = T.fix(measuredAt: 9, accuracy: 8)
        #expect(d.send(.locations([fresh]), at: 9) == [.stopUpdatingLocation])
        #expect(d.launchStates.last == .located(fresh))
        #expect(d.send(.locations([T.fix(measuredAt: 10, accuracy: 5)]), at: 10).isEmpty)
        #expect(d.launchStates.filter(\.isFinal).count == 1)
    }

    @Test("freshness and accuracy limits are configurable")
    func configurable() {
        var d = CoreDriver(configuration: .init(launchLocation: .init(maxFixAge: 60, maxAccuracyMeters: 20)))
        d.send(.launched(reason: .user), at: 0)
        d.send(T.auth(.authorizedWhenInUse), at: 0)
        d.send(.locations([T.fix(measuredAt: -30, accuracy: 30)]), at: 1)
        #expect(d.core.launchLocator.state == .locating)
        d.send(.locations([T.fix(measuredAt: -30, accuracy: 15)]), at: 1)
        #expect(d.core.launchLocator.state.fix != nil)
    }

    @Test("at the timeout the best fresh fix seen is used, else unavailable(timeout)")
    func timeout() {
        var d = CoreDriver()
        d.send(.launched(reason: .user), at: 0)
        d.send(T.auth(.authorizedWhenInUse), at: 0)
        let coarse = T.fix(measuredAt: 3, accuracy: 400, source: .wifi)
        let better = T.fix(measuredAt: 5, accuracy: 150, source: .wifi)
        d.send(.locations([coarse]), at: 3)
        d.send(.locations([better]), at: 5)
        d.send(.locations([T.fix(measuredAt: 6, accuracy: 300)]), at: 6)
        #expect(d.wake(at: 19.9).isEmpty)
        #expect(d.wake(at: 20) == [.stopUpdatingLocation])
        #expect(d.launchStates.last == .located(better))

        var none = CoreDriver()
        none.send(.launched(reason: .user), at: 0)
        none.send(T.auth(.authorizedWhenInUse), at: 0)
        none.send(.locations([T.fix(measuredAt: -600, accuracy: 50)]), at: 1)
        none.wake(at: 20)
        #expect(none.launchStates.last == .unavailable(.timeout))
        #expect(none.stops == 1)
    }

    @Test("losing authorization while locating ends with unavailable(denied)")
    func deniedWhileLocating() {
        var d = CoreDriver()
        d.send(.launched(reason: .user), at: 0)
        d.send(T.auth(.authorizedWhenInUse), at: 0)
        d.send(.locationError(.denied), at: 4)
        #expect(d.launchStates.last == .unavailable(.denied))
    }

    @Test("services off and restricted are reported as such")
    func servicesOff() {
        var d = CoreDriver()
        d.send(.launched(reason: .user), at: 0)
        d.send(T.auth(.denied, servicesEnabled: false), at: 0)
        #expect(d.launchStates.last == .unavailable(.servicesDisabled))
        var r = CoreDriver()
        r.send(.launched(reason: .user), at: 0)
        r.send(T.auth(.restricted), at: 0)
        #expect(r.launchStates.last == .unavailable(.restricted))
    }

    @Test("a background launch does not locate until the user opens the app")
    func backgroundLaunch() {
        var d = CoreDriver()
        d.send(.launched(reason: .location), at: 0)
        d.send(T.auth(.authorizedAlways), at: 0)
        #expect(d.starts == 0)
        #expect(d.core.launchLocator.state == .idle)
        d.send(.willEnterForeground, at: 50)
        #expect(d.starts == 1)
    }
}
