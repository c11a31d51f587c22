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
            for mode in GeofenceExperiment.Mode.allCases {
                var results: [GeofenceExperiment.Result] = []
                for seed in seedList {
                    let r = try GeofenceExperiment.run(mode, seed: seed, trajectory: trajectory, fenceCount: fences, backend: backend,
                                                      proximity: proximity ? .on : ProximityTracking())
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
