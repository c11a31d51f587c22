#if canImport(os)
import os
#else
import Synchronization
#endif

/// A value behind a lock, usable at the package's platform floors (iOS 17, macOS 14).
///
/// Package-internal: the simulator's clock and the tests' fakes keep their state in one.
/// `Synchronization.Mutex` needs iOS 18 / macOS 15 on Apple platforms, so there this wraps
/// `OSAllocatedUnfairLock` (iOS 16 / macOS 13); elsewhere it wraps `Mutex`, which Linux has
/// without an availability floor. Both are Sendable for a Sendable state, so this is too.
package final class LockedState<State: Sendable>: Sendable {
    #if canImport(os)
    private let lock: OSAllocatedUnfairLock<State>
    #else
    private let lock: Mutex<State>
    #endif

    /// A lock guarding `initial`.
    package init(_ initial: State) {
        #if canImport(os)
        lock = OSAllocatedUnfairLock(initialState: initial)
        #else
        lock = Mutex(initial)
        #endif
    }

    /// Runs `body` with the state, holding the lock; `body` must not block or re-enter.
    package func withLock<Result: Sendable>(_ body: (inout State) throws -> Result) rethrows -> Result {
        #if canImport(os)
        try lock.withLockUnchecked(body)
        #else
        try lock.withLock { (state: inout sending State) throws -> Result in try body(&state) }
        #endif
    }
}
