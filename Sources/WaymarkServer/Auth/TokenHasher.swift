import Crypto
import Foundation

/// Makes and checks secret tokens: random, shown once, stored only as SHA-256 digests.
///
/// All functions are pure and thread-safe.
///
/// ```swift
/// let token = TokenHasher.makeToken(prefix: "wmd")        // "wmd_Q2x…", give to the device
/// let digest = TokenHasher.digest(token)                  // store this
/// TokenHasher.matches(token, digest: digest)              // true, in constant time
/// ```
public enum TokenHasher {
    /// A new token: `prefix_` followed by 32 random bytes in base64url (256 bits of entropy).
    public static func makeToken(prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return "\(prefix)_\(base64url(bytes))"
    }

    /// A short random identifier such as `d_k3m9q2x7ab`, for devices and fences.
    public static func makeIdentifier(prefix: String) -> String {
        let alphabet = Array("abcdefghijkmnpqrstuvwxyz23456789")
        var generator = SystemRandomNumberGenerator()
        let suffix = String((0..<10).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
        return "\(prefix)_\(suffix)"
    }

    /// The lowercase hex SHA-256 digest of the token's UTF-8 bytes.
    public static func digest(_ token: String) -> String {
        hex(SHA256.hash(data: Data(token.utf8)))
    }

    /// Lowercase hex of `bytes`. A table lookup: `String(format:)` per byte cost about 12% of a
    /// single-point request's CPU in the profile (Docs/PERFORMANCE.md).
    static func hex<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            text.append(hexDigits[Int(byte >> 4)])
            text.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Whether `token` hashes to `digest`, comparing the digests in constant time.
    public static func matches(_ token: String, digest: String) -> Bool {
        constantTimeEquals(Array(Self.digest(token).utf8), Array(digest.utf8))
    }

    /// Compares two byte strings in time that depends only on their lengths.
    public static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in a.indices { difference |= a[i] ^ b[i] }
        return difference == 0
    }

    static func base64url(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
