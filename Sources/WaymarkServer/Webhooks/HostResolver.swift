import Dispatch
import NIOConcurrencyHelpers
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns a webhook's host into the addresses the destination check looks at, with the system's
/// `getaddrinfo`, so odd literals (`0x7f000001`, `2130706433`, `0`, `127.1`) mean what they mean to
/// the connection. Stateless; safe from any task.
enum HostResolver {
    /// How a lookup ended.
    enum Outcome: Sendable, Equatable {
        case addresses([IPAddress])
        case failed
        case timedOut
    }

    /// The address a numeric host stands for (including the forms `inet_aton` reads), without any DNS
    /// query; nil for a host name.
    static func numericAddress(_ host: String) -> IPAddress? {
        addresses(of: host, numericOnly: true)?.first
    }

    /// Looks `host` up on a dispatch thread (never on an event loop); gives up after `timeout`,
    /// leaving the blocked lookup to finish on its own.
    static func resolve(_ host: String, timeout: Duration) async -> Outcome {
        let once = OneShot<Outcome>()
        let timer = Task {
            try await Task.sleep(for: timeout)
            once.finish(.timedOut)
        }
        defer { timer.cancel() }
        DispatchQueue.global().async {
            once.finish(addresses(of: host, numericOnly: false).map { $0.isEmpty ? .failed : .addresses($0) } ?? .failed)
        }
        return await once.value()
    }

    /// Every distinct TCP address of `host`, in `getaddrinfo` order; nil when the lookup fails. Blocks.
    static func addresses(of host: String, numericOnly: Bool) -> [IPAddress]? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_STREAM
        #else
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        if numericOnly { hints.ai_flags = AI_NUMERICHOST }
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(first) }
        var found: [IPAddress] = []
        for entry in sequence(first: first, next: { $0.pointee.ai_next }) {
            guard let socketAddress = entry.pointee.ai_addr else { continue }
            let address: IPAddress
            switch Int32(entry.pointee.ai_family) {
            case AF_INET:
                address = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                    var raw = pointer.pointee.sin_addr
                    return IPAddress(bytes: withUnsafeBytes(of: &raw) { Array($0) })
                }
            case AF_INET6:
                address = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                    var raw = pointer.pointee.sin6_addr
                    return IPAddress(bytes: withUnsafeBytes(of: &raw) { Array($0) })
                }
            default:
                continue
            }
            if !found.contains(address) { found.append(address) }
        }
        return found
    }
}

/// A value set once, by whichever of several racers comes first, and awaited once.
private final class OneShot<Value: Sendable>: Sendable {
    private enum State {
        case empty
        case waiting(CheckedContinuation<Value, Never>)
        case finished(Value)
        case taken
    }

    private let state = NIOLockedValueBox(State.empty)

    /// Sets the value unless one was set already.
    func finish(_ value: Value) {
        let waiter: CheckedContinuation<Value, Never>? = state.withLockedValue { state in
            switch state {
            case .empty:
                state = .finished(value)
                return nil
            case .waiting(let continuation):
                state = .taken
                return continuation
            case .finished, .taken:
                return nil
            }
        }
        waiter?.resume(returning: value)
    }

    /// The value, once set. Call once.
    func value() async -> Value {
        await withCheckedContinuation { continuation in
            let ready: Value? = state.withLockedValue { state in
                if case .finished(let value) = state {
                    state = .taken
                    return value
                }
                state = .waiting(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
