import Foundation
import Hummingbird

/// Resolves a request's credentials to a ``Principal``.
///
/// Accepted forms: `Authorization: Bearer TOKEN`, `Authorization: Basic …` whose password is
/// the token (OwnTracks), and a `token` query parameter (Overland's URL setting). The admin
/// token is checked in constant time; a device token is found by its SHA-256 digest, which
/// reveals nothing about other tokens. Revoked devices are refused. `Sendable`.
struct Authenticator: Sendable {
    let store: any Store
    /// SHA-256 digest (hex) of the admin token.
    let adminTokenDigest: String

    /// The principal for `token`, or nil when it matches nothing active.
    func principal(forToken token: String) async throws -> Principal? {
        guard !token.isEmpty else { return nil }
        if TokenHasher.matches(token, digest: adminTokenDigest) { return .admin }
        let digest = TokenHasher.digest(token)
        guard let device = try await store.device(tokenHash: digest), device.isActive else { return nil }
        return .device(device)
    }

    /// The token a request carries in its headers or query, if any.
    static func token(in request: Request) -> String? { credential(in: request)?.token }

    /// The token a request carries, and whether it came from the URL's query rather than a header.
    static func credential(in request: Request) -> (token: String, inQuery: Bool)? {
        if let header = request.headers[.authorization] {
            let parts = header.split(separator: " ", maxSplits: 1)
            if parts.count == 2 {
                let scheme = parts[0].lowercased(), value = String(parts[1]).trimmingCharacters(in: .whitespaces)
                if scheme == "bearer" { return (value, false) }
                if scheme == "basic", let data = Data(base64Encoded: value),
                   let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":") {
                    return (String(text[text.index(after: colon)...]), false)
                }
            }
        }
        if let token = request.uri.queryParameters["token"] { return (String(token), true) }
        return nil
    }

    /// The principal of a request, or a 401 error.
    ///
    /// The admin token is refused in a URL (`?token=`): URLs end up in proxy logs and browser history.
    /// Devices may use `?token=` (Overland's URL setting; EventSource clients).
    func require(_ request: Request) async throws -> Principal {
        guard let credential = Self.credential(in: request) else {
            throw ServerError(.unauthorized, "missing credentials; send 'Authorization: Bearer TOKEN'")
        }
        guard let principal = try await principal(forToken: credential.token) else {
            throw ServerError(.unauthorized, "the token is unknown or revoked")
        }
        if principal == .admin, credential.inQuery {
            throw ServerError(.unauthorized, "the admin token is not accepted in a URL, where proxies log it; send it in "
                              + "'Authorization: Bearer …' (for a live stream, get a ticket from POST /api/stream/ticket)")
        }
        return principal
    }

    /// The authenticated device of an upload, or 401/403.
    func requireDevice(_ request: Request) async throws -> DeviceRecord {
        try await requireDevice(token: Self.token(in: request))
    }

    /// The device `token` belongs to, or 401 (none, unknown, revoked) / 403 (the admin token).
    func requireDevice(token: String?) async throws -> DeviceRecord {
        guard let token else {
            throw ServerError(.unauthorized, "missing device credentials; send 'Authorization: Bearer DEVICE_TOKEN'")
        }
        switch try await principal(forToken: token) {
        case .device(let device): return device
        case .admin: throw ServerError(.forbidden, "the admin token cannot upload points; use a device token")
        case nil: throw ServerError(.unauthorized, "the device token is unknown or revoked")
        }
    }

    /// Requires the admin token.
    func requireAdmin(_ request: Request) async throws {
        guard try await require(request) == .admin else {
            throw ServerError(.forbidden, "this needs the admin token")
        }
    }
}
