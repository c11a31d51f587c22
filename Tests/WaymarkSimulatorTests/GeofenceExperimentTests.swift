import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

/// The geofence experiment (`waymark simulate --geofences`) on both location backends, on a
/// two-hour ride past 100 fences: riding decides from fixes on either; in a pocket, only what
/// iOS region monitoring (or `CLMonitor`) reports, marked late.
@Suite("The geofence experiment on both backends")
struct GeofenceExperimentTests {
    @Test("riding with GNSS on: every scored crossing within a minute of the path being 40 m past, no more than one false event",
          arguments: LocationBackend.allCases)
    func riding(backend: LocationBackend) throws {
        let ride = try GeofencingRideTests.twoHourRide()
        let result = try GeofenceExperiment.run(.riding, seed: 1, trajectory: ride, fenceCount: 100, backend: backend)
        #expect(result.crossings > 20, "\(result.crossings)")
        #expect(result.recallWithinMinuteOfDepth >= 0.99, "\(result)")
        #expect(result.falseEvents <= 1, "\(result.falseEvents)")
    }

    @Test("in a pocket: crossings come late from iOS and every late one is marked late", arguments: LocationBackend.allCases)
    func pocket(backend: LocationBackend) throws {
        let ride = try GeofencingRideTests.twoHourRide()
        let result = try GeofenceExperiment.run(.pocket, seed: 1, trajectory: ride, fenceCount: 100, backend: backend)
        #expect(result.reported > 0)
        #expect(result.reportedLate > 0 && result.reportedLateMarked == result.reportedLate, "\(result)")
        let median = try #require(result.medianLatencySeconds)
        #expect(median > 60, "iOS reports region crossings minutes late: \(median) s")
    }

    @Test("in a pocket with proximity tracking: at least 95% reported, none false, at an energy cost the run shows",
          arguments: LocationBackend.allCases)
    func pocketWithProximity(backend: LocationBackend) throws {
        let ride = try GeofencingRideTests.twoHourRide()
        let regionsOnly = try GeofenceExperiment.run(.pocket, seed: 1, trajectory: ride, fenceCount: 100, backend: backend)
        let tracked = try GeofenceExperiment.run(.pocket, seed: 1, trajectory: ride, fenceCount: 100, backend: backend, fenceMode: .precise)
        #expect(tracked.crossings == regionsOnly.crossings)
        #expect(tracked.recall >= 0.95, "\(tracked.reported)/\(tracked.crossings)")
        #expect(tracked.recall > regionsOnly.recall)
        #expect(tracked.falseEvents == 0, "\(tracked.falseEvents)")
        #expect(tracked.gnssEnergy > regionsOnly.gnssEnergy, "the fixes near fences cost GNSS time")
    }
}
