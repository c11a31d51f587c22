import NIOConcurrencyHelpers

/// Counts open live streams, per principal and in all, against their caps.
///
/// A stream holds a connection for as long as it lasts, so without a cap one device token could take every
/// connection the server has. ``acquire(_:)`` hands out a ``Lease`` or refuses; a lease is given back once,
/// whichever comes first of the stream's end and its connection's close. Thread-safe; `Sendable`.
final class StreamQuota: Sendable {
    /// Streams one device may have open.
    let perDevice: Int
    /// Streams the admin may have open.
    let perAdmin: Int
    /// Streams open at once, all principals together.
    let total: Int
    private let open = NIOLockedValueBox<(byKey: [String: Int], total: Int)>(([:], 0))

    init(perDevice: Int, perAdmin: Int, total: Int) {
        self.perDevice = perDevice
        self.perAdmin = perAdmin
        self.total = total
    }

    /// A place for one more stream of `principal`.
    /// - throws: ``ServerError/Code/tooManyRequests`` naming the cap that is full.
    func acquire(_ principal: Principal) throws -> Lease {
        let (key, limit, who) = switch principal {
        case .admin: ("admin", perAdmin, "the admin")
        case .device(let device): (device.id, perDevice, "this device")
        }
        let refusal = open.withLockedValue { state -> String? in
            if state.total >= total { return "the server has \(total) live streams open, its limit; retry shortly" }
            let mine = state.byKey[key, default: 0]
            if mine >= limit {
                return "\(who) has \(mine) live streams open, the limit of \(limit); close one first"
            }
            state.byKey[key] = mine + 1
            state.total += 1
            return nil
        }
        if let refusal { throw ServerError(.tooManyRequests, refusal) }
        return Lease(quota: self, key: key)
    }

    /// Streams open now (all principals).
    var current: Int { open.withLockedValue { $0.total } }

    fileprivate func release(_ key: String) {
        open.withLockedValue { state in
            state.total -= 1
            let left = state.byKey[key, default: 1] - 1
            state.byKey[key] = left > 0 ? left : nil
        }
    }

    /// One stream's place; ``release()`` gives it back, once however often it is called.
    final class Lease: Sendable {
        private let quota: StreamQuota
        private let key: String
        private let released = NIOLockedValueBox(false)

        fileprivate init(quota: StreamQuota, key: String) {
            self.quota = quota
            self.key = key
        }

        func release() {
            let first = released.withLockedValue { done -> Bool in
                defer { done = true }
                return !done
            }
            if first { quota.release(key) }
        }
    }
}
