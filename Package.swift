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

// The two halves. An app adds the package with its default traits turned off and gets the device
// half only, which needs two packages: GRDB.swift (WaymarkSync's on-device store) and swift-log
// (WaymarkSync's logging, and the field log's system-log copy off Apple platforms). Every other dependency below serves the server half, and every use of
// one is conditional on the `Server` trait, so SwiftPM neither resolves nor clones it for such an
// app (Examples/WaymarkExample depends on this package that way, and CI checks its pins):
//
//     .package(url: "https://github.com/…/waymark", from: "…", traits: [])
//
// `Server` is on by default so that `swift run waymark demo` and `swift test` do everything from the
// repository root. Traits rather than a nested package for the server: a nested package could not
// be run or tested from the root, which the README's two commands need.
let package = Package(
    name: "Waymark",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        // The device half: what an app links.
        .library(name: "WaymarkGeo", targets: ["WaymarkGeo"]),
        .library(name: "WaymarkEngine", targets: ["WaymarkEngine"]),
        .library(name: "WaymarkSimulator", targets: ["WaymarkSimulator"]),
        .library(name: "WaymarkSimulatedPhone", targets: ["WaymarkSimulatedPhone"]),
        .library(name: "WaymarkSync", targets: ["WaymarkSync"]),
        .library(name: "WaymarkTransport", targets: ["WaymarkTransport"]),
        .library(name: "WaymarkApple", targets: ["WaymarkApple"]),
        // The server half: built only with the `Server` trait (on by default).
        .library(name: "WaymarkServer", targets: ["WaymarkServer"]),
        .library(name: "WaymarkServerTesting", targets: ["WaymarkServerTesting"]),
        .executable(name: "waymark", targets: ["waymark"]),
    ],
    traits: [
        .trait(name: "Server", description: "The tracking server, its test harness and the waymark command-line tool."),
        .default(enabledTraits: ["Server"]),
    ],
    dependencies: [
        // The device half's two.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The server half's (each use below is conditional on the `Server` trait).
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
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
        // `swift package generate-documentation` (CI builds every library's DocC catalog with it). No
        // target uses it, so an app that turns the default traits off never resolves it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // Value types, geodesy, GPX/GeoJSON, statistics, filters. Foundation only.
        .target(
            name: "WaymarkGeo",
            swiftSettings: swiftSettings
        ),
        // The device seam and the pure engine components, and the field log (its system-log copy is
        // os.Logger on Apple platforms, swift-log elsewhere: only there does it link swift-log).
        .target(
            name: "WaymarkEngine",
            dependencies: ["WaymarkGeo", .loggingOffApple],
            swiftSettings: swiftSettings
        ),
        // A deterministic simulator of iOS location behaviour (PLATFORM.md).
        .target(
            name: "WaymarkSimulator",
            dependencies: ["WaymarkGeo", "WaymarkEngine", "WaymarkTransport"],
            swiftSettings: swiftSettings
        ),
        // A phone in the simulator running the app's durable store and upload queue on the
        // simulation's time (SimulatedPhone): the simulator and WaymarkSync together.
        .target(
            name: "WaymarkSimulatedPhone",
            dependencies: ["WaymarkGeo", "WaymarkEngine", "WaymarkTransport", "WaymarkSync", "WaymarkSimulator"],
            swiftSettings: swiftSettings
        ),
        // The upload transport seam: `UploadTransport` and its values, the URLSession transport and
        // the outcome store of background transfers, the native batch format. Foundation and
        // WaymarkGeo only (WaymarkSync re-exports this module). Its privacy manifest declares the
        // file-timestamp reads of UploadOutcomeStore (required-reason API, C617.1).
        .target(
            name: "WaymarkTransport",
            dependencies: ["WaymarkGeo"],
            resources: [.copy("PrivacyInfo.xcprivacy")],
            swiftSettings: swiftSettings
        ),
        // On-device durable store (GRDB), the recorder that fills it and the upload queue and driver
        // that empty it. No networking package: uploads go through WaymarkTransport's seam.
        .target(
            name: "WaymarkSync",
            dependencies: ["WaymarkGeo", "WaymarkEngine", "WaymarkTransport", .grdb, .logging],
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
                // The native batch format's vocabulary and reference decoder (NativeBatchFormat), shared with the phone.
                "WaymarkTransport",
                .logging,
                .hummingbird,
                .grdb,
                // The ingest insert binds through the SQLite C API (SQLiteStore+Positions.swift).
                .grdbSQLite,
                .postgresNIO,
                .server("Crypto", "swift-crypto"),
                .asyncHTTPClient,
                .server("CoreMetrics", "swift-metrics"),
                .server("Prometheus", "swift-prometheus"),
                .server("HummingbirdCore", "hummingbird"),
                .httpTypes,
                .nioCore,
                .nioConcurrencyHelpers,
                .nioHTTP1,
                .server("NIOHTTPTypes", "swift-nio-extras"),
                .server("NIOSSL", "swift-nio-ssl"),
                .server("ServiceLifecycle", "swift-service-lifecycle"),
            ],
            // The dashboard's map library (Leaflet, BSD-2-Clause; see NOTICE), compiled into the binary so
            // `waymark serve` serves it itself, with no file beside the executable and no CDN.
            resources: [
                .embedInCode("Dashboard/Leaflet/leaflet.js"),
                .embedInCode("Dashboard/Leaflet/leaflet.css"),
                .embedInCode("Dashboard/Leaflet/LICENSE"),
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
                "WaymarkGeo", "WaymarkEngine", "WaymarkSimulator", "WaymarkSimulatedPhone", "WaymarkSync",
                "WaymarkServer",
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
                .server("NIOEmbedded", "swift-nio"),
                .nioHTTP1,
                // The connection guard's request and response parts (Hardening/ConnectionGuardTimingTests.swift).
                .server("NIOHTTPTypes", "swift-nio-extras"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WaymarkSyncTests",
            dependencies: [
                "WaymarkGeo", "WaymarkEngine", "WaymarkTransport", "WaymarkSync", "WaymarkSimulator",
                "WaymarkSimulatedPhone",
                // HTTPUploadTransport (AsyncHTTPClient) lives with the server-side tools.
                "WaymarkCLI",
                // The no-point-lost acceptance against Waymark's own router and stores.
                "WaymarkServer", "WaymarkServerTesting", .hummingbirdTesting,
                .asyncHTTPClient,
                .hummingbird,
                .grdb,
                .httpTypes,
                .logging,
                .nioCore,
                .server("NIOFoundationEssentialsCompat", "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WaymarkCLITests",
            dependencies: [
                "WaymarkGeo", "WaymarkEngine", "WaymarkSimulator", "WaymarkServer", "WaymarkCLI",
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

/// Products several targets use, named once. Every server-side product is conditional on the
/// `Server` trait, so an app that turns the default traits off resolves none of their packages.
extension Target.Dependency {
    static func server(_ name: String, _ package: String) -> Target.Dependency {
        .product(name: name, package: package, condition: .when(traits: ["Server"]))
    }

    static let nioCore = server("NIOCore", "swift-nio")
    static let logging = Target.Dependency.product(name: "Logging", package: "swift-log")
    /// swift-log where `os.Logger` does not exist (WaymarkEngine's field log uses `os.Logger` on Apple platforms).
    static let loggingOffApple = Target.Dependency.product(name: "Logging", package: "swift-log",
                                                           condition: .when(platforms: [.linux, .windows, .android, .wasi, .openbsd]))
    static let nioHTTP1 = server("NIOHTTP1", "swift-nio")
    static let hummingbird = server("Hummingbird", "hummingbird")
    static let httpTypes = server("HTTPTypes", "swift-http-types")
    static let asyncHTTPClient = server("AsyncHTTPClient", "async-http-client")
    static let grdb = Target.Dependency.product(name: "GRDB", package: "GRDB.swift")
    static let grdbSQLite = Target.Dependency.product(name: "GRDBSQLite", package: "GRDB.swift")
    static let postgresNIO = server("PostgresNIO", "postgres-nio")
    static let nioConcurrencyHelpers = server("NIOConcurrencyHelpers", "swift-nio")
    static let hummingbirdTesting = server("HummingbirdTesting", "hummingbird")
    static let argumentParser = server("ArgumentParser", "swift-argument-parser")
}
