import Foundation

/// A registered device: a phone or tracker allowed to upload points with its own token.
///
/// The token itself is never stored, only its SHA-256 digest (see ``TokenHasher``).
public struct DeviceRecord: Hashable, Sendable, Codable {
    /// Stable identifier used in URLs (`/api/devices/{id}`), e.g. `"d_7f3k2m9q"`.
    public var id: String
    /// Human-readable name given at registration.
    public var name: String
    /// When the device was registered.
    public var createdAt: Date
    /// When the token was revoked; nil while the device may upload.
    public var revokedAt: Date?

    /// Makes a device record.
    public init(id: String, name: String, createdAt: Date, revokedAt: Date? = nil) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }

    /// Whether the device's token is still accepted.
    public var isActive: Bool { revokedAt == nil }
}
