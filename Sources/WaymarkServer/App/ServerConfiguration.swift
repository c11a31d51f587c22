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
    /// Reads GPX bytes (with a name for error messages) into tracks; nil disables GPX upload.
    public typealias GPXReader = @Sendable (_ data: Data, _ name: String) throws -> [Track]

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
    /// GPX reader for `POST /api/devices/{id}/gpx` (WaymarkGeo's `GPXDocument` by default); nil disables the route.
    public var gpxReader: GPXReader? = { data, name in try GPXDocument(data: data, name: name).tracks }
    /// How long an `Idempotency-Key` is remembered (seconds; nil: forever). After that a replay of the
    /// batch is no longer answered `replayed`, but its points are still absorbed as duplicates.
    public var idempotencyRetentionSeconds: TimeInterval? = 30 * 86_400
    /// The server's clock, used for receive times and the future-timestamp check.
    public var clock: @Sendable () -> Date = { Date() }

    /// Makes a configuration with defaults for everything but the admin token.
    public init(adminTokenDigest: String) {
        self.adminTokenDigest = adminTokenDigest
    }
}
