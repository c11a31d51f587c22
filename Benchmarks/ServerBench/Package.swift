// swift-tools-version: 6.1
// `waymark-bench`: the tracking server's benchmark and fuzz tools, kept out of the shipped `waymark`
// (so its CLI target needs no PostgresNIO of its own). Scripts/bench_ingest.sh and Scripts/fuzz_ingest.sh
// build and run it from the repository root; by hand:
//   swift build -c release --package-path Benchmarks/ServerBench
//   Benchmarks/ServerBench/.build/release/waymark-bench --help
import PackageDescription

let package = Package(
    name: "ServerBench",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Waymark", path: "../.."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .executableTarget(
            name: "waymark-bench",
            dependencies: [
                .product(name: "WaymarkGeo", package: "Waymark"),
                .product(name: "WaymarkServer", package: "Waymark"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // `waymark-bench fences` compares with PostGIS over its own connection.
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [
                .swiftLanguageMode(.v6),
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("MemberImportVisibility"),
            ]
        ),
    ]
)
