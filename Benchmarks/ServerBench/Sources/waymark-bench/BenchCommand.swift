import ArgumentParser
import Foundation
import Logging

/// `waymark-bench`: the measuring tools behind Scripts/bench_ingest.sh and Scripts/fuzz_ingest.sh.
/// They benchmark and fuzz the server; they are not for operators, so they are not part of the
/// shipped `waymark`. Each subcommand prints one JSON object on standard output.
@main
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "waymark-bench",
        abstract: "Benchmark and fuzz tools for the Waymark tracking server (JSON output).",
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

/// A logger for the store plumbing that reports only warnings and errors.
let quietLogger: Logger = {
    var logger = Logger(label: "waymark-bench.store")
    logger.logLevel = .warning
    return logger
}()

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// Writes `text` and a newline to standard output.
func writeLine(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
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
