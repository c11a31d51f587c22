import ArgumentParser
import Foundation
import WaymarkSimulator

/// `waymark simulate`: run a scenario on the simulated iPhone with a minimal app and report.
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Run a scenario on the simulated iPhone and print the timeline and energy report.",
        discussion: """
        The scenario is a JSON file (format version 1, see the Scenario article). The minimal app
        configured by its "app" section drives the device; the log has one JSON line per event,
        command and system note, with virtual timestamps.
        """
    )

    @Argument(help: "The scenario file (.json). GPX rides need the GPX reader (not in this build).")
    var scenario: String

    @Option(help: "The random seed (default: the scenario's seed, else 1).")
    var seed: UInt64?

    @Option(help: "Write the event log here as JSON lines.")
    var log: String?

    @Flag(help: "Print the report as JSON instead of a timeline.")
    var json = false

    func run() async throws {
        let url = URL(fileURLWithPath: scenario)
        if url.pathExtension.lowercased() == "gpx" {
            throw InputError("\(scenario): GPX rides need the GPX reader, which this build does not include yet; "
                             + "write a scenario with inline legs")
        }
        var simulation: Simulation
        do {
            let loaded = try Scenario.load(contentsOf: url)
            simulation = try Simulation(scenario: loaded, seed: seed, app: BasicApp(loaded.app ?? BasicApp.Configuration()))
        } catch {
            throw InputError("\(scenario): \(error)")
        }
        simulation.runToEnd()
        if let log {
            do {
                try Data(simulation.log.jsonLines().utf8).write(to: URL(fileURLWithPath: log))
            } catch {
                throw InputError("cannot write \(log): \(error.localizedDescription)")
            }
        }
        let report = SimulationReport(simulation)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print("scenario \(report.name ?? scenario), seed \(report.seed), \(Int(report.durationSeconds)) s simulated")
            print(report.timeline)
            print("")
            print("prompts shown \(report.stats.promptsShown), collisions \(report.stats.promptCollisions), "
                  + "fixes delivered \(report.stats.fixesDelivered), final state \(report.finalAppState.rawValue)")
            print(report.energyTable)
        }
    }
}
