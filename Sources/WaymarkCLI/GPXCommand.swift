import ArgumentParser

/// `waymark gpx …`: read, check, summarise, simplify and convert GPX files.
struct GPXCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gpx",
        abstract: "Read, check, summarise, simplify and convert GPX files.",
        subcommands: [GPXValidateCommand.self]
    )
}
