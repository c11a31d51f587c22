import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A diagnostic for latency investigations: with `WAYMARK_STAGE_TRACE=/path` in the environment, the server appends
/// one line per `POST /api/ingest` (auth, body, decode, commit and reply milliseconds, and the `Idempotency-Key`) and
/// per group commit (each request's wait in the queue, the commit's milliseconds) to that file. Off (and free) when
/// the variable is unset. Docs/PERFORMANCE.md shows how #35's soak used it.
enum StageTrace {
    static let path = ProcessInfo.processInfo.environment["WAYMARK_STAGE_TRACE"]
    static var enabled: Bool { path != nil }
    private static let fd: Int32 = path.map { open($0, O_WRONLY | O_CREAT | O_APPEND, 0o644) } ?? -1

    static func log(_ line: String) {
        guard enabled, fd >= 0 else { return }
        var text = line + "\n"
        text.withUTF8 { bytes in _ = write(fd, bytes.baseAddress, bytes.count) }
    }

    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
    static func ms(_ from: UInt64, _ to: UInt64) -> String { String(format: "%.1f", Double(to &- from) / 1e6) }
}
