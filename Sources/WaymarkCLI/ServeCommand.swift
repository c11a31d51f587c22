import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Logging
import WaymarkServer
import Hummingbird

/// `waymark serve`: run the tracking server.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the tracking server.",
        discussion: """
        The admin token (for the device, query and export API) is read from the environment
        variable WAYMARK_ADMIN_TOKEN when set. Otherwise the server generates one on first
        start, stores only its SHA-256 digest in the database, and prints the token once.

        Examples:
          waymark serve
          waymark serve --host 0.0.0.0 --port 8080 --database /var/lib/waymark/waymark.sqlite
          waymark serve --database postgres://waymark:secret@db:5432/waymark
        """
    )

    @Option(help: "TCP port to listen on.")
    var port: Int = 8080

    @Option(help: "Interface to listen on (0.0.0.0 for all).")
    var host: String = "127.0.0.1"

    @Option(help: "SQLite file path, or a postgres:// URL.")
    var database: String = DatabaseOption.defaultLocation

    @Option(name: .customLong("max-body-bytes"), help: "Largest accepted request body, in bytes (larger gets 413).")
    var maxBodyBytes: Int = 10 << 20

    @Option(name: .customLong("ride-gap"), help: "Seconds without points that split two rides.")
    var rideGap: Double = 600

    @Option(name: .customLong("idempotency-days"),
            help: "Days an Idempotency-Key is remembered (0: forever); later replays are absorbed as duplicates.")
    var idempotencyDays: Double = 30

    @Option(name: .customLong("max-points-per-request"),
            help: "Most entries (points, gap markers, messages, GPX track points) in one request (more gets 413).")
    var maxPointsPerRequest: Int = 200_000

    @Option(name: .customLong("max-connections"),
            help: "Open connections accepted at once (more get 503); default: 1000, or less under a lower file-descriptor limit.")
    var maxConnections: Int?

    @Option(name: .customLong("max-connections-per-address"),
            help: ArgumentHelp("Open connections accepted at once from one IPv4 address or IPv6 /64 (more get 503); default: "
                               + "a quarter of --max-connections, at least 16. Behind a reverse proxy, set it to --max-connections."))
    var maxConnectionsPerAddress: Int?

    @Option(name: .customLong("rate-limit-per-address"),
            help: ArgumentHelp("Requests a second one IPv4 address or IPv6 /64 may send, as RATE or RATE/BURST, or 'off'; past "
                               + "it 429 with Retry-After. The default is a thousand phones sending a point a second from "
                               + "behind one NAT. Behind a reverse proxy, raise it or turn it off.", valueName: "rate[/burst]|off"))
    var rateLimitPerAddress: String = "1000/20000"

    @Option(name: .customLong("rate-limit-per-device"),
            help: ArgumentHelp("Requests a second one device token may send, as RATE or RATE/BURST, or 'off'; past it 429 "
                               + "with Retry-After and nothing stored. Real clients send at most a point a second. The admin "
                               + "token is limited per address only.", valueName: "rate[/burst]|off"))
    var rateLimitPerDevice: String = "100/3000"

    @Option(name: .customLong("header-timeout"),
            help: "Seconds a connection may take to send a request head, also the keep-alive idle time (then 408, closed).")
    var headerTimeout: Double = 20

    @Option(name: .customLong("body-timeout"), help: "Seconds a request may take to send its body (then the connection is closed).")
    var bodyTimeout: Double = 60

    @Option(name: .customLong("retention-days"),
            help: "Days positions, gap markers and device events are kept (0: forever); older ones are removed every hour.")
    var retentionDays: Double = 0

    @Option(help: ArgumentHelp("When an upload is acknowledged: 'full' (after the commit reached the disk: an acknowledged "
                               + "point survives power loss) or 'relaxed' (after the database has it: an OS crash or power "
                               + "loss can lose the last acknowledged points; faster on slow disks).", valueName: "full|relaxed"))
    var durability: StoreDurability = .full

    @Option(help: ArgumentHelp("The dashboard's basemap: a tile URL template with {z}, {x} and {y}, e.g. "
                               + "https://tile.openstreetmap.org/{z}/{x}/{y}.png (the browser fetches the tiles; mind the tile "
                               + "server's usage policy and credit it with --tiles-attribution). Without it the map is a plain background.",
                               valueName: "url-template"))
    var tiles: String?

    @Option(name: .customLong("tiles-attribution"),
            help: ArgumentHelp("The credit the tile server asks for, shown as plain text in the map's corner, e.g. "
                               + "'© OpenStreetMap contributors'. Needs --tiles.", valueName: "text"))
    var tilesAttribution: String?

    @Option(name: .customLong("webhook-allow"),
            help: ArgumentHelp("Internal range (CIDR), address or host name webhooks may reach anyway; repeatable or "
                               + "comma-separated. Loopback, private, link-local and metadata addresses are refused otherwise.",
                               valueName: "range-or-host"))
    var webhookAllow: [String] = []

    /// The `--webhook-allow` entries, read.
    func allowedWebhookDestinations() throws -> [AllowedDestination] {
        try webhookAllow.flatMap { try AllowedDestination.list($0) }
    }

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be in 0…65535") }
        guard maxBodyBytes > 0 else { throw ValidationError("--max-body-bytes must be positive") }
        guard rideGap > 0 else { throw ValidationError("--ride-gap must be positive") }
        guard idempotencyDays >= 0, idempotencyDays.isFinite else { throw ValidationError("--idempotency-days must be 0 or more") }
        guard retentionDays >= 0, retentionDays.isFinite else { throw ValidationError("--retention-days must be 0 or more") }
        guard maxPointsPerRequest > 0 else { throw ValidationError("--max-points-per-request must be positive") }
        guard (maxConnections ?? 1) > 0 else { throw ValidationError("--max-connections must be positive") }
        guard (maxConnectionsPerAddress ?? 1) > 0 else { throw ValidationError("--max-connections-per-address must be positive") }
        for (name, value) in [("--rate-limit-per-address", rateLimitPerAddress), ("--rate-limit-per-device", rateLimitPerDevice)] {
            guard value == "off" || RateLimit(parsing: value) != nil else {
                throw ValidationError("\(name) must be 'off', RATE or RATE/BURST (requests a second, a positive number; "
                                      + "the burst a whole number of at least 1), not '\(value)'")
            }
        }
        let longest = ServerConfiguration.maximumTimeoutSeconds
        guard headerTimeout > 0, headerTimeout <= longest else {
            throw ValidationError("--header-timeout must be a positive number of seconds, at most \(Int(longest)) (a year)")
        }
        guard bodyTimeout > 0, bodyTimeout <= longest else {
            throw ValidationError("--body-timeout must be a positive number of seconds, at most \(Int(longest)) (a year)")
        }
        // A weak admin token is refused before any database is opened.
        if let token = ProcessInfo.processInfo.environment[AdminToken.environmentVariable], !token.isEmpty {
            do { try AdminToken.check(environmentToken: token) } catch let error as ServerError { throw ValidationError(error.message) }
        }
        do { _ = try allowedWebhookDestinations() } catch let error as ServerError { throw ValidationError("--webhook-allow: \(error.message)") }
        if let tiles {
            do { _ = try DashboardPage.checkedTiles(tiles) } catch let error as ServerError { throw ValidationError("--tiles: \(error.message)") }
        }
        if tilesAttribution != nil, tiles == nil { throw ValidationError("--tiles-attribution credits the tiles of --tiles; give --tiles too") }
    }

    func run() async throws {
        let logger = Logger(label: "waymark.serve")
        let environmentToken = ProcessInfo.processInfo.environment[AdminToken.environmentVariable]
        let command = self
        try await StoreFactory.withStore(at: database, durability: durability, logger: quietLogger) { store in
            if let warning = (store as? SQLiteStore)?.permissionWarning { emit("warning: \(warning)") }
            let admin = try await AdminToken.establish(in: store, environmentToken: environmentToken)
            if let token = admin.newToken {
                emit("Generated the admin token (shown only now; set \(AdminToken.environmentVariable) to override):\n  \(token)")
            }
            var configuration = ServerConfiguration(adminTokenDigest: admin.digest)
            configuration.host = command.host
            configuration.tileURLTemplate = command.tiles
            configuration.tileAttribution = command.tilesAttribution
            configuration.port = command.port
            configuration.maxBodyBytes = command.maxBodyBytes
            configuration.rideGapSeconds = command.rideGap
            configuration.idempotencyRetentionSeconds = command.idempotencyDays > 0 ? command.idempotencyDays * 86_400 : nil
            configuration.historyRetentionSeconds = command.retentionDays > 0 ? command.retentionDays * 86_400 : nil
            configuration.maxPointsPerRequest = command.maxPointsPerRequest
            configuration.maxConnections = command.maxConnections ?? Self.defaultMaxConnections()
            configuration.maxConnectionsPerAddress = command.maxConnectionsPerAddress
            configuration.rateLimitPerAddress = RateLimit(parsing: command.rateLimitPerAddress)
            configuration.rateLimitPerDevice = RateLimit(parsing: command.rateLimitPerDevice)
            configuration.headerTimeoutSeconds = command.headerTimeout
            configuration.bodyTimeoutSeconds = command.bodyTimeout
            var webhooks = WebhookPolicy()
            webhooks.allowedDestinations = try command.allowedWebhookDestinations()
            let app = TrackingServer.makeApplication(configuration: configuration, store: store, webhooks: webhooks,
                                                     logger: logger) { port in
                emit("waymark serving on http://\(command.host):\(port) (database: \(DatabaseOption.redacted(command.database)))")
            }
            try await app.runService()
        }
    }
}

extension ServeCommand {
    /// 1000 connections, or fewer when the process may not open that many files: the soft
    /// `RLIMIT_NOFILE` less 64 descriptors for the database, logs and webhooks.
    static func defaultMaxConnections() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return 1_000 }
        return max(16, min(1_000, Int(clamping: limit.rlim_cur) - 64))
    }
}

/// Writes a line to standard output at once (unbuffered, so a supervisor's log sees it immediately).
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// A logger for store plumbing that reports only warnings and errors.
let quietLogger: Logger = {
    var logger = Logger(label: "waymark.store")
    logger.logLevel = .warning
    return logger
}()

/// The `--database` option shared by the server commands.
enum DatabaseOption {
    /// `$WAYMARK_DATABASE`, or `waymark.sqlite` in the current directory.
    static var defaultLocation: String {
        ProcessInfo.processInfo.environment["WAYMARK_DATABASE"] ?? "waymark.sqlite"
    }

    /// The location with any password in a URL replaced by `***`.
    static func redacted(_ location: String) -> String {
        guard StoreFactory.isPostgres(location), var components = URLComponents(string: location),
              components.password != nil else { return location }
        components.password = "***"
        return components.string ?? location
    }
}

extension StoreDurability: ExpressibleByArgument {}
