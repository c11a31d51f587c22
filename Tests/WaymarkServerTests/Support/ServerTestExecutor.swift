import Dispatch
import Foundation
import NIOConcurrencyHelpers

/// Threads of their own for the server tests' stores, servers and bodies.
///
/// Swift Testing runs every test on the cooperative pool, which has one thread per core (two on the CI
/// machine). The simulator's tests run minutes of synchronous simulation each, and while two of them run,
/// both threads are theirs: an async server test, whose every database round trip and HTTP exchange must
/// come back to a cooperative thread, then waits behind them. On PostgreSQL (many hops per query) four
/// server tests ran past their 5-minute limits that way in whole `swift test` runs, while each passed alone
/// in seconds; a thread dump taken during the stall showed both cooperative threads in synchronous
/// simulator and GPX tests and no query open on the database.
///
/// ``StoreKind/withStore(_:)`` runs its body with this executor as the task executor preference (SE-0417),
/// so the store's connection pool, the server under test and the test body (child tasks inherit the
/// preference, and default actors follow it) run here, beside the cooperative pool instead of behind it.
final class ServerTestExecutor: TaskExecutor {
    /// The executor every server test with a store uses.
    static let shared = ServerTestExecutor(threads: 3)

    private let queue = NIOLockedValueBox<[UnownedJob]>([])
    private let waiting = DispatchSemaphore(value: 0)

    private init(threads: Int) {
        for index in 0..<threads {
            let thread = Thread { [self] in runJobs() }
            thread.name = "waymark-server-tests-\(index)"
            thread.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.withLockedValue { $0.append(job) }
        waiting.signal()
    }

    private func runJobs() -> Never {
        while true {
            waiting.wait()
            let job = queue.withLockedValue { $0.removeFirst() }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
