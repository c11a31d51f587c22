import Foundation
import WaymarkGeo

/// Settings of one server process. A `Sendable` value; build it once at startup.
///
/// ```swift
/// var configuration = ServerConfiguration(adminTokenDigest: TokenHasher.digest(adminToken))
/// configuration.port = 8080
/// configuration.maxBodyBytes = 5 << 20
/// ```
public struct ServerConfiguration: Sendable {
    /// Reads GPX bytes (with a name for error messages) into tracks, refusing a file of more than
    /// `maxPoints` points; nil disables GPX upload.
    public typealias GPXReader = @Sendable (_ data: Data, _ name: String, _ maxPoints: Int) throws -> [Track]

    /// Interface to listen on, e.g. `"127.0.0.1"` or `"0.0.0.0"`.
    public var host: String = "127.0.0.1"
    /// TCP port; 0 picks a free one.
    public var port: Int = 8080
    /// Largest accepted request body in bytes; bigger bodies get 413.
    public var maxBodyBytes: Int = 10 << 20
    /// SHA-256 digest (hex) of the admin token.
    public var adminTokenDigest: String
    /// A pause longer than this (seconds) between consecutive points starts a new ride.
    public var rideGapSeconds: TimeInterval = 600
    /// The dashboard's basemap: a tile URL template with `{z}`, `{x}` and `{y}` (and optionally `{s}`),
    /// e.g. `https://tile.openstreetmap.org/{z}/{x}/{y}.png`. The operator's browser fetches the tiles;
    /// the server never does. Nil: the plain map. Check one with ``DashboardPage/checkedTiles(_:)``.
    public var tileURLTemplate: String?
    /// The credit the basemap's provider asks for, shown as plain text in the map's corner beside
    /// ``tileURLTemplate``'s tiles, e.g. `© OpenStreetMap contributors`. Nil: none.
    public var tileAttribution: String?
    /// GPX reader for `POST /api/devices/{id}/gpx` (WaymarkGeo's `GPXDocument` by default); nil disables the route.
    /// The default bounds the work one upload can cost (see `GPXReadOptions`): 256 attributes per element,
    /// 256 levels, `maxPoints` points; it also stops when the client goes away (the task is cancelled).
    public var gpxReader: GPXReader? = { data, name, maxPoints in
        try GPXDocument(data: data, name: name, options: GPXReadOptions(maxPoints: maxPoints)).tracks
    }
    /// How long an `Idempotency-Key` is remembered (seconds; nil: forever). After that a replay of the
    /// batch is no longer answered `replayed`, but its points are still absorbed as duplicates.
    public var idempotencyRetentionSeconds: TimeInterval? = 30 * 86_400
    /// How long positions, gap markers and device events are kept (`waymark serve --retention-days`); nil
    /// keeps them forever. ``RetentionService`` removes older ones every hour, in bounded batches.
    public var historyRetentionSeconds: TimeInterval?
    /// Most entries (points, gap markers, OwnTracks messages, GPX track points) one request may carry;
    /// a request with more gets 413 before any entry is validated.
    public var maxPointsPerRequest: Int = 200_000
    /// Most JSON values (numbers, strings, objects, arrays…) a body read by the general JSON decoder may
    /// hold, counted by a linear scan before the body is parsed; more gets 413. Parsing builds an object per
    /// value (measured on Linux: about 80 bytes for a number, about 800 for a member of an object), so this
    /// bounds one request's memory, to about 160 MB at the default (some 15,000 Overland features). Native
    /// batches on the fast path build no objects and are bounded by ``maxPointsPerRequest`` only.
    public var maxJSONValues: Int = 200_000
    /// Largest body read from a request whose credentials are only in the body (OsmAnd's form `id`,
    /// Traccar Client's `device_id`): such a body is read before anyone is authenticated, so it is kept small.
    /// Credentials in a header or the query are checked before any body byte is read.
    public var maxBodyBytesBeforeAuthentication: Int = 1 << 20
    /// Rejected entries an ingest reply lists in full (every problem of each); further ones are only counted.
    /// A phone's upload queue (500 points a batch by default) therefore always learns every rejected point.
    public var rejectionSampleLimit: Int = 500
    /// Bodies larger than this (bytes) are decoded ``maxConcurrentDecodes`` at a time, on threads of lower CPU
    /// priority, in a task cancelled when the client disconnects; smaller ones are decoded at once. The
    /// default is a Waymark phone's largest batch (`UploadQueue`'s 256 KiB), so normal uploads never wait.
    public var heavyDecodeThresholdBytes: Int = 256 << 10
    /// Large bodies decoded at the same time; the rest wait (see ``maxQueuedDecodes``). The default leaves one
    /// core for every other request.
    public var maxConcurrentDecodes: Int = max(1, ProcessInfo.processInfo.activeProcessorCount - 1)
    /// Large bodies that may wait for a decode slot; past that a request gets 503 with `Retry-After`.
    public var maxQueuedDecodes: Int = 16
    /// Whether large writes take turns (``LargeWriteLane``): at most ``maxConcurrentLargeWrites`` writes of more than
    /// ``largeWriteEntries`` entries are in the store at once, devices taking turns, and the store commits small
    /// writes apart from (and before) large ones, so a small upload never waits for more than one large write.
    /// On by default; the environment variable `WAYMARK_FAIR_WRITES=off` turns it off (to measure without it).
    public var largeWriteLane: Bool = FairWrites.enabled
    /// Entries (points, gap markers, device events) above which a write is large: a Waymark phone's, Overland's or
    /// OwnTracks' batches stay under it.
    public var largeWriteEntries: Int = FairWrites.largeEntries
    /// Large writes in the store at once.
    public var maxConcurrentLargeWrites: Int = 1
    /// Large writes that may wait for their turn; past that a request gets 503 `busy` with `Retry-After`.
    public var maxQueuedLargeWrites: Int = 16
    /// Open connections accepted at once; past that a new connection gets 503 and is closed.
    public var maxConnections: Int = 1_000
    /// Open connections accepted at once from one IPv4 address or IPv6 /64; past that a new one from there gets
    /// 503 and is closed, so one source cannot take every connection. Nil: a quarter of ``maxConnections``
    /// (250 of the default 1,000), but at least 16. Behind a reverse proxy every connection comes from the
    /// proxy: set it to ``maxConnections`` there.
    public var maxConnectionsPerAddress: Int?

    /// ``maxConnectionsPerAddress``, or its default.
    public var effectiveMaxConnectionsPerAddress: Int {
        maxConnectionsPerAddress ?? max(min(maxConnections, 16), maxConnections / 4)
    }
    /// Seconds a connection may take to send a complete request head (from opening, or from the end of the
    /// previous response: this is also the keep-alive idle time). Slower connections are closed (slowloris).
    public var headerTimeoutSeconds: Double = 20
    /// Seconds a request may take to send its whole body once its head has arrived; slower ones are closed.
    public var bodyTimeoutSeconds: Double = 60
    /// Live-stream positions a subscriber may have waiting; a subscriber further behind is disconnected
    /// rather than buffered (it reconnects and reads what it missed from the query API).
    public var liveStreamMaxPendingPositions: Int = 20_000
    /// Most fence events one ingest request may cause (enters, exits, dwells); a request past it is refused
    /// whole with 413, so no request creates unbounded events, webhook deliveries or reply entries.
    public var maxFenceEventsPerRequest: Int = 10_000
    /// Most fence events one point may cause (its own and the crossings of the segment leading to it);
    /// past it the request is refused whole with 413.
    public var maxFenceEventsPerPoint: Int = 200
    /// Live streams (`/api/stream`) one device may have open at once; one more gets 429.
    public var maxStreamsPerDevice: Int = 4
    /// Live streams the admin may have open at once (dashboards); one more gets 429.
    public var maxStreamsPerAdmin: Int = 16
    /// Live streams open at once in all, well below ``maxConnections`` so streams can never take every
    /// connection; one more gets 429.
    public var maxStreams: Int = 200
    /// Seconds between the `: keep-alive` comments of a live stream (a write to a peer that is gone fails,
    /// and the stream ends).
    public var liveStreamKeepAliveSeconds: Double = 15
    /// Seconds a live stream lasts at most; it then ends, and the client reconnects (EventSource does so itself,
    /// the dashboard with a new ticket).
    public var liveStreamMaxSeconds: Double = 3_600
    /// Seconds a stream ticket (`POST /api/stream/ticket`) stays valid; it is good for one connection.
    public var streamTicketSeconds: Double = 60

    /// Requests one IPv4 address or IPv6 /64 may send (every route, with or without credentials), as a token
    /// bucket: past it a request gets 429 with `Retry-After`, before its body or credentials are read. Nil: no
    /// limit. The default, 1,000 a second in bursts of 20,000, is a thousand phones sending a point every second
    /// from behind one carrier-grade NAT. Behind a reverse proxy every request comes from the proxy: raise it or
    /// turn it off there.
    public var rateLimitPerAddress: RateLimit? = RateLimit(perSecond: 1_000, burst: 20_000)
    /// Requests one device token may authenticate, as a token bucket: past it a request gets 429 with `Retry-After`
    /// and nothing of it is stored. Nil: no limit. The default, 100 a second in bursts of 3,000, is 100 times what
    /// OwnTracks, Overland, Traccar Client or GPSLogger send at their fastest setting (a point a second), and a
    /// backlog sent one request after another (each waiting for its answer) stays under it over the internet.
    /// The admin token is limited per address only, so the dashboard's polling and live stream are never refused.
    public var rateLimitPerDevice: RateLimit? = RateLimit(perSecond: 100, burst: 3_000)
    /// Token buckets each rate limit keeps at most. Only clients that recently sent faster than their limit refills
    /// hold one (a refilled bucket is dropped), so the table stays small; past this, the least recently seen half
    /// is dropped, and such a client starts again with a full bucket.
    public var rateLimitTableSize: Int = 100_000
    /// The monotonic clock (seconds) of the rate limits; tests pass their own.
    public var monotonicClock: @Sendable () -> Double = monotonicSeconds

    /// The server's clock, used for receive times and the future-timestamp check.
    public var clock: @Sendable () -> Date = { Date() }

    /// Makes a configuration with defaults for everything but the admin token.
    public init(adminTokenDigest: String) {
        self.adminTokenDigest = adminTokenDigest
    }
}

extension ServerConfiguration {
    /// The longest header or body timeout, seconds: a year (longer ones overflow NIO's nanosecond timer).
    public static let maximumTimeoutSeconds: Double = 365 * 86_400

    /// What breaks the server's contract (see `ContractCheck`); empty for a usable configuration.
    /// `waymark serve` rejects bad values from the command line with a usage error before they get here.
    var contractViolations: [String] {
        var check = ContractCheck()
        for (name, value) in [("maxBodyBytes", maxBodyBytes), ("maxPointsPerRequest", maxPointsPerRequest),
                              ("maxJSONValues", maxJSONValues), ("maxBodyBytesBeforeAuthentication", maxBodyBytesBeforeAuthentication),
                              ("maxConcurrentDecodes", maxConcurrentDecodes), ("maxConnections", maxConnections),
                              ("liveStreamMaxPendingPositions", liveStreamMaxPendingPositions),
                              ("maxFenceEventsPerRequest", maxFenceEventsPerRequest), ("maxFenceEventsPerPoint", maxFenceEventsPerPoint),
                              ("maxStreamsPerDevice", maxStreamsPerDevice), ("maxStreamsPerAdmin", maxStreamsPerAdmin),
                              ("maxStreams", maxStreams), ("largeWriteEntries", largeWriteEntries),
                              ("maxConcurrentLargeWrites", maxConcurrentLargeWrites)] {
            check.require(value >= 1, "\(name) must be at least 1, not \(value)")
        }
        if let maxConnectionsPerAddress { check.require(maxConnectionsPerAddress >= 1, "maxConnectionsPerAddress must be at least 1, not \(maxConnectionsPerAddress)") }
        for (name, limit) in [("rateLimitPerAddress", rateLimitPerAddress), ("rateLimitPerDevice", rateLimitPerDevice)] {
            guard let limit else { continue }
            check.require(limit.perSecond.isFinite && limit.perSecond > 0, "\(name).perSecond must be positive and finite, not \(limit.perSecond)")
            check.require(limit.burst >= 1, "\(name).burst must be at least 1, not \(limit.burst)")
        }
        check.require(rateLimitTableSize >= 2, "rateLimitTableSize must be at least 2, not \(rateLimitTableSize)")
        check.nonNegative("rejectionSampleLimit", rejectionSampleLimit)
        check.nonNegative("heavyDecodeThresholdBytes", heavyDecodeThresholdBytes)
        check.nonNegative("maxQueuedDecodes", maxQueuedDecodes)
        check.nonNegative("maxQueuedLargeWrites", maxQueuedLargeWrites)
        check.positive("rideGapSeconds", rideGapSeconds)
        check.finitePositive("streamTicketSeconds", streamTicketSeconds)
        check.finitePositive("liveStreamKeepAliveSeconds", liveStreamKeepAliveSeconds)
        check.finitePositive("liveStreamMaxSeconds", liveStreamMaxSeconds)
        for (name, value) in [("headerTimeoutSeconds", headerTimeoutSeconds), ("bodyTimeoutSeconds", bodyTimeoutSeconds)] {
            check.require(value >= 0 && value <= Self.maximumTimeoutSeconds,
                          "\(name) must be from 0 to \(Int(Self.maximumTimeoutSeconds)) seconds (a year), not \(value)")
        }
        if let idempotencyRetentionSeconds { check.nonNegative("idempotencyRetentionSeconds", idempotencyRetentionSeconds) }
        if let historyRetentionSeconds { check.nonNegative("historyRetentionSeconds", historyRetentionSeconds) }
        return check.violations
    }
}
