import Dispatch
import Foundation
import NIOConcurrencyHelpers
#if canImport(Glibc)
import Glibc
#endif

/// A task executor of a few dedicated threads that run at a lower CPU priority (Linux: `nice` 10 per thread).
///
/// Large request bodies are decoded here (see ``DecodeGate``): on a saturated machine the kernel then
/// prefers every other thread — the event loops, the cooperative pool serving small requests, the
/// database — over a hostile multi-megabyte decode, so a well-behaved client's latency does not queue
/// behind it. The work still runs in a Swift task, so `Task.isCancelled` (which the decoders check)
/// works. Threads are niced once at start and never raised again, which needs no privilege.
final class BackgroundExecutor: TaskExecutor, Sendable {
    /// The process's decode threads: one core fewer than the machine has, at least one. Shared by every
    /// server (and test) in the process, so making routers never leaves idle threads behind; each
    /// ``DecodeGate`` still bounds how many of its decodes run at once.
    static let shared = BackgroundExecutor(threads: max(1, ProcessInfo.processInfo.activeProcessorCount - 1))

    private let jobs = NIOLockedValueBox<[UnownedJob]>([])
    private let available = DispatchSemaphore(value: 0)

    /// Starts `threads` threads at `niceness` (0 leaves the priority alone).
    init(threads: Int, niceness: Int32 = 10) {
        for index in 0..<max(1, threads) {
            let thread = Thread { [self] in
                #if os(Linux)
                // On Linux the nice value is per thread, and `who` 0 names the calling thread (setpriority(2), NOTES).
                if niceness != 0 { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness) }
                #endif
                Thread.current.threadDictionary[Self.threadMarker] = true
                run()
            }
            thread.name = "waymark-decode-\(index)"
            thread.start()
        }
    }

    /// Whether the calling thread is one of the background threads.
    static var isCurrentThread: Bool { Thread.current.threadDictionary[threadMarker] as? Bool == true }
    private static let threadMarker = "waymark.background-executor"

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        jobs.withLockedValue { $0.append(unowned) }
        available.signal()
    }

    private func run() -> Never {
        while true {
            available.wait()
            guard let job = jobs.withLockedValue({ $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
