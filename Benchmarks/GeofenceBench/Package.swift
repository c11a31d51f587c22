// swift-tools-version: 6.1
// A standalone benchmark of the geofencing index and monitor (release build), kept out of the main
// package's `swift test`. Run Scripts/bench_geofence.sh from the repository root.
import PackageDescription

let package = Package(
    name: "GeofenceBench",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "Waymark", path: "../..")],
    targets: [
        .executableTarget(
            name: "GeofenceBench",
            dependencies: [.product(name: "WaymarkEngine", package: "Waymark"), .product(name: "WaymarkGeo", package: "Waymark")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
