import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

/// The three fence modes on the commute layout (a working day past 20 fences, issue #34), on both
/// location backends, with the app in a pocket. Seed 1; each run takes about a second in debug.
@Suite("Fence modes on the commute layout, on both backends")
struct GeofenceModeExperimentTests {
    static func run(_ mode: GeofenceMode, _ layout: GeofenceLayout, backend: LocationBackend,
                    configuration: GeofenceMonitor.Configuration = .init(),
                    overrides: [String: JSONValue] = [:]) throws -> GeofenceExperiment.Result {
        try GeofenceExperiment.run(.pocket, layout: layout, fenceMode: mode, seed: 1, overrides: overrides, backend: backend,
                                   configuration: configuration)
    }

    @Test("regions reports what iOS delivers with every fence registered; balanced more than regions, none false, below precise's energy; precise every crossing",
          arguments: LocationBackend.allCases)
    func modes(backend: LocationBackend) throws {
        let layout = GeofenceLayout.commute(seed: 1)
        let recording = try GeofenceExperiment.recordingEnergy(layout, seed: 1, backend: backend)
        let regions = try Self.run(.regions, layout, backend: backend)
        var unlimited = GeofenceMonitor.Configuration()
        unlimited.regionSlots = 100_000
        let ceiling = try Self.run(.regions, layout, backend: backend, configuration: unlimited,
                                   overrides: ["maxMonitoredRegions": .number(100_000)])
        let balanced = try Self.run(.balanced, layout, backend: backend)
        let precise = try Self.run(.precise, layout, backend: backend)
        #expect(regions.crossings == balanced.crossings && balanced.crossings == precise.crossings && regions.crossings >= 20)
        // regions: ≥ 97% of the ceiling's reports (the issue's goal); measured 100% on seed 1.
        #expect(Double(regions.reported) >= 0.97 * Double(ceiling.reported), "\(regions.reported) of \(ceiling.reported)")
        #expect(regions.reportedLateMarked == regions.reportedLate)
        // balanced: measured 22/24 (91.7%) on both backends, 0 false: as many as iOS alone on this
        // seed, but most within 3 minutes instead of about 4 minutes late.
        #expect(balanced.recall >= 0.9, "\(balanced.reported)/\(balanced.crossings)")
        #expect(balanced.reported >= regions.reported)
        #expect(balanced.reportedWithinThreeMinutes >= regions.reportedWithinThreeMinutes + 8,
                "\(balanced.reportedWithinThreeMinutes) vs \(regions.reportedWithinThreeMinutes)")
        #expect(balanced.falseEvents == 0, "\(balanced.falseEventDescriptions)")
        // precise: every crossing on seed 1; 0 false on the legacy backend, 3 on iOS 17: exits of work,
        // route-3 and route-6 caught up at 11,966 s from one 456 m coarse fix (not fixed yet).
        #expect(precise.recall >= 0.95, "\(precise.reported)/\(precise.crossings)")
        #expect(precise.falseEvents <= (backend == .locationManager ? 0 : 3), "\(precise.falseEventDescriptions)")
        // Energy: regions < balanced < precise, each against recording the same trips in the same run.
        #expect(regions.energy < balanced.energy && balanced.energy < precise.energy,
                "regions \(regions.energy), balanced \(balanced.energy), precise \(precise.energy)")
        #expect(recording > 0)
        #expect(balanced.energy / recording < 1, "balanced \(balanced.energy) vs recording \(recording)")
    }

    @Test("precise: the 30 s latency budget rests GNSS near boundaries too; on the commute it reports every crossing for well under half the energy of no budget")
    func preciseLatencyBudget() throws {
        let layout = GeofenceLayout.commute(seed: 1)
        var strict = GeofenceMonitor.Configuration()
        strict.proximity.latencyBudgetSeconds = 0
        let without = try Self.run(.precise, layout, backend: .locationManager, configuration: strict)
        let with = try Self.run(.precise, layout, backend: .locationManager)
        #expect(GeofenceMonitor.Configuration().proximity.latencyBudgetSeconds == 30)
        // Measured on seed 1: 24/24 both; energy 8,482 → 3,224; GNSS 7,376 → 1,254.
        #expect(without.reported == without.crossings && with.reported == with.crossings,
                "\(without.missedDescriptions) / \(with.missedDescriptions)")
        #expect(with.falseEvents == 0 && without.falseEvents == 0, "\(with.falseEventDescriptions)")
        #expect(with.energy < 0.5 * without.energy, "\(with.energy) vs \(without.energy)")
        let gnss = (with.energyByConsumer["gnss"] ?? 0, without.energyByConsumer["gnss"] ?? 0)
        #expect(gnss.0 < 0.25 * gnss.1, "GNSS \(gnss.0) vs \(gnss.1)")
    }

    @Test("regions in the foreground on the city layout: no false event from iOS's region events (a condition iOS determines late is not a crossing)",
          arguments: LocationBackend.allCases)
    func regionsForegroundNoFalseEvents(backend: LocationBackend) throws {
        // Before the adapter kept a foreground condition's late first state as its initial state,
        // the iOS 17 backend reported 16 false events here (enters inferred from an initial
        // `unsatisfied`, decided minutes after the add because the device sat near the boundary).
        // One false event is left on both backends, not from a region event: an enter caught up from a
        // Wi-Fi fix of 30 m whose error exceeded its stated accuracy (not fixed yet, issue #34).
        let city = try GeofenceExperiment.run(.foreground, layout: .city(seed: 1), fenceMode: .regions, seed: 1, backend: backend)
        #expect(city.crossings > 100)
        #expect(!city.falseEventDescriptions.contains { $0.contains("osDelayed") }, "\(city.falseEventDescriptions)")
        #expect(city.falseEvents <= 1, "\(city.falseEventDescriptions)")
        #expect(city.reported > 0)
    }

    @Test("a fence's mode changes only that fence's cost: a precise fence 20 km away costs nothing; the home fence as precise does",
          arguments: LocationBackend.allCases)
    func modeIsPerFence(backend: LocationBackend) throws {
        var layout = GeofenceLayout.commute(seed: 1)
        layout.fences = layout.fences.map { var f = $0; f.mode = .regions; return f }
        let far = Fence(id: "far", shape: .circle(center: GeofenceLayout.offset(layout.trajectory.position(at: 0), east: 0, north: 20_000),
                                                   radiusMeters: 300), mode: .regions)
        func energy(_ fences: [Fence]) throws -> Double {
            var l = layout
            l.fences = fences
            let app = GeofencingTestApp(fences: fences, tracksRide: false)
            let end = l.trajectory.endTime + 600
            let scenario = GeofenceScenario.make(route: ScenarioRoute(start: l.trajectory.position(at: 0), legs: []),
                                                 actions: GeofenceExperiment.actions(.pocket, end: end), duration: end)
            var sim = try Simulation(scenario: scenario, seed: 1, app: BackendTranslatingApp(app, backend: backend), trajectory: l.trajectory)
            sim.runToEnd()
            return sim.energy.total
        }
        var preciseFar = far
        preciseFar.mode = .precise
        let base = try energy(layout.fences + [far])
        let withFarPrecise = try energy(layout.fences + [preciseFar])
        #expect(withFarPrecise == base, "a precise fence the device never comes near changes nothing: \(withFarPrecise) vs \(base)")
        let homePrecise = layout.fences.map { f -> Fence in var f = f; if f.id == "home" { f.mode = .precise }; return f }
        let withHomePrecise = try energy(homePrecise + [far])
        #expect(withHomePrecise > base, "the home fence as precise pays near home: \(withHomePrecise) vs \(base)")
    }
}
