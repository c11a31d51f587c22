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
    /// The timeline, one line per log entry, runs of location deliveries collapsed.
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
        timeline = Self.render(sim.log.entries)
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

    static func render(_ entries: [EventLog.Entry]) -> String {
        var lines: [String] = []
        var run: (from: Double, to: Double, fixes: Int, deliveries: Int)?
        func flush() {
            guard let r = run else { return }
            lines.append(stamp(r.from) + "event    \(r.fixes) fix(es) in \(r.deliveries) deliveries until \(String(format: "%.1f", r.to)) s")
            run = nil
        }
        for entry in entries {
            if entry.kind == .event, case .locations(let fixes) = entry.event {
                if run == nil { run = (entry.t, entry.t, 0, 0) }
                run!.to = entry.t
                run!.fixes += fixes.count
                run!.deliveries += 1
                continue
            }
            flush()
            switch entry.kind {
            case .event: lines.append(stamp(entry.t) + "event    " + describe(entry.event))
            case .command: lines.append(stamp(entry.t) + "command  " + describe(entry.command))
            case .system: lines.append(stamp(entry.t) + "system   " + (entry.note ?? ""))
            }
        }
        flush()
        return lines.joined(separator: "\n")
    }

    private static func stamp(_ t: Double) -> String {
        String(format: "%9.1f s  ", t)
    }

    private static func describe<T>(_ value: T?) -> String {
        guard let value else { return "" }
        let text = String(describing: value).replacingOccurrences(of: "WaymarkEngine.", with: "")
        return text.count > 120 ? String(text.prefix(117)) + "..." : text
    }
}
