import Foundation

/// How the server's admin token is established.
///
/// Precedence: the `WAYMARK_ADMIN_TOKEN` environment variable (never stored) if set;
/// otherwise the digest stored in the database; otherwise a new random token is generated,
/// its digest stored, and the token returned once so the operator can note it.
public enum AdminToken {
    /// The environment variable that, when set, is the admin token.
    public static let environmentVariable = "WAYMARK_ADMIN_TOKEN"
    static let settingKey = "admin_token_sha256"

    /// The admin token digest to use, and the new token when one was just generated.
    ///
    /// Safe when several processes start at once: only one generated token wins; the others
    /// get `newToken == nil`.
    public static func establish(in store: any Store, environmentToken: String?) async throws
        -> (digest: String, newToken: String?) {
        if let token = environmentToken, !token.isEmpty {
            return (TokenHasher.digest(token), nil)
        }
        if let digest = try await store.setting(settingKey) { return (digest, nil) }
        let token = TokenHasher.makeToken(prefix: "wma")
        let digest = TokenHasher.digest(token)
        let stored = try await store.setSettingIfAbsent(settingKey, value: digest)
        return (stored, stored == digest ? token : nil)
    }
}
