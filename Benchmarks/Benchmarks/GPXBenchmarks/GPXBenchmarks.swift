import Benchmark
import Foundation
import WaymarkGeo

/// The input: `GPX_BENCH_FILE`, or the file `Scripts/make_big_gpx.py` writes by default.
let benchFile = ProcessInfo.processInfo.environment["GPX_BENCH_FILE"] ?? "/tmp/waymark-big.gpx"

/// Streams the file and computes simple statistics (points, haversine length, elevation gain).
func streamWithStatistics(_ url: URL) throws -> (points: Int, length: Double, gain: Double) {
    var reader = try GPXReader(contentsOf: url)
    var points = 0
    var length = 0.0
    var gain = 0.0
    var last: Waypoint?
    while let event = try reader.next() {
        switch event {
        case .segmentBegin:
            last = nil
        case .trackPoint(let p):
            points += 1
            if let l = last {
                length += Geodesy.haversineDistance(l.coordinate, p.coordinate)
                if let a = l.elevation, let b = p.elevation, b > a { gain += b - a }
            }
            last = p
        default:
            break
        }
    }
    return (points, length, gain)
}

let benchmarks: @Sendable () -> Void = {
    let url = URL(fileURLWithPath: benchFile)
    let bytes = (try? FileManager.default.attributesOfItem(atPath: benchFile)[.size] as? Int) ?? 0
    guard bytes > 0 else {
        FileHandle.standardError.write(Data("no benchmark input at \(benchFile); run Scripts/make_big_gpx.py first\n".utf8))
        return
    }
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .throughput, .peakMemoryResident, .mallocCountTotal],
        scalingFactor: .one,
        maxDuration: .seconds(30),
        maxIterations: 5
    )

    Benchmark("GPXReader stream + statistics (\(bytes / 1_000_000) MB)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try streamWithStatistics(url))
        }
    }
}
