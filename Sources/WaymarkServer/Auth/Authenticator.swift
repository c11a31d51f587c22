import Foundation
import Hummingbird

/// Resolves a request's credentials to a ``Principal``.
///
/// Accepted forms: `Authorization: Bearer TOKEN`, `Authorization: Basic …` whose password is
/// the token (OwnTracks), and a `token` query parameter (Overland's URL setting). The admin
/// token is checked in constant time; a device token is found by its SHA-256 digest, which
/// reveals nothing about other tokens. Revoked devices are refused. `Sendable`.
///
/// Uploads find their device in a bounded ``DeviceTokenCache`` first; the store's ingest transaction
/// re-checks that the device is active, so a revocation refuses the next upload (see ``forget(deviceID:)``).
/// Every other route reads the device table on each request.
struct Authenticator: Sendable {
    let store: any Store
    /// SHA-256 digest (hex) of the admin token.
    let adminTokenDigest: String
    /// Devices of recently seen upload tokens.
    let uploadCache: DeviceTokenCache
    /// Counts each request a device token authenticates against the device's rate limit.
    let rateLimiter: RateLimiter
    /// Hears each request refused by the device's rate limit (for metrics).
    let onRateLimited: @Sendable () -> Void

    init(store: any Store, adminTokenDigest: String, uploadCacheCapacity: Int = 10_000,
         rateLimiter: RateLimiter = RateLimiter(perAddress: nil, perDevice: nil), onRateLimited: @escaping @Sendable () -> Void = {}) {
        self.store = store
        self.adminTokenDigest = adminTokenDigest
        self.uploadCache = DeviceTokenCache(capacity: uploadCacheCapacity)
        self.rateLimiter = rateLimiter
        self.onRateLimited = onRateLimited
    }

    /// The principal for `token`, or nil when it matches nothing active.
    func principal(forToken token: String) async throws -> Principal? {
        try await principal(forToken: token, cached: false)
    }

    /// The principal for `token`; with `cached`, a device may come from ``uploadCache`` (uploads only:
    /// their store transaction re-checks the device). A device's request is counted against its rate limit
    /// (429 past it); the admin's are limited per address only.
    private func principal(forToken token: String, cached: Bool) async throws -> Principal? {
        guard !token.isEmpty else { return nil }
        let digest = TokenHasher.digest(token)
        if TokenHasher.constantTimeEquals(Array(digest.utf8), Array(adminTokenDigest.utf8)) { return .admin }
        if cached, let device = uploadCache.device(digest: digest) { return try admitted(device) }
        guard let device = try await store.device(tokenHash: digest), device.isActive else { return nil }
        if cached { uploadCache.remember(device, digest: digest) }
        return try admitted(device)
    }

    private func admitted(_ device: DeviceRecord) throws -> Principal {
        do {
            try rateLimiter.admit(device: device.id)
        } catch {
            onRateLimited()
            throw error
        }
        return .device(device)
    }

    /// Throws 401 (and forgets the device's cached tokens) when `device` is no longer active in the store.
    func confirmActive(_ device: DeviceRecord) async throws {
        guard let current = try await store.device(id: device.id), current.isActive else {
            forget(deviceID: device.id)
            throw ServerError(.unauthorized, "the device token is unknown or revoked")
        }
    }

    /// Drops the cached tokens of a device that was revoked or refused by the store.
    func forget(deviceID: String) { uploadCache.forget(deviceID: deviceID) }

    /// The token a request carries in its headers or query, if any.
    static func token(in request: Request) -> String? { credential(in: request)?.token }

    /// The token a request carries, and whether it came from the URL's query rather than a header.
    static func credential(in request: Request) -> (token: String, inQuery: Bool)? {
        if let header = request.headers[.authorization] {
            let parts = header.split(separator: " ", maxSplits: 1)
            if parts.count == 2 {
                let scheme = parts[0].lowercased(), value = Self.trimmingOptionalWhitespace(parts[1])
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

    /// `text` without leading and trailing HTTP optional whitespace (space and tab, RFC 9110 §5.6.3).
    /// Foundation's `trimmingCharacters(in: .whitespaces)` was 3.4% of a single-point request's CPU samples.
    static func trimmingOptionalWhitespace(_ text: Substring) -> String {
        let isOWS = { (c: Character) in c == " " || c == "\t" }
        guard let first = text.firstIndex(where: { !isOWS($0) }), let last = text.lastIndex(where: { !isOWS($0) }) else { return "" }
        return String(text[first...last])
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

    /// The device `token` belongs to, or 401 (none, unknown, revoked) / 403 (the admin token). For
    /// uploads only: the device may come from ``uploadCache``, so the caller's write must re-check it.
    func requireDevice(token: String?) async throws -> DeviceRecord {
        guard let token else {
            throw ServerError(.unauthorized, "missing device credentials; send 'Authorization: Bearer DEVICE_TOKEN'")
        }
        switch try await principal(forToken: token, cached: true) {
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
