// swift-tools-version: 6.1
// The Waymark example app: a SwiftUI iPhone app built on WaymarkEngine and WaymarkApple, with
// its view models in a platform-neutral library that a Linux test drives through the simulator.
// See README.md.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "WaymarkExample",
    // The app is iPhone-only; macOS is listed so the view-model tests also run on a Mac.
    platforms: [.iOS(.v17), .macOS(.v14)],
    products: [
        // What an Xcode app target links (README.md, "Open it in Xcode").
        .library(name: "WaymarkExampleUI", targets: ["WaymarkExampleUI"]),
    ],
    dependencies: [
        // As an app adds Waymark: the default traits (the server half) off, so only the device
        // half's two packages resolve (GRDB.swift, swift-log). CI checks the pins (Scripts/check_app_pins.sh).
        .package(name: "Waymark", path: "../..", traits: []),
    ],
    targets: [
        // View models and state machines: no SwiftUI, no UIKit, no CoreLocation. Runs on Linux.
        .target(
            name: "WaymarkExampleModels",
            dependencies: [
                .product(name: "WaymarkEngine", package: "Waymark"),
                .product(name: "WaymarkGeo", package: "Waymark"),
                .product(name: "WaymarkSync", package: "Waymark"),
                .product(name: "WaymarkTransport", package: "Waymark"),
            ],
            swiftSettings: swiftSettings
        ),
        // The SwiftUI screens and the live wiring (LiveDevice, URLSession). Empty off iOS.
        .target(
            name: "WaymarkExampleUI",
            dependencies: [
                "WaymarkExampleModels",
                .product(name: "WaymarkEngine", package: "Waymark"),
                .product(name: "WaymarkApple", package: "Waymark"),
                .product(name: "WaymarkSync", package: "Waymark"),
            ],
            swiftSettings: swiftSettings
        ),
        // The app's entry point (`@main`); the same file is the one source of an Xcode app target.
        .executableTarget(
            name: "WaymarkExampleApp",
            dependencies: ["WaymarkExampleUI"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WaymarkExampleModelsTests",
            dependencies: [
                "WaymarkExampleModels",
                .product(name: "WaymarkEngine", package: "Waymark"),
                .product(name: "WaymarkGeo", package: "Waymark"),
                .product(name: "WaymarkSimulator", package: "Waymark"),
                .product(name: "WaymarkSimulatedPhone", package: "Waymark"),
                .product(name: "WaymarkSync", package: "Waymark"),
                .product(name: "WaymarkTransport", package: "Waymark"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
