import Foundation

/// A one-line progress bar on standard error, shown only when stderr is a terminal and the
/// work is big enough to be worth it; silent when output is piped.
struct ProgressBar {
    /// Inputs smaller than this never show a bar.
    static let minimumBytes = 50 * 1024 * 1024

    private let label: String
    private let total: Int
    private let enabled: Bool
    private var lastDrawn = -1
    private let start = Date()

    /// A bar for `total` bytes of work; `force` shows it whatever the size (still only on a terminal).
    init(label: String, totalBytes total: Int, force: Bool = false) {
        self.label = label
        self.total = max(total, 1)
        enabled = isatty(STDERR_FILENO) == 1 && (force || total >= ProgressBar.minimumBytes)
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
        let rate = elapsed > 0 ? Double(done) / elapsed / 1_048_576 : 0
        let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
        let line = "\r\(label) \(bar) \(String(format: "%3d%%  %.0f MB/s", percent, rate))"
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Clears the bar's line.
    func finish() {
        guard enabled, lastDrawn >= 0 else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }
}
