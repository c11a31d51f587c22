import Foundation
import WaymarkEngine
import WaymarkGeo
import WaymarkSimulator

extension SimulateCommand {
    /// `waymark simulate --geofences`: every mode of ``GeofenceExperiment`` for each seed, then one
    /// table of medians over the seeds.
    func runGeofenceExperiment() throws {
        let seedList = try Self.parseSeeds(seeds)
        let trajectory = try Self.geofenceRide(scenarios.first)
        writeLine("geofence experiment: \(Int(trajectory.endTime / 60)) min ride, \(fences.map { "\($0) fences" } ?? "5,000 fences while riding and 100 otherwise"), seeds \(seedList.map(String.init).joined(separator: ","))"
                  + (proximity ? ", proximity tracking on" : ""))
        var rows: [String] = []
        for backend in backend.backends {
            for mode in [GeofenceExperiment.Mode.riding, .pocket, .terminated, .forceQuit] {
                var results: [GeofenceExperiment.Result] = []
                for seed in seedList {
                    let r = try GeofenceExperiment.run(mode, seed: seed, trajectory: trajectory, fenceCount: fences, backend: backend,
                                                      fenceMode: proximity ? .precise : .regions)
                    results.append(r)
                    writeLine("  \(Self.label(mode, backend)) seed \(seed): \(r.reported)/\(r.crossings) reported, \(r.reportedWithinMinute) within 60 s, "
                              + "\(r.falseEvents) false of \(r.events), \(r.reportedLateMarked) of \(r.reportedLate) late ones marked late, latency median \(Self.seconds(r.medianLatencySeconds)) "
                              + "p90 \(Self.seconds(r.p90LatencySeconds)) max \(Self.seconds(r.maxLatencySeconds)), launches \(r.launches.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")), energy \(Int(r.energy)) (GNSS \(Int(r.gnssEnergy)))")
                }
                rows.append(Self.row(Self.label(mode, backend), results))
            }
        }
        writeLine("")
        writeLine("| mode | crossings | reported | within 60 s of the boundary | within 60 s of 40 m past | false events | median latency | p90 latency | max latency | energy (GNSS) |")
        writeLine("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for row in rows { writeLine(row) }
    }

    /// The mode's name, with "(iOS 17)" on the modern backend.
    static func label(_ mode: GeofenceExperiment.Mode, _ backend: LocationBackend) -> String {
        mode.rawValue + (backend == .modern ? " (iOS 17)" : "")
    }

    static func parseSeeds(_ text: String?) throws -> [UInt64] {
        guard let text else { return [1, 2, 3] }
        let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let seeds = parts.compactMap { UInt64($0) }
        guard !seeds.isEmpty, seeds.count == parts.count else {
            throw InputError("--seeds: expected comma-separated whole numbers, got \"\(text)\"")
        }
        return seeds
    }

    /// The ride: a GPX file's timed points, else the bundled Blue Hills loop.
    static func geofenceRide(_ path: String?) throws -> Trajectory {
        let url: URL
        if let path {
            url = URL(fileURLWithPath: path)
        } else if let bundled = Bundle.module.url(forResource: "blue_hills_big_loop", withExtension: "gpx", subdirectory: "Resources") {
            url = bundled
        } else {
            throw InputError("the bundled ride is missing from the tool's resources (blue_hills_big_loop.gpx)")
        }
        let document: GPXDocument
        do { document = try GPXDocument(contentsOf: url) } catch { throw InputError("\(url.path): \(error)") }
        let points = document.tracks.flatMap(\.points).filter { $0.time != nil }
        guard points.count >= 2 else {
            throw InputError("\(url.path): the ride needs at least two track points with times")
        }
        return Trajectory(timedWaypoints: points)
    }

    static func seconds(_ value: Double?) -> String {
        guard let value else { return "–" }
        return value < 120 ? "\(Int(value.rounded())) s" : String(format: "%.1f min", value / 60)
    }

    static func median(_ values: [Double]) -> Double? {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return nil }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    static func row(_ mode: String, _ results: [GeofenceExperiment.Result]) -> String {
        func pct(_ v: Double?) -> String { v.map { String(format: "%.1f%%", $0 * 100) } ?? "–" }
        let crossings = median(results.map { Double($0.crossings) }).map { String(Int($0)) } ?? "–"
        let recall = median(results.map(\.recall)), minute = median(results.map(\.recallWithinMinute))
        let depth = median(results.map(\.recallWithinMinuteOfDepth))
        let falseEvents = median(results.map { Double($0.falseEvents) }).map { String(Int($0)) } ?? "–"
        return "| \(mode) | \(crossings) | \(pct(recall)) | \(pct(minute)) | \(pct(depth)) | \(falseEvents) | "
            + "\(seconds(median(results.compactMap(\.medianLatencySeconds)))) | \(seconds(median(results.compactMap(\.p90LatencySeconds)))) | "
            + "\(seconds(median(results.compactMap(\.maxLatencySeconds)))) | "
            + "\(median(results.map(\.energy)).map { String(Int($0)) } ?? "–") (\(median(results.map(\.gnssEnergy)).map { String(Int($0)) } ?? "–")) |"
    }
}

extension SimulateCommand {
    /// The figures of one fence mode on one layout, app state and backend, over the seeds: medians,
    /// and every seed's own (`waymark simulate --geofences --mode … --layout … --json`).
    struct GeofenceModeReport: Encodable {
        struct Seed: Encodable {
            var seed: UInt64
            var crossings: Int
            var reported: Double
            var within60s: Double
            var within3min: Double
            var falseEvents: Int
            var medianLatencySeconds: Double?
            var energy: Double
            var recordingEnergy: Double
            var energyRatioToRecording: Double?
            var lateMarkedLate: String
            var ceilingReported: Double?
            var reportedOfCeiling: Double?
        }
        var mode: String
        var layout: String
        var appState: String
        var backend: String
        var seeds: [UInt64]
        var crossings: Double?
        var reported: Double?
        var within60s: Double?
        var within3min: Double?
        var falseEvents: Double?
        var medianLatencySeconds: Double?
        var energyRatioToRecording: Double?
        /// Regions mode: the fraction reported with every fence registered (no 20-region limit).
        var ceilingReported: Double?
        /// Regions mode: reported over the ceiling's reported, median and lowest over the seeds.
        var reportedOfCeiling: Double?
        var reportedOfCeilingLowest: Double?
        var perSeed: [Seed]
    }

    /// `--geofences --mode/--layout`: one fence mode on one layout, for each app state and backend.
    func runGeofenceModes() throws {
        let seedList = try Self.parseSeeds(seeds)
        let kind = (layout ?? .park).kind
        let fenceMode = (mode ?? .balanced).mode
        let ride = kind == .park ? try Self.geofenceRide(scenarios.first) : nil
        if !json {
            writeLine("geofence modes: \(fenceMode.rawValue) fences, \(kind.rawValue) layout, seeds \(seedList.map(String.init).joined(separator: ","))")
        }
        var configuration = GeofenceMonitor.Configuration()
        if let latencyBudget {
            configuration.proximity.latencyBudgetSeconds = latencyBudget
            configuration.balanced.latencyBudgetSeconds = latencyBudget
        }
        var reports: [GeofenceModeReport] = []
        for backend in backend.backends {
            var recording: [UInt64: Double] = [:]
            for state in appState.modes {
                var perSeed: [GeofenceModeReport.Seed] = []
                for seed in seedList {
                    let layout = kind == .park ? GeofenceLayout.park(ride!, seed: seed, fenceCount: fences ?? 100)
                                               : GeofenceLayout.make(kind, seed: seed)
                    do {
                        if recording[seed] == nil { recording[seed] = try GeofenceExperiment.recordingEnergy(layout, seed: seed, backend: backend) }
                        var logText: String?
                        var r = try GeofenceExperiment.run(state, layout: layout, fenceMode: fenceMode, seed: seed, backend: backend,
                                                           configuration: configuration) { sim in
                            if log != nil, reports.isEmpty, perSeed.isEmpty { logText = sim.log.jsonLines() }
                        }
                        if let log, let logText {
                            do { try Data(logText.utf8).write(to: URL(fileURLWithPath: log)) } catch {
                                throw InputError("cannot write \(log): \(error.localizedDescription)")
                            }
                        }
                        r.recordingEnergy = recording[seed]
                        var ceiling: GeofenceExperiment.Result?
                        if fenceMode == .regions {
                            var unlimited = GeofenceMonitor.Configuration()
                            unlimited.regionSlots = 100_000
                            ceiling = try GeofenceExperiment.run(state, layout: layout, fenceMode: .regions, seed: seed,
                                                                 overrides: ["maxMonitoredRegions": .number(100_000)],
                                                                 backend: backend, configuration: unlimited)
                        }
                        let entry = Self.seedEntry(r, ceiling: ceiling)
                        perSeed.append(entry)
                        if !json {
                            writeLine("  \(state.rawValue)\(backend == .modern ? " (iOS 17)" : "") seed \(seed): \(r.reported)/\(r.crossings) reported, "
                                      + "\(r.reportedWithinMinute) within 60 s, \(r.reportedWithinThreeMinutes) within 3 min, \(r.falseEvents) false of \(r.events), "
                                      + "\(entry.lateMarkedLate) late ones marked late, latency median \(Self.seconds(r.medianLatencySeconds)), "
                                      + "energy \(Int(r.energy)) (\(r.energyByConsumer.sorted { $0.value > $1.value }.map { "\($0.key) \(Int($0.value))" }.joined(separator: ", "))) vs recording \(Int(recording[seed] ?? 0)), "
                                      + "launches \(r.launches.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))"
                                      + (ceiling.map { ", ceiling \($0.reported)/\($0.crossings)" } ?? ""))
                            for description in r.falseEventDescriptions { writeLine("    false: \(description)") }
                            for description in r.missedDescriptions { writeLine("    missed: \(description)") }
                        }
                    } catch {
                        throw InputError("\(error)")
                    }
                }
                reports.append(Self.modeReport(fenceMode, kind, state, backend, seedList, perSeed))
            }
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            writeLine(String(decoding: try encoder.encode(reports[0]), as: UTF8.self))
            return
        }
        writeLine("")
        writeLine("| mode | layout | app state | backend | crossings | reported | within 60 s | within 3 min | false events | median latency | energy / recording |"
                  + (fenceMode == .regions ? " with every fence registered | reported / that (lowest seed) |" : ""))
        writeLine("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|" + (fenceMode == .regions ? "---:|---:|" : ""))
        for r in reports {
            func pct(_ v: Double?) -> String { v.map { String(format: "%.1f%%", $0 * 100) } ?? "–" }
            var row = "| \(r.mode) | \(r.layout) | \(r.appState) | \(r.backend) | \(r.crossings.map { String(Int($0)) } ?? "–") | "
                + "\(pct(r.reported)) | \(pct(r.within60s)) | \(pct(r.within3min)) | \(r.falseEvents.map { String(Int($0)) } ?? "–") | "
                + "\(Self.seconds(r.medianLatencySeconds)) | \(pct(r.energyRatioToRecording)) |"
            if fenceMode == .regions { row += " \(pct(r.ceilingReported)) | \(pct(r.reportedOfCeiling)) (\(pct(r.reportedOfCeilingLowest))) |" }
            writeLine(row)
        }
    }

    static func seedEntry(_ r: GeofenceExperiment.Result, ceiling: GeofenceExperiment.Result?) -> GeofenceModeReport.Seed {
        let reportedOfCeiling: Double? = ceiling.map { $0.reported == 0 ? 1 : Double(r.reported) / Double($0.reported) }
        return GeofenceModeReport.Seed(seed: r.seed, crossings: r.crossings, reported: r.recall, within60s: r.recallWithinMinute,
                                       within3min: r.recallWithinThreeMinutes, falseEvents: r.falseEvents,
                                       medianLatencySeconds: r.medianLatencySeconds, energy: r.energy,
                                       recordingEnergy: r.recordingEnergy ?? 0, energyRatioToRecording: r.energyRatioToRecording,
                                       lateMarkedLate: "\(r.reportedLateMarked)/\(r.reportedLate)",
                                       ceilingReported: ceiling?.recall, reportedOfCeiling: reportedOfCeiling)
    }

    static func modeReport(_ mode: GeofenceMode, _ layout: GeofenceLayout.Kind, _ state: GeofenceExperiment.Mode,
                           _ backend: LocationBackend, _ seeds: [UInt64], _ perSeed: [GeofenceModeReport.Seed]) -> GeofenceModeReport {
        GeofenceModeReport(mode: mode.rawValue, layout: layout.rawValue, appState: state == .forceQuit ? "force-quit" : state.rawValue,
                           backend: backend == .modern ? "modern" : "location-manager", seeds: seeds,
                           crossings: median(perSeed.map { Double($0.crossings) }),
                           reported: median(perSeed.map(\.reported)), within60s: median(perSeed.map(\.within60s)),
                           within3min: median(perSeed.map(\.within3min)), falseEvents: median(perSeed.map { Double($0.falseEvents) }),
                           medianLatencySeconds: median(perSeed.compactMap(\.medianLatencySeconds)),
                           energyRatioToRecording: median(perSeed.compactMap(\.energyRatioToRecording)),
                           ceilingReported: median(perSeed.compactMap(\.ceilingReported)),
                           reportedOfCeiling: median(perSeed.compactMap(\.reportedOfCeiling)),
                           reportedOfCeilingLowest: perSeed.compactMap(\.reportedOfCeiling).min(), perSeed: perSeed)
    }
}
