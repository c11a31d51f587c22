import Foundation
import WaymarkEngine

/// A summary of a finished run: counters, energy by consumer, and a human-readable timeline.
///
/// ```swift
/// var sim = try Simulation(scenario: scenario, app: BasicApp())
/// sim.runToEnd()
/// let report = SimulationReport(sim)
/// let text = report.timeline
/// ```
public struct SimulationReport: Hashable, Sendable, Codable {
    /// The scenario's name.
    public var name: String?
    /// The seed used.
    public var seed: UInt64
    /// Simulated seconds.
    public var durationSeconds: Double
    /// Counters.
    public var stats: SimulationStats
    /// Energy by consumer, relative units.
    public var energy: [String: Double]
    /// Total energy.
    public var energyTotal: Double
    /// The app's state at the end.
    public var finalAppState: AppState
    /// The readable timeline (``Simulation/timeline``): one line per log entry, consecutive single-fix
    /// deliveries collapsed into one line.
    public var timeline: String

    /// Summarises a simulation.
    public init(_ sim: Simulation) {
        name = sim.scenario.name
        seed = sim.seed
        durationSeconds = sim.now
        stats = sim.stats
        var energy: [String: Double] = [:]
        for consumer in EnergyReport.Consumer.allCases where sim.energy[consumer] > 0 {
            energy[consumer.rawValue] = (sim.energy[consumer] * 1000).rounded() / 1000
        }
        self.energy = energy
        energyTotal = (sim.energy.total * 1000).rounded() / 1000
        finalAppState = sim.appState
        timeline = sim.timeline
    }

    /// The energy table as aligned text lines.
    public var energyTable: String {
        var lines = ["energy (relative units)"]
        for consumer in EnergyReport.Consumer.allCases {
            guard let value = energy[consumer.rawValue] else { continue }
            lines.append("  " + consumer.rawValue.padding(toLength: 18, withPad: " ", startingAt: 0) + String(format: "%10.3f", value))
        }
        lines.append("  " + "total".padding(toLength: 18, withPad: " ", startingAt: 0) + String(format: "%10.3f", energyTotal))
        return lines.joined(separator: "\n")
    }
}
