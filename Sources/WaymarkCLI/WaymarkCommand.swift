import ArgumentParser

/// The `waymark` command-line tool.
public struct WaymarkCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "waymark",
        abstract: "Location features that behave: GPX tools, an iOS location simulator, and a tracking server.",
        discussion: """
        Examples:
          waymark gpx stats ride.gpx
          waymark gpx convert ride.gpx --to geojson -o ride.geojson
        """,
        version: "0.1.0",
        subcommands: [
            GPXCommand.self, GeoCommand.self, SimulateCommand.self, ServeCommand.self, DeviceCommand.self, FenceCommand.self,
            DemoCommand.self, SendCommand.self, BenchCommand.self,
        ]
    )

    public init() {}
}
