import Foundation

/// Registers and revokes devices: the logic behind `waymark device …` and `POST /api/devices`.
public enum DeviceRegistry {
    /// Registers a device called `name`; returns it with its token, which is shown only now.
    ///
    /// ```swift
    /// let (device, token) = try await DeviceRegistry.register(name: "Ana's phone", in: store)
    /// ```
    /// - throws: ``ServerError`` ``ServerError/Code/badRequest`` for an empty name or one over 200 UTF-8 bytes.
    public static func register(name: String, in store: any DeviceStore, at date: Date = Date()) async throws
        -> (device: DeviceRecord, token: String) {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        // Bytes, not characters: one grapheme cluster can hold megabytes.
        guard ClientText.fits(trimmed, maxBytes: 200) else {
            throw ServerError(.badRequest, "a device name must have 1 to 200 bytes of UTF-8, got \(trimmed.utf8.count)")
        }
        let token = TokenHasher.makeToken(prefix: "wmd")
        let device = DeviceRecord(id: TokenHasher.makeIdentifier(prefix: "d"), name: trimmed,
                                  createdAt: Date(millisecondsSince1970: date.millisecondsSince1970))
        try await store.insertDevice(device, tokenHash: TokenHasher.digest(token))
        return (device, token)
    }

    /// Revokes the device `id` (its token stops working; its points stay).
    /// - throws: ``ServerError`` ``ServerError/Code/notFound`` when there is no such device.
    public static func revoke(id: String, in store: any DeviceStore, at date: Date = Date()) async throws {
        guard try await store.revokeDevice(id: id, at: date) else {
            throw ServerError(.notFound, "no device with id '\(id)'")
        }
    }
}
