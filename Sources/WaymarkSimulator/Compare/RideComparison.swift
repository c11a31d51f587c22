import Foundation
import WaymarkEngine

/// The battery experiment: every scenario under every policy, measured by ``RideMetrics``.
///
/// ```swift
/// let comparison = try RideComparison.run([commute] + RideExperimentScenario.corpusRides(under: corpus))
/// print(comparison.table)
/// ```
///
/// A `Sendable` value type; runs synchronously on virtual time (a day of simulation takes seconds).
public struct RideComparison: Sendable {
    /// One measured run.
    public struct Entry: Sendable {
        /// The scenario's name.
        public var scenario: String
        /// The policy.
        public var policy: RidePolicyChoice
        /// The location APIs the app used.
        public var backend: LocationBackend = .locationManager
        /// What was measured.
        public var metrics: RideMetrics
    }

    /// Every run, scenario by scenario, policies in order.
    public var entries: [Entry]

    /// Runs `scenarios` under `policies` with `seed` (the same seed for every policy), and Waymark's
    /// policy once more on each of `alsoWaymarkOn` (say `[.modern]`). The baselines exist only on the
    /// `CLLocationManager` backend: they are accuracy settings, which the iOS 17 live updates do
    /// not have.
    ///
    /// - throws: ``SimulatorError`` when a scenario is invalid.
    public static func run(_ scenarios: [RideExperimentScenario], policies: [RidePolicyChoice] = RidePolicyChoice.allCases,
                           seed: UInt64? = nil, alsoWaymarkOn backends: [LocationBackend] = []) throws(SimulatorError) -> RideComparison {
        var entries: [Entry] = []
        for item in scenarios {
            let runs = policies.map { ($0, LocationBackend.locationManager) } + backends.map { (RidePolicyChoice.waymark, $0) }
            for (policy, backend) in runs {
                let app = BackendTranslatingApp(RideSimApp(configuration: policy.configuration), backend: backend)
                var sim = try Simulation(scenario: item.scenario, seed: seed, app: app, trajectory: item.trajectory)
                sim.runToEnd()
                entries.append(Entry(scenario: item.name, policy: policy, backend: backend, metrics: RideMetrics(sim)))
            }
        }
        return RideComparison(entries: entries)
    }

    /// The metrics of one scenario under one policy on one backend.
    public func metrics(_ scenario: String, _ policy: RidePolicyChoice,
                        backend: LocationBackend = .locationManager) -> RideMetrics? {
        entries.first { $0.scenario == scenario && $0.policy == policy && $0.backend == backend }?.metrics
    }

    /// Energy of a run relative to policy A on the same scenario (nil without an A run).
    public func relativeEnergy(_ entry: Entry) -> Double? {
        guard let a = metrics(entry.scenario, .alwaysBest), a.energy > 0 else { return nil }
        return entry.metrics.energy / a.energy
    }

    /// One table: energy vs A, fixes, distance error, median and p95 error while moving, start distance, points lost.
    public var table: String {
        let header = ["scenario", "policy", "energy/A", "fixes", "dist err %", "median m", "p95 m", "start m", "lost"]
        var rows: [[String]] = [header]
        for entry in entries {
            let m = entry.metrics
            rows.append([entry.scenario, entry.policy.label + (entry.backend == .modern ? " (iOS 17)" : ""),
                         relativeEnergy(entry).map { String(format: "%.1f%%", $0 * 100) } ?? "-",
                         "\(m.fixesRecorded)", String(format: "%+.2f", m.distanceErrorPercent),
                         Self.meters(m.medianError), Self.meters(m.p95Error), Self.meters(m.startDistance), "\(m.pointsLost)"])
        }
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, text in
                column < 2 ? text.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[column] - text.count) + text
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    static func meters(_ value: Double?) -> String { value.map { String(format: "%.0f", $0) } ?? "-" }
}
