import Foundation
import Testing
import WaymarkSimulator
@testable import WaymarkCLI

@Suite("waymark simulate")
struct SimulateCommandTests {
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Examples")

    /// Every scenario file under Examples/, so a new example is covered without editing this list.
    static let exampleFiles: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: examples.path)) ?? [])
        .filter { $0.hasSuffix(".json") }.sorted()

    @Test("Examples/ holds a scenario of each kind")
    func examplesPresent() {
        #expect(Self.exampleFiles.count >= 7)
        for kind in ["first-launch", "missing-usage-description", "ride-with-tunnel", "kill-and-relaunch",
                     "region-monitoring", "settings-change", "commute"] {
            #expect(Self.exampleFiles.contains("\(kind).json"), "missing Examples/\(kind).json")
        }
    }

    @Test("every example runs to its end and prints a readable timeline and the energy report", arguments: exampleFiles)
    func exampleRuns(file: String) throws {
        let sim = try SimulateCommand.simulate(Self.examples.appendingPathComponent(file).path, seed: nil)
        #expect(sim.now == sim.endTime)
        let text = SimulateCommand.text(SimulationReport(sim), source: file)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first?.hasPrefix("scenario ") == true)
        #expect(lines.contains("      0.0 s  launched by the user"))
        #expect(lines.contains("energy (relative units)"))
        #expect(lines.contains { $0.hasPrefix("  total ") })
        #expect(!text.contains("WaymarkEngine.") && !text.contains("event    ") && !text.contains("command  "),
                "the timeline reads as descriptions, not Swift enum dumps")
    }

    @Test("the ride through a tunnel prints the readable timeline of Simulation.timeline")
    func rideWithTunnel() throws {
        let sim = try SimulateCommand.simulate(Self.examples.appendingPathComponent("ride-with-tunnel.json").path, seed: nil)
        let report = SimulationReport(sim)
        #expect(report.timeline == sim.timeline)
        let text = SimulateCommand.text(report, source: "ride-with-tunnel.json")
        #expect(text.contains("\n" + sim.timeline + "\n"))
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.contains("    120.0 s  entered the background"))
        #expect(lines.contains { $0.hasSuffix("s  system: GNSS lost (outage)") })
        #expect(lines.contains { $0.hasSuffix("s  location unknown (transient, the service keeps trying)") })
        #expect(lines.contains { $0.contains(" fixes in ") && $0.contains(" deliveries until ") && $0.contains("(gnss") })
        #expect(lines.contains { $0.contains("app: begin background task") } == false, "the minimal app uploads nothing, so needs no task")
        #expect(lines.contains { $0.hasPrefix("prompts shown 0, collisions 0, fixes delivered ") && $0.hasSuffix("final state background") })
    }

    @Test("the command exits 0 and writes one JSON line per log entry, the same bytes for the same seed")
    func logFile() async throws {
        let scenario = Self.examples.appendingPathComponent("first-launch.json").path
        let dir = FileManager.default.temporaryDirectory
        let a = dir.appendingPathComponent("simulate-\(UUID().uuidString).jsonl")
        let b = dir.appendingPathComponent("simulate-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: a); try? FileManager.default.removeItem(at: b) }
        #expect(await WaymarkCommand.run(["simulate", scenario, "--seed", "7", "--log", a.path, "--json"]) == WaymarkExit.success)
        #expect(await WaymarkCommand.run(["simulate", scenario, "--seed", "7", "--log", b.path, "--json"]) == WaymarkExit.success)
        let first = try Data(contentsOf: a), second = try Data(contentsOf: b)
        #expect(first == second)
        let sim = try SimulateCommand.simulate(scenario, seed: 7)
        let lines = String(decoding: first, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == sim.log.entries.count)
        #expect(lines.allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) is [String: Any] })
    }

    @Test("a bad scenario is an input error naming the file")
    func badScenario() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString).json")
        try Data(#"{"version": 1, "devise": {}}"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let error = #expect(throws: InputError.self) { try SimulateCommand.simulate(file.path, seed: nil) }
        #expect(error?.description.contains(file.path) == true)
        #expect(error?.description.contains("devise") == true)
    }
}
