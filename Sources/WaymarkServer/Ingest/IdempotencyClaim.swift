import Crypto
import Foundation
import NIOCore

/// An `Idempotency-Key` with the fingerprint of the request it came with: the route and the SHA-256 of
/// the raw body. A later request with the same key replays only when its fingerprint is the same; a
/// different body (or the same key on another route) is refused with 422 naming the key, never answered
/// as a replay that silently drops its points.
struct IdempotencyClaim: Sendable {
    /// The client's key (1–200 bytes).
    var key: String
    /// `route:` followed by the lowercase hex SHA-256 of the body, e.g. `ingest:9f86d0…`.
    var digest: String

    init(key: String, route: String, body: ByteBuffer) {
        self.key = key
        self.digest = route + ":" + body.withUnsafeReadableBytes { TokenHasher.hex(SHA256.hash(data: $0)) }
    }
}
