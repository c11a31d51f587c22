import Foundation

/// Where the app uploads: a `waymark serve` base URL and this phone's device token.
///
/// The URL is kept in the app's stored state; the token only in a ``TokenStore`` (the Keychain on
/// the phone), never in a file that backups copy.
public struct ServerSettings: Hashable, Sendable {
    /// The server's base URL, e.g. `http://192.168.1.20:8080`.
    public var baseURL: URL
    /// The device token `waymark device add` printed (`wmd_…`).
    public var deviceToken: String

    /// Settings from their parts.
    public init(baseURL: URL, deviceToken: String) {
        self.baseURL = baseURL
        self.deviceToken = deviceToken
    }

    /// Settings from what the user typed: an http(s) URL with a host and a non-empty token; nil otherwise.
    public init?(url text: String, token: String) {
        let trimmedToken = token.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let url = URL(string: text.trimmingCharacters(in: .whitespacesAndNewlines)),
              let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.host != nil, !trimmedToken.isEmpty else { return nil }
        self.init(baseURL: url, deviceToken: trimmedToken)
    }
}

/// Where the app keeps device tokens, per server.
///
/// On the phone it is the Keychain (WaymarkExampleUI's `KeychainTokenStore`, readable after the
/// first unlock so background uploads can send); tests use ``MemoryTokenStore``.
@MainActor
public protocol TokenStore: AnyObject {
    /// The token saved for `server`, if any.
    func token(for server: URL) -> String?
    /// Saves `token` for `server`, replacing an earlier one; nil removes it.
    func setToken(_ token: String?, for server: URL)
}

/// Tokens in memory, for tests and previews.
@MainActor
public final class MemoryTokenStore: TokenStore {
    public private(set) var tokens: [URL: String]

    /// A store holding `tokens`.
    public init(_ tokens: [URL: String] = [:]) { self.tokens = tokens }

    public func token(for server: URL) -> String? { tokens[server] }

    public func setToken(_ token: String?, for server: URL) { tokens[server] = token }
}
