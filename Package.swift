// swift-tools-version: 6.1
// Waymark: location features on iOS that behave, testable anywhere, plus the
// server the apps upload to. See README.md and the module table in DESIGN.md.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "Waymark",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "WaymarkGeo", targets: ["WaymarkGeo"]),
        .library(name: "WaymarkEngine", targets: ["WaymarkEngine"]),
        .library(name: "WaymarkSimulator", targets: ["WaymarkSimulator"]),
        .library(name: "WaymarkSync", targets: ["WaymarkSync"]),
        .library(name: "WaymarkTransport", targets: ["WaymarkTransport"]),
        .library(name: "WaymarkApple", targets: ["WaymarkApple"]),
        .library(name: "WaymarkServer", targets: ["WaymarkServer"]),
        .executable(name: "waymark", targets: ["waymark"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        // Value types, geodesy, GPX/GeoJSON, statistics, filters. Foundation only.
        .target(
            name: "WaymarkGeo",
            swiftSettings: swiftSettings
        ),
        // The device seam and the pure engine components.
        .target(
            name: "WaymarkEngine",
            dependencies: ["WaymarkGeo", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        // A deterministic simulator of iOS location behaviour (PLATFORM.md).
        .target(
            name: "WaymarkSimulator",
            dependencies: ["WaymarkEngine"],
            swiftSettings: swiftSettings
        ),
        // The upload transport seam: `UploadTransport` and its values, the URLSession transport and
        // the outcome store of background transfers, the native batch format. Foundation and
        // WaymarkGeo only, so it compiles for iOS with
        // the 17.4 SDK (GRDB and AsyncHTTPClient do not; WaymarkSync re-exports this module).
        .target(
            name: "WaymarkTransport",
            dependencies: ["WaymarkGeo"],
            swiftSettings: swiftSettings
        ),
        // On-device durable store and upload queue.
        .target(
            name: "WaymarkSync",
            dependencies: [
                "WaymarkEngine",
                "WaymarkTransport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: swiftSettings
        ),
        // The live Device over CoreLocation & co. Compiles to nothing off Apple platforms.
        .target(
            name: "WaymarkApple",
            dependencies: ["WaymarkEngine", "WaymarkTransport"],
            swiftSettings: swiftSettings
        ),
        // The tracking server.
        .target(
            name: "WaymarkServer",
            dependencies: [
                "WaymarkGeo",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "GRDB", package: "GRDB.swift"),
                // The ingest insert binds through the SQLite C API (SQLiteStore+Positions.swift).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: swiftSettings
        ),
        // The command-line tool's commands, as a library so tests can parse them in-process.
        .target(
            name: "WaymarkCLI",
            dependencies: [
                "WaymarkGeo", "WaymarkEngine", "WaymarkSimulator", "WaymarkSync", "WaymarkServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                // `waymark bench fences` compares with PostGIS over its own connection.
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            resources: [.copy("Resources")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "waymark",
            dependencies: ["WaymarkCLI"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WaymarkGeoTests",
            dependencies: ["WaymarkGeo"],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "WaymarkEngineTests", dependencies: ["WaymarkEngine"], swiftSettings: swiftSettings),
        .testTarget(name: "WaymarkSimulatorTests", dependencies: ["WaymarkSimulator"], swiftSettings: swiftSettings),
        .testTarget(
            name: "WaymarkServerTests",
            dependencies: ["WaymarkServer", .product(name: "HummingbirdTesting", package: "hummingbird")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WaymarkSyncTests",
            dependencies: ["WaymarkSync", "WaymarkSimulator", .product(name: "Hummingbird", package: "hummingbird")],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "WaymarkCLITests", dependencies: ["WaymarkCLI"], swiftSettings: swiftSettings),
    ]
)
