import Foundation
import NIOConcurrencyHelpers

/// Short-lived, single-use tickets that open a live stream without putting a long-lived token in a URL.
///
/// A browser's `EventSource` cannot send headers, so the stream URL must carry the credential. A ticket
/// from `POST /api/stream/ticket` (authenticated by header) stands in for the token: it works once, for
/// ``lifetime`` seconds, so one left in a proxy log or browser history is useless. At most
/// ``capacity`` tickets are outstanding; the oldest are forgotten first. Thread-safe; `Sendable`.
final class StreamTickets: Sendable {
    /// Seconds a ticket stays valid.
    let lifetime: TimeInterval
    /// Outstanding tickets kept at most.
    let capacity: Int
    private let clock: @Sendable () -> Date
    private let tickets = NIOLockedValueBox<(table: [String: (principal: Principal, expires: Date, serial: UInt64)], serial: UInt64)>(([:], 0))

    init(lifetime: TimeInterval, capacity: Int = 10_000, clock: @escaping @Sendable () -> Date) {
        self.lifetime = lifetime
        self.capacity = capacity
        self.clock = clock
    }

    /// A new ticket for `principal`.
    func issue(for principal: Principal) -> String {
        let ticket = TokenHasher.makeToken(prefix: "wst")
        let now = clock()
        tickets.withLockedValue { state in
            if state.table.count >= capacity {
                state.table = state.table.filter { $0.value.expires > now }
                while state.table.count >= capacity, let oldest = state.table.min(by: { $0.value.serial < $1.value.serial }) {
                    state.table.removeValue(forKey: oldest.key)
                }
            }
            state.serial += 1
            state.table[ticket] = (principal, now.addingTimeInterval(lifetime), state.serial)
        }
        return ticket
    }

    /// The principal of `ticket` if it is known and unexpired; it cannot be redeemed again.
    func redeem(_ ticket: String) -> Principal? {
        let now = clock()
        guard let entry = tickets.withLockedValue({ $0.table.removeValue(forKey: ticket) }), entry.expires > now else { return nil }
        return entry.principal
    }
}
