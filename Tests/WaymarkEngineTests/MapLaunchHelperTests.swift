import Testing
import WaymarkGeo
@testable import WaymarkEngine

@Suite("MapLaunchHelper")
struct MapLaunchHelperTests {
    static let authorized = LocationAuthorization(status: .authorizedWhenInUse)

    @Test("centers exactly once per launch, on the launch fix")
    func centersOnce() {
        var helper = MapLaunchHelper()
        let fix = T.fix(measuredAt: 0, accuracy: 8)
        #expect(helper.update(launch: .locating, authorization: Self.authorized) == nil)
        #expect(helper.update(launch: .located(fix), authorization: Self.authorized)
                == MapLaunchState(center: fix.coordinate, currentLocationButtonEnabled: true))
        #expect(helper.update(launch: .located(fix), authorization: Self.authorized) == nil)
        #expect(helper.centersEmitted == 1)
    }

    @Test("the current-location button needs both authorization and a fix")
    func button() {
        var helper = MapLaunchHelper()
        let fix = T.fix(measuredAt: 0, accuracy: 8)
        _ = helper.update(launch: .locating, authorization: Self.authorized)
        #expect(!helper.state.currentLocationButtonEnabled)
        _ = helper.update(launch: .located(fix), authorization: Self.authorized)
        #expect(helper.state.currentLocationButtonEnabled)
        let revoked = helper.update(launch: .located(fix), authorization: LocationAuthorization(status: .denied))
        #expect(revoked == MapLaunchState(center: fix.coordinate, currentLocationButtonEnabled: false))
        #expect(helper.centersEmitted == 1)
    }

    @Test("no fix, no center, no button")
    func unavailable() {
        var helper = MapLaunchHelper()
        #expect(helper.update(launch: .unavailable(.timeout), authorization: Self.authorized) == nil)
        #expect(helper.state == MapLaunchState())
    }
}
