import ArgumentParser
import WaymarkGeo

/// The `waymark` command-line tool.
public struct WaymarkCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "waymark",
        abstract: "Location features that behave: GPX tools, an iOS location simulator, and a tracking server.",
        discussion: """
        Every command prints its result on standard output (--json where the output is data),
        errors on standard error with a non-zero exit status (1: invalid input, 2: usage), and a
        progress bar only when standard error is a terminal.

        Examples:
          waymark demo
          waymark gpx stats ride.gpx
          waymark gpx convert ride.gpx --to geojson -o ride.geojson
          waymark serve --database waymark.sqlite
        """,
        version: WaymarkVersion.current,
        subcommands: [
            GPXCommand.self, GeoCommand.self, SimulateCommand.self, ServeCommand.self, DeviceCommand.self, FenceCommand.self,
            DemoCommand.self, SendCommand.self, BackupCommand.self, CompactCommand.self,
        ]
    )

    public init() {}
}
