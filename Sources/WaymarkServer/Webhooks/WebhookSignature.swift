import Crypto
import Foundation

/// The `X-Waymark-Signature` header: `sha256=` and the hex HMAC-SHA256 of the exact body with the secret.
///
/// A receiver recomputes the HMAC over the raw body it got and compares in constant time.
/// Pure functions, thread-safe.
///
/// ```swift
/// let header = WebhookSignature.header(body: Data(payload.utf8), secret: "s3cret")  // "sha256=9f…"
/// ```
public enum WebhookSignature {
    /// The header's name.
    public static let headerName = "X-Waymark-Signature"

    /// The hex HMAC-SHA256 of `body` keyed with the UTF-8 bytes of `secret`.
    public static func hex(body: Data, secret: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Data(secret.utf8)))
        return TokenHasher.hex(code)
    }

    /// The full header value, `sha256=<hex>`.
    public static func header(body: Data, secret: String) -> String { "sha256=" + hex(body: body, secret: secret) }

    /// Whether `header` is the signature of `body` with `secret` (constant-time comparison).
    public static func verify(header: String, body: Data, secret: String) -> Bool {
        TokenHasher.constantTimeEquals(Array(header.utf8), Array(self.header(body: body, secret: secret).utf8))
    }
}
