// swift-tools-version: 6.1
// Waymark: location features on iOS that behave, testable anywhere, plus the
// server the apps upload to. See README.md and the module table in DESIGN.md.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    // A file uses members only of modules it imports itself (SE-0444).
    .enableUpcomingFeature("MemberImportVisibility"),
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
        .library(name: "WaymarkServerTesting", targets: ["WaymarkServerTesting"]),
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
        // Declared because our targets import their modules directly (not only through the above).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // `swift package generate-documentation` (CI builds every library's DocC catalog with it).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
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
            dependencies: ["WaymarkGeo"],
            swiftSettings: swiftSettings
        ),
        // A deterministic simulator of iOS location behaviour (PLATFORM.md). It uses WaymarkSync for
        // SimulatedPhone, which runs the app's store and upload queue on the simulation's time.
        .target(
            name: "WaymarkSimulator",
            dependencies: ["WaymarkGeo", "WaymarkEngine", "WaymarkSync", "WaymarkTransport"],
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
                "WaymarkGeo",
                "WaymarkEngine",
                "WaymarkTransport",
                .grdb,
                .asyncHTTPClient,
                .logging,
                .nioCore,
                .nioHTTP1,
            ],
            swiftSettings: swiftSettings
        ),
        // The live Device over CoreLocation & co. Compiles to nothing off Apple platforms.
        .target(
            name: "WaymarkApple",
            dependencies: ["WaymarkGeo", "WaymarkEngine", "WaymarkTransport"],
            swiftSettings: swiftSettings
        ),
        // The tracking server.
        .target(
            name: "WaymarkServer",
            dependencies: [
                "WaymarkGeo",
                .logging,
                .hummingbird,
                .grdb,
                // The ingest insert binds through the SQLite C API (SQLiteStore+Positions.swift).
                .grdbSQLite,
                .postgresNIO,
                .product(name: "Crypto", package: "swift-crypto"),
                .asyncHTTPClient,
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .httpTypes,
                .nioCore,
                .nioConcurrencyHelpers,
                .nioHTTP1,
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // The tracking server in process for tests (HummingbirdTesting's client; the model is
        // Hummingbird's own HummingbirdTesting).
        .target(
            name: "WaymarkServerTesting",
            dependencies: [
                "WaymarkServer",
                .hummingbird,
                .hummingbirdTesting,
                .httpTypes,
                .nioCore,
            ],
            swiftSettings: swiftSettings
        ),
        // The command-line tool's commands, as a library so tests can parse them in-process.
        .target(
            name: "WaymarkCLI",
            dependencies: [
                "WaymarkGeo", "WaymarkEngine", "WaymarkSimulator", "WaymarkSync", "WaymarkServer",
                .argumentParser,
                .asyncHTTPClient,
                .logging,
                .nioCore,
                .nioHTTP1,
                .httpTypes,
                .hummingbird,
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
        .testTarget(name: "WaymarkEngineTests", dependencies: ["WaymarkGeo", "WaymarkEngine", "WaymarkSimulator"], swiftSettings: swiftSettings),
        .testTarget(name: "WaymarkSimulatorTests", dependencies: ["WaymarkGeo", "WaymarkEngine", "WaymarkSimulator", "WaymarkTransport"],
                    swiftSettings: swiftSettings),
        .testTarget(
            name: "WaymarkServerTests",
            dependencies: [
                "WaymarkGeo", "WaymarkServer", "WaymarkServerTesting",
                // The phone's URLSession transport against the real server (PhoneTransportServerTests).
                "WaymarkTransport",
                .grdb,
                // The sync-counting VFS of the durability tests (Support/SyncCountingVFS.swift).
                .grdbSQLite,
                // The retention tests read PostgreSQL's partition catalogue.
                .postgresNIO,
                .hummingbird,
                .hummingbirdTesting,
                .asyncHTTPClient,
                .httpTypes,
                .logging,
                .nioCore,
                .nioConcurrencyHelpers,
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .nioHTTP1,
                // The connection guard's request and response parts (Hardening/ConnectionGuardTimingTests.swift).
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WaymarkSyncTests",
            dependencies: [
                "WaymarkGeo", "WaymarkEngine", "WaymarkTransport", "WaymarkSync", "WaymarkSimulator",
                .hummingbird,
                .grdb,
                .httpTypes,
                .logging,
                .nioCore,
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WaymarkCLITests",
            dependencies: [
                "WaymarkGeo", "WaymarkSimulator", "WaymarkServer", "WaymarkCLI",
                .argumentParser,
                .asyncHTTPClient,
                .logging,
                .nioCore,
                .nioHTTP1,
            ],
            exclude: ["Golden"],   // read by path (HelpGoldenTests), not bundled
            swiftSettings: swiftSettings
        ),
    ]
)

/// Products several targets use, named once.
extension Target.Dependency {
    static let nioCore = Target.Dependency.product(name: "NIOCore", package: "swift-nio")
    static let logging = Target.Dependency.product(name: "Logging", package: "swift-log")
    static let nioHTTP1 = Target.Dependency.product(name: "NIOHTTP1", package: "swift-nio")
    static let hummingbird = Target.Dependency.product(name: "Hummingbird", package: "hummingbird")
    static let httpTypes = Target.Dependency.product(name: "HTTPTypes", package: "swift-http-types")
    static let asyncHTTPClient = Target.Dependency.product(name: "AsyncHTTPClient", package: "async-http-client")
    static let grdb = Target.Dependency.product(name: "GRDB", package: "GRDB.swift")
    static let grdbSQLite = Target.Dependency.product(name: "GRDBSQLite", package: "GRDB.swift")
    static let postgresNIO = Target.Dependency.product(name: "PostgresNIO", package: "postgres-nio")
    static let nioConcurrencyHelpers = Target.Dependency.product(name: "NIOConcurrencyHelpers", package: "swift-nio")
    static let hummingbirdTesting = Target.Dependency.product(name: "HummingbirdTesting", package: "hummingbird")
    static let argumentParser = Target.Dependency.product(name: "ArgumentParser", package: "swift-argument-parser")
}
