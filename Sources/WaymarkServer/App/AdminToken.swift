import Foundation

/// How the server's admin token is established.
///
/// Precedence: the `WAYMARK_ADMIN_TOKEN` environment variable (never stored) if set;
/// otherwise the digest stored in the database; otherwise a new random token is generated,
/// its digest stored, and the token returned once so the operator can note it.
///
/// A token from the environment must be at least ``minimumLength`` bytes long: a short one
/// could be guessed. Generated tokens are `wma_` and 43 base64url characters (47 bytes, 256 bits).
public enum AdminToken {
    /// The environment variable that, when set, is the admin token.
    public static let environmentVariable = "WAYMARK_ADMIN_TOKEN"
    /// The fewest UTF-8 bytes an admin token from ``environmentVariable`` may have.
    public static let minimumLength = 24
    static let settingKey = "admin_token_sha256"

    /// The admin token digest to use, and the new token when one was just generated.
    ///
    /// Safe when several processes start at once: only one generated token wins; the others
    /// get `newToken == nil`. An empty `environmentToken` counts as unset.
    ///
    /// - throws: ``ServerError`` with code ``ServerError/Code/configuration`` when `environmentToken`
    ///   is shorter than ``minimumLength`` bytes (the message names the variable, the minimum and
    ///   how to generate a token); errors of `store`.
    public static func establish(in store: any Store, environmentToken: String?) async throws
        -> (digest: String, newToken: String?) {
        if let token = environmentToken, !token.isEmpty {
            try check(environmentToken: token)
            return (TokenHasher.digest(token), nil)
        }
        if let digest = try await store.setting(settingKey) { return (digest, nil) }
        let token = TokenHasher.makeToken(prefix: "wma")
        let digest = TokenHasher.digest(token)
        let stored = try await store.setSettingIfAbsent(settingKey, value: digest)
        return (stored, stored == digest ? token : nil)
    }

    /// Throws unless `token` (the value of ``environmentVariable``) is at least ``minimumLength`` bytes.
    public static func check(environmentToken token: String) throws {
        let length = token.utf8.count
        guard length >= minimumLength else {
            throw ServerError(.configuration, "\(environmentVariable) is \(length) byte\(length == 1 ? "" : "s") long; "
                              + "an admin token must be at least \(minimumLength) bytes. Generate one with "
                              + "`openssl rand -hex 32`, or unset \(environmentVariable) to have the server generate one")
        }
    }
}
