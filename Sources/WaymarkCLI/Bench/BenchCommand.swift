import ArgumentParser
import Foundation

/// `waymark bench`: the measuring tools behind Scripts/bench_ingest.sh and Scripts/fuzz_ingest.sh.
///
/// Hidden from `waymark --help`: these are for benchmarking and fuzzing the server, not for operators.
/// Each subcommand prints one JSON object on standard output.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmark and fuzz tools for the tracking server (JSON output).",
        shouldDisplay: false,
        subcommands: [BenchLoadCommand.self, BenchStoreCommand.self, BenchSeedFencesCommand.self,
                      BenchFencesCommand.self, BenchEvaluateCommand.self, BenchFuzzCommand.self]
    )
}

/// Seconds of CPU (user + system) this process has used so far.
func processCPUSeconds() -> Double {
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// Prints `object` as one line of JSON with sorted keys.
func printJSON(_ object: [String: Any]) {
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
    writeLine(String(decoding: data, as: UTF8.self))
}

/// The value at quantile `q` (0…1) of sorted `values`, or 0 when empty.
func quantile(_ sorted: [Double], _ q: Double) -> Double {
    sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * q).rounded()))]
}
