import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

/// With Background App Refresh off (or Low Power Mode, which turns it off), region monitoring fails
/// with `kCLErrorRegionMonitoringDenied` (rdar 16078124, corona-warn-app #974 [S31]). Field
/// evidence, so a setting, tested both ways.
@Suite("Region monitoring without Background App Refresh")
struct RegionBackgroundRefreshTests {
    static func device(refresh: Bool, lowPower: Bool, regions: [MonitoredRegion]? = nil) -> DeviceSetup {
        DeviceSetup(install: .existing, location: .authorizedAlways, monitoredRegions: regions,
                    backgroundAppRefresh: refresh, lowPowerMode: lowPower)
    }

    @Test("a registration fails as denied with BAR off or Low Power Mode; with the setting off it works",
          arguments: [(false, false), (true, true)], [true, false])
    func registration(setup: (refreshOn: Bool, lowPower: Bool), needsRefresh: Bool) throws {
        let sim = try RegionTests.monitoring([RegionTests.far], device: Self.device(refresh: setup.refreshOn, lowPower: setup.lowPower),
                                             overrides: ["regionMonitoringNeedsBackgroundRefresh": .bool(needsRefresh)])
        if needsRefresh {
            #expect(sim.monitoredRegionIdentifiers.isEmpty)
            #expect(sim.received.last?.event == .regionMonitoringFailed(identifier: "office", reason: .denied))
        } else {
            #expect(sim.monitoredRegionIdentifiers == ["office"])
        }
    }

    @Test("control: with BAR on and no Low Power Mode a registration works")
    func refreshOn() throws {
        let sim = try RegionTests.monitoring([RegionTests.far], device: Self.device(refresh: true, lowPower: false))
        #expect(sim.monitoredRegionIdentifiers == ["office"])
    }

    @Test("a region already registered stays silent while BAR is off; with the setting off it reports the entry",
          arguments: [true, false])
    func persistedRegionSilent(needsRefresh: Bool) throws {
        var overrides = RegionTests.fixedLatency
        overrides["regionMonitoringNeedsBackgroundRefresh"] = .bool(needsRefresh)
        var sim = try RegionTests.monitoring([], route: Fixture.eastbound(speed: 10, seconds: 200),
                                             device: Self.device(refresh: false, lowPower: false, regions: [RegionTests.far]),
                                             overrides: overrides)
        sim.run(until: 400)
        #expect(sim.monitoredRegionIdentifiers == ["office"])
        let entered = sim.times { $0 == .regionEntered(identifier: "office") }
        #expect(entered.count == (needsRefresh ? 0 : 1))
    }
}
