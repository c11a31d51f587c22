import Foundation
import WaymarkGeo

/// A persistent, levelled log of what Waymark decided on the device, for the developer and the
/// support engineer who must answer "it stopped recording yesterday".
///
/// The ``Engine`` writes every launch with its cause, every authorization change, every ride and
/// geofence decision, the lifecycle and the Background App Refresh / Low Power Mode readings;
/// WaymarkSync's upload queue adds the outcome of every upload. The files are plain text, one
/// ``FieldLogEntry`` a line, in a folder the app chooses (beside its store:
/// ``Configuration/init(besideStoreAt:level:maxFileBytes:maxTotalBytes:systemLog:)``), rotated by size
/// with a total cap, the oldest file dropped first. ``export(since:to:)`` writes one file to attach
/// to a support email.
///
/// ```swift
/// let log = FieldLog(.init(besideStoreAt: storePath))
/// let engine = Engine(device: device, log: log)
/// let driver = try UploadDriver(executor: executor, log: log)
/// // In the app's "Contact support" screen:
/// let file = try await engine.log.export(since: .now.addingTimeInterval(-3 * 86_400))
/// ```
///
/// Recording never blocks and never throws: `record(_:)` hands the entry to a task of the log's
/// own, which writes the files in order. When a write fails (a full disk, a folder that cannot be
/// created) the entry goes to the system log with the failure, stays in memory for the export,
/// and the log tries the disk again a minute (of entry time) later; the engine's work goes on.
/// Each entry also goes to the system log (``Configuration/systemLog``): `os.Logger` on Apple
/// platforms, swift-log elsewhere.
///
/// Thread-safety: a `Sendable` reference; call it from any task. The writing task ends when the
/// last reference to the log goes away.
public final class FieldLog: Sendable {
    /// The configuration the log was made with (``level`` may have changed since).
    public let configuration: Configuration
    private let shared: LockedState<FieldLogLevel>
    private let inbox: AsyncStream<Message>.Continuation

    enum Message: Sendable {
        case entry(FieldLogEntry)
        case read(since: Date?, CheckedContinuation<FieldLogReading, Never>)
        case export(since: Date?, folder: URL?, CheckedContinuation<Result<URL, EngineError>, Never>)
        case status(CheckedContinuation<FieldLogStatus, Never>)
    }

    /// Makes a log and starts its writing task; the folder is created with the first entry.
    public init(_ configuration: Configuration = Configuration()) {
        ContractCheck.require(configuration.contractViolations, in: "FieldLog.Configuration")
        self.configuration = configuration
        shared = LockedState(configuration.level)
        let (messages, inbox) = AsyncStream.makeStream(of: Message.self, bufferingPolicy: .unbounded)
        self.inbox = inbox
        Task.detached(priority: .utility) {
            var files = FieldLogFiles(configuration: configuration)
            for await message in messages {
                switch message {
                case .entry(let entry): files.write(entry)
                case .read(let since, let reply): reply.resume(returning: files.read(since: since))
                case .export(let since, let folder, let reply): reply.resume(returning: files.export(since: since, to: folder))
                case .status(let reply): reply.resume(returning: files.status)
                }
            }
            files.close()
        }
    }

    deinit { inbox.finish() }

    /// The least level recorded now.
    public var level: FieldLogLevel { shared.withLock { $0 } }

    /// Changes the least level recorded from now on (``FieldLogLevel/debug`` while chasing a problem).
    public func setLevel(_ level: FieldLogLevel) { shared.withLock { $0 = level } }

    /// Whether an entry of `level` is recorded now; check it before building an expensive message.
    public func isEnabled(_ level: FieldLogLevel) -> Bool { level >= self.level }

    /// Records `entry` when its level is enabled; returns at once (the file is written by the
    /// log's own task, in the order of the calls).
    public func record(_ entry: FieldLogEntry) {
        guard isEnabled(entry.level) else { return }
        inbox.yield(.entry(entry))
    }

    /// Records a message of `level` from `category` at `time` (now by default) when the level is
    /// enabled; the message is built only then.
    public func record(_ level: FieldLogLevel, _ category: FieldLogCategory, _ message: @autoclosure () -> String,
                       at time: Date = Date()) {
        guard isEnabled(level) else { return }
        inbox.yield(.entry(FieldLogEntry(time: time, level: level, category: category, message: message())))
    }

    /// Records each entry whose level is enabled, in order.
    public func record(_ entries: [FieldLogEntry]) {
        for entry in entries { record(entry) }
    }

    /// The entries kept, oldest first (by time, then in the order recorded), from `since` on (all
    /// when nil): those in the files, and those kept in memory because no file took them. Waits
    /// for every entry recorded before the call.
    public func entries(since: Date? = nil) async -> [FieldLogEntry] {
        await withCheckedContinuation { inbox.yield(.read(since: since, $0)) }.entries
    }

    /// Writes the entries from `since` on (all when nil) into one new file, oldest first across the
    /// rotated files, after a short header (`#` lines) saying what it holds; returns its URL.
    /// Attach it to a support email (`ShareLink`, `MFMailComposeViewController`).
    ///
    /// - parameter since: the first time to include (nil: everything kept).
    /// - parameter folder: where to write the file (created when missing); the temporary folder by
    ///   default. The file is named `waymark-field-log-<time>.log`.
    /// - throws: ``EngineError`` with code ``EngineError/Code/fieldLog`` when the file cannot be
    ///   written (the message names the path and the system's reason).
    public func export(since: Date? = nil, to folder: URL? = nil) async throws(EngineError) -> URL {
        try await withCheckedContinuation { inbox.yield(.export(since: since, folder: folder, $0)) }.get()
    }

    /// The files, their size and the write failures so far (after every entry recorded before the call).
    public var status: FieldLogStatus {
        get async { await withCheckedContinuation { inbox.yield(.status($0)) } }
    }
}

/// The state of a ``FieldLog``'s files.
///
/// A `Sendable` value type; sizes in bytes.
public struct FieldLogStatus: Hashable, Sendable {
    /// The log files, oldest first (empty without a folder, or before the first entry).
    public var files: [URL]
    /// Their total size.
    public var bytes: Int
    /// Writes that failed (each such entry went to the system log and stayed in memory).
    public var writeFailures: Int
    /// The last failure's message, if any.
    public var lastFailure: String?
    /// Entries kept in memory because no file took them.
    public var entriesInMemory: Int
}

/// What ``FieldLogFiles/read(since:)`` found.
struct FieldLogReading: Sendable {
    var entries: [FieldLogEntry]
    var files: Int
    var unreadableLines: Int
}
