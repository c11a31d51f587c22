import ArgumentParser
import Foundation
import WaymarkEngine
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

    @Argument(help: ArgumentHelp("The scenario file (.json), or a recorded ride (.gpx) to replay as a background ride.",
                                 discussion: "With --compare: any number of scenarios and GPX rides."))
    var scenarios: [String] = []

    @Flag(help: """
        Run the battery experiment: each scenario under policies A (best), B (best, 10 m filter), \
        C (hundred metres), D (motion switch) and Waymark's default, and print one table. Without \
        scenarios: Examples/commute.json and the rides of Tests/WaymarkGeoTests/Fixtures/corpus.
        """)
    var compare = false

    @Flag(help: """
        Run the geofence experiment: recall and latency against the true path while riding (GNSS on), \
        in a pocket (iOS region monitoring only), and after a termination or a force-quit, on a \
        ride past 5,000 fences. Without a scenario: the bundled Blue Hills ride; else a GPX ride.
        """)
    var geofences = false

    @Option(help: ArgumentHelp(
        "With --compare or --geofences: the location APIs the app uses (location-manager; modern: the iOS 17 live updates and CLMonitor; both).",
        discussion: "--compare runs its baselines on location-manager only, and Waymark's policy on modern as one more row."))
    var backend: BackendChoice = .locationManager

    @Flag(help: ArgumentHelp(
        "With --geofences: the monitor's proximity tracking on (standard updates while fences are near, ProximityTracking).",
        discussion: "Off by default, as in the library; the table's energy column shows what it costs."))
    var proximity = false

    @Option(help: "With --geofences: how many fences to place along the ride in every mode (default 5,000 while riding, 100 otherwise).")
    var fences: Int?

    @Option(help: ArgumentHelp(
        "With --geofences: the mode of every fence (regions, balanced, precise); runs the issue #34 experiment.",
        discussion: "With --mode or --layout the experiment runs one fence mode on one layout and reports the fraction of true crossings reported, within 60 s and 3 min, false events, the median latency and the energy over the energy of recording the same trips with the ride tracker (run alongside)."))
    var mode: GeofenceModeChoice?

    @Option(help: "With --geofences: the layout (park: a ride past 100 fences; commute: a working day past 20; city: a day of errands past 200; default park).")
    var layout: GeofenceLayoutChoice?

    @Option(name: .customLong("app-state"),
            help: "With --mode or --layout: how the app runs (foreground, pocket, terminated, force-quit, or all; default pocket).")
    var appState: AppStateChoice = .pocket

    @Option(name: .customLong("latency-budget"), help: ArgumentHelp(
        "With --mode balanced or precise: seconds a GNSS rest may run past the earliest moment the device could reach a boundary (latencyBudgetSeconds; default: the library's).",
        discussion: "0 keeps GNSS at 1 Hz wherever a boundary could be reached before the next fix; more trades latency for energy."))
    var latencyBudget: Double?

    @Option(help: "With --geofences: the seeds to run (comma-separated; default 1,2,3).")
    var seeds: String?

    @Option(help: "The random seed (default: the scenario's seed, else 1).")
    var seed: UInt64?

    @Option(help: "Write the event log here as JSON lines (with --geofences --mode or --layout: the first run's).")
    var log: String?

    @Flag(help: "Print the report as JSON instead of a timeline.")
    var json = false

    func validate() throws {
        if geofences {
            if compare { throw ValidationError("--geofences and --compare are separate experiments: use one.") }
            if scenarios.count > 1 { throw ValidationError("--geofences takes at most one GPX ride.") }
            if let fences, fences < 1 { throw ValidationError("--fences: expected at least 1 fence, got \(fences).") }
            if mode != nil || layout != nil {
                if proximity { throw ValidationError("--proximity belongs to the older experiment; with --mode use --mode precise.") }
                if fences != nil, (layout ?? .park) != .park { throw ValidationError("--fences applies to the park layout only.") }
                if json, backend == .both { throw ValidationError("--json prints one object: choose --backend location-manager or modern.") }
                if json, appState == .all { throw ValidationError("--json prints one object: choose one --app-state.") }
                if let latencyBudget, !(latencyBudget.isFinite && latencyBudget >= 0) {
                    throw ValidationError("--latency-budget: expected a number of seconds, 0 or more, got \(latencyBudget).")
                }
            } else {
                if latencyBudget != nil { throw ValidationError("--latency-budget applies with --mode or --layout.") }
                if json { throw ValidationError("--json with --geofences needs --mode or --layout.") }
                if appState != .pocket { throw ValidationError("--app-state applies with --mode or --layout.") }
            }
            return
        }
        if mode != nil || layout != nil || appState != .pocket {
            throw ValidationError("--mode, --layout and --app-state apply to --geofences.")
        }
        if !compare && scenarios.count != 1 { throw ValidationError("Give exactly one scenario (or use --compare).") }
        if !compare && backend != .locationManager { throw ValidationError("--backend applies to --compare and --geofences.") }
        if proximity { throw ValidationError("--proximity applies to --geofences.") }
        if fences != nil { throw ValidationError("--fences applies to --geofences.") }
        if latencyBudget != nil { throw ValidationError("--latency-budget applies to --geofences.") }
    }

    func run() async throws {
        if geofences { return try mode != nil || layout != nil ? runGeofenceModes() : runGeofenceExperiment() }
        if compare { return try runComparison() }
        let simulation = try Self.simulate(scenarios[0], seed: seed)
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
            writeLine(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            writeLine(Self.text(report, source: scenarios[0]))
        }
    }

    /// Loads a scenario file (or a GPX ride) and runs it to its end with the minimal app.
    static func simulate(_ path: String, seed: UInt64?) throws -> Simulation {
        let url = URL(fileURLWithPath: path)
        do {
            let loaded = url.pathExtension.lowercased() == "gpx"
                ? Scenario.replayedRide(gpxPath: url.path)
                : try Scenario.load(contentsOf: url)
            var simulation = try Simulation(scenario: loaded, seed: seed, app: BasicApp(loaded.app ?? BasicApp.Configuration()))
            simulation.runToEnd()
            return simulation
        } catch {
            throw InputError("\(path): \(error)")
        }
    }

    /// The printed report: a header, the readable timeline, counters and the energy table.
    static func text(_ report: SimulationReport, source: String) -> String {
        """
        scenario \(report.name ?? source), seed \(report.seed), \(Int(report.durationSeconds)) s simulated
        \(report.timeline)

        prompts shown \(report.stats.promptsShown), collisions \(report.stats.promptCollisions), \
        fixes delivered \(report.stats.fixesDelivered), final state \(report.finalAppState.rawValue)
        \(report.energyTable)
        """
    }

    /// `--compare`: the battery experiment over the given (or default) scenarios.
    func runComparison() throws {
        var items: [RideExperimentScenario] = []
        if scenarios.isEmpty {
            let commute = "Examples/commute.json"
            if FileManager.default.fileExists(atPath: commute) { items += try loadExperiment(commute) }
            items += RideExperimentScenario.corpusRides(under: URL(fileURLWithPath: "Tests/WaymarkGeoTests/Fixtures/corpus"))
            guard !items.isEmpty else { throw InputError("no scenarios: run from the package root or name scenario files") }
        } else {
            for path in scenarios { items += try loadExperiment(path) }
        }
        let comparison: RideComparison
        do {
            comparison = try RideComparison.run(items, policies: backend == .modern ? [.alwaysBest] : RidePolicyChoice.allCases,
                                                seed: seed, alsoWaymarkOn: backend == .locationManager ? [] : [.modern])
        } catch { throw InputError("\(error)") }
        writeLine(comparison.table)
    }

    private func loadExperiment(_ path: String) throws -> [RideExperimentScenario] {
        do { return try RideExperimentScenario.load(path: path) } catch { throw InputError("\(path): \(error)") }
    }
}

/// `--backend`: which location APIs the experiments' app uses.
/// `--mode`: a fence's `GeofenceMode`.
enum GeofenceModeChoice: String, ExpressibleByArgument, CaseIterable {
    case regions, balanced, precise

    var mode: GeofenceMode { GeofenceMode(rawValue: rawValue)! }
}

/// `--layout`: a `GeofenceLayout.Kind`.
enum GeofenceLayoutChoice: String, ExpressibleByArgument, CaseIterable {
    case park, commute, city

    var kind: GeofenceLayout.Kind { GeofenceLayout.Kind(rawValue: rawValue)! }
}

/// `--app-state`: how the app runs in the geofence experiment.
enum AppStateChoice: String, ExpressibleByArgument, CaseIterable {
    case foreground, pocket, terminated
    case forceQuit = "force-quit"
    case all

    /// The experiment's app states.
    var modes: [GeofenceExperiment.Mode] {
        switch self {
        case .foreground: [.foreground]
        case .pocket: [.pocket]
        case .terminated: [.terminated]
        case .forceQuit: [.forceQuit]
        case .all: GeofenceExperiment.Mode.appStates
        }
    }
}

enum BackendChoice: String, ExpressibleByArgument, CaseIterable {
    case locationManager = "location-manager"
    case modern
    case both

    /// The backends to run.
    var backends: [LocationBackend] {
        switch self {
        case .locationManager: [.locationManager]
        case .modern: [.modern]
        case .both: [.locationManager, .modern]
        }
    }
}
