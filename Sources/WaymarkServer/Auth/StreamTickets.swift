import Foundation
import NIOConcurrencyHelpers

/// Short-lived, single-use tickets that open a live stream without putting a long-lived token in a URL.
///
/// A browser's `EventSource` cannot send headers, so the stream URL must carry the credential. A ticket
/// from `POST /api/stream/ticket` (authenticated by header) stands in for the token: it works once, for
/// ``lifetime`` seconds, so one left in a proxy log or browser history is useless. Each principal has at
/// most ``perPrincipal`` outstanding (a new one forgets that principal's oldest), so one device cannot
/// push out the admin's; at most ``capacity`` are outstanding in all, the oldest forgotten first.
/// Thread-safe; `Sendable`.
final class StreamTickets: Sendable {
    /// Seconds a ticket stays valid.
    let lifetime: TimeInterval
    /// Outstanding tickets kept at most.
    let capacity: Int
    /// Outstanding tickets kept per principal.
    let perPrincipal: Int
    private let clock: @Sendable () -> Date
    private struct State {
        var table: [String: (principal: Principal, expires: Date, serial: UInt64)] = [:]
        /// Each principal's outstanding tickets, oldest first.
        var byPrincipal: [Principal: [String]] = [:]
        var serial: UInt64 = 0

        mutating func remove(_ ticket: String) -> (principal: Principal, expires: Date, serial: UInt64)? {
            guard let entry = table.removeValue(forKey: ticket) else { return nil }
            byPrincipal[entry.principal]?.removeAll { $0 == ticket }
            if byPrincipal[entry.principal]?.isEmpty == true { byPrincipal[entry.principal] = nil }
            return entry
        }
    }
    private let tickets = NIOLockedValueBox(State())

    init(lifetime: TimeInterval, capacity: Int = 10_000, perPrincipal: Int = 8, clock: @escaping @Sendable () -> Date) {
        self.lifetime = lifetime
        self.capacity = capacity
        self.perPrincipal = perPrincipal
        self.clock = clock
    }

    /// A new ticket for `principal`.
    func issue(for principal: Principal) -> String {
        let ticket = TokenHasher.makeToken(prefix: "wst")
        let now = clock()
        tickets.withLockedValue { state in
            while let mine = state.byPrincipal[principal], mine.count >= perPrincipal { _ = state.remove(mine[0]) }
            if state.table.count >= capacity {
                for (key, entry) in state.table where entry.expires <= now { _ = state.remove(key) }
                while state.table.count >= capacity, let oldest = state.table.min(by: { $0.value.serial < $1.value.serial }) {
                    _ = state.remove(oldest.key)
                }
            }
            state.serial += 1
            state.table[ticket] = (principal, now.addingTimeInterval(lifetime), state.serial)
            state.byPrincipal[principal, default: []].append(ticket)
        }
        return ticket
    }

    /// The principal of `ticket` if it is known and unexpired; it cannot be redeemed again.
    func redeem(_ ticket: String) -> Principal? {
        let now = clock()
        guard let entry = tickets.withLockedValue({ $0.remove(ticket) }), entry.expires > now else { return nil }
        return entry.principal
    }
}
