import Foundation

/// A one-line progress bar on standard error, shown only when stderr is a terminal and the
/// work is big enough to be worth it; silent when output is piped.
struct ProgressBar {
    /// Inputs smaller than this never show a bar.
    static let minimumBytes = 50 * 1024 * 1024

    /// What the bar counts, for its rate.
    enum Unit: Sendable {
        /// Bytes, shown as MB/s.
        case bytes
        /// Track points, shown as points/s.
        case points
    }

    private let label: String
    private let total: Int
    private let unit: Unit
    private let enabled: Bool
    private var lastDrawn = -1
    private let start = Date()

    /// A bar for `total` bytes of work; `force` shows it whatever the size (still only on a terminal).
    init(label: String, totalBytes total: Int, force: Bool = false) {
        self.label = label
        self.total = max(total, 1)
        unit = .bytes
        enabled = isatty(STDERR_FILENO) == 1 && (force || total >= ProgressBar.minimumBytes)
    }

    /// A bar for `total` points, shown when `shown` and standard error is a terminal.
    init(label: String, totalPoints total: Int, shown: Bool) {
        self.label = label
        self.total = max(total, 1)
        unit = .points
        enabled = shown && isatty(STDERR_FILENO) == 1
    }

    /// Redraws when the completed share moved by at least one percent.
    mutating func update(completedBytes done: Int) {
        guard enabled else { return }
        let percent = min(100, done * 100 / total)
        guard percent != lastDrawn else { return }
        lastDrawn = percent
        let width = 30
        let filled = width * percent / 100
        let elapsed = Date().timeIntervalSince(start)
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
        let speed = unit == .bytes ? String(format: "%.0f MB/s", rate / 1_048_576) : String(format: "%.0f points/s", rate)
        let line = "\r\(label) \(bar) \(String(format: "%3d%%", percent))  \(speed)"
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Clears the bar's line.
    func finish() {
        guard enabled, lastDrawn >= 0 else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }
}

/// A ``ProgressBar`` shared by concurrent tasks (the devices of `waymark send`).
actor SharedProgressBar {
    private var bar: ProgressBar
    private var done = 0

    init(_ bar: ProgressBar) { self.bar = bar }

    /// Counts `count` more units done and redraws if the share moved.
    func add(_ count: Int) {
        done += count
        bar.update(completedBytes: done)
    }

    /// Clears the bar's line.
    func finish() {
        bar.finish()
    }
}
