import Foundation

/// The device's upload token and the hook that gets a new one after a 401.
///
/// ```swift
/// let credentials = DeviceCredentials(token: keychainToken) { old in try await api.renew(old) }
/// ```
///
/// Thread-safety: an actor; safe from any task.
public actor DeviceCredentials {
    /// The current token sent as `Authorization: Bearer …`.
    public private(set) var token: String
    let refresh: @Sendable (String) async throws -> String

    /// Makes credentials with a token and a refresh hook (given the rejected token, returns a new one).
    public init(token: String, refresh: @escaping @Sendable (String) async throws -> String = { $0 }) {
        self.token = token
        self.refresh = refresh
    }

    /// Calls the refresh hook and keeps the new token; returns false when the hook threw.
    public func refreshToken() async -> Bool {
        do {
            token = try await refresh(token)
            return true
        } catch {
            return false
        }
    }
}
