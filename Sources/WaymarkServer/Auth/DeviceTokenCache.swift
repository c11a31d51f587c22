import NIOConcurrencyHelpers

/// Remembers which device a token digest belongs to, so an upload does not read the device table
/// before its write.
///
/// Bounded: at most ``capacity`` digests; past that, an arbitrary entry makes room. Only active
/// devices are remembered, and only for uploads: ``PositionStore/ingest(_:)`` checks inside its own
/// transaction that the device is still active, so a revocation (by the API or by `waymark device
/// revoke` in another process) refuses the very next upload, and the route then drops the entry.
/// `Sendable`.
final class DeviceTokenCache: Sendable {
    /// Most digests remembered.
    let capacity: Int
    private let entries = NIOLockedValueBox([String: DeviceRecord]())

    /// A cache of at most `capacity` digests (at least 1).
    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// The device remembered for `digest`, if any.
    func device(digest: String) -> DeviceRecord? { entries.withLockedValue { $0[digest] } }

    /// Remembers that `digest` is `device`'s token.
    func remember(_ device: DeviceRecord, digest: String) {
        entries.withLockedValue { entries in
            if entries.count >= capacity, entries[digest] == nil, let victim = entries.keys.first {
                entries.removeValue(forKey: victim)
            }
            entries[digest] = device
        }
    }

    /// Forgets every digest of the device `id`.
    func forget(deviceID id: String) {
        entries.withLockedValue { entries in
            for (digest, device) in entries where device.id == id { entries.removeValue(forKey: digest) }
        }
    }

    /// Digests remembered now.
    var count: Int { entries.withLockedValue { $0.count } }
}
