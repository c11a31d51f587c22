// swift-tools-version: 6.1
// Waymark's benchmarks: a separate package so the main package never depends on
// ordo-one/benchmark. Run from this directory:
//   swift package benchmark                      (GPX_BENCH_FILE=/path/big.gpx to pick the input)
//   swift run -c release xmlparser-baseline FILE (Foundation XMLParser figure, used by Scripts/bench_gpx.sh)
import PackageDescription

let package = Package(
    name: "WaymarkBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Waymark", path: ".."),
        .package(url: "https://github.com/ordo-one/package-benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "GPXBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "WaymarkGeo", package: "Waymark"),
            ],
            path: "Benchmarks/GPXBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        // Foundation's XMLParser (FoundationXML on Linux) reading the same file: the baseline.
        .executableTarget(
            name: "xmlparser-baseline",
            path: "Sources/XMLParserBaseline"
        ),
    ]
)
