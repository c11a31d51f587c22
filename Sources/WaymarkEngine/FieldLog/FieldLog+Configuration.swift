import Foundation
import WaymarkGeo

extension FieldLog {
    /// Where the field log keeps its files, how much it keeps, and what it records.
    ///
    /// The defaults keep what a support engineer needs (``FieldLogLevel/info`` and above) in files
    /// of 256 KiB, at most 2 MiB in all: several days of a daily rider's entries.
    ///
    /// ```swift
    /// let log = FieldLog(.init(besideStoreAt: storePath))             // <store folder>/WaymarkLog/
    /// let debugging = FieldLog(.init(directory: folder, level: .debug))
    /// ```
    ///
    /// A `Sendable` value type; sizes in bytes.
    public struct Configuration: Hashable, Sendable {
        /// The folder of the log files (created when missing); nil keeps the newest entries in
        /// memory only (``memoryEntries``), so an export still has something to show.
        public var directory: URL?
        /// The least level recorded (default ``FieldLogLevel/info``; ``FieldLogLevel/debug`` adds every
        /// fix delivered and every command to the OS). ``FieldLog/setLevel(_:)`` changes it later.
        public var level: FieldLogLevel
        /// A file is closed and a new one begun before it would grow past this (default 256 KiB).
        public var maxFileBytes: Int
        /// The files together stay under this: when a new file begins, the oldest files are deleted
        /// until the rest fits (default 2 MiB).
        public var maxTotalBytes: Int
        /// Whether each entry also goes to the system log: `os.Logger` on Apple platforms (visible in
        /// Console.app and in a sysdiagnose), swift-log elsewhere (whatever handler the process
        /// bootstrapped). On by default where `os.Logger` exists; off elsewhere, where swift-log's
        /// default handler would print every entry to standard error (a test suite's output).
        public var systemLog: Bool
        /// The system log's subsystem (`os.Logger`) or label prefix (swift-log): `<subsystem>.<category>`
        /// for swift-log; default `"waymark"`.
        public var subsystem: String
        /// How many of the newest entries are kept in memory when no file takes them (no
        /// ``directory``, or a write failed), for ``FieldLog/export(since:to:)`` (default 2,000).
        public var memoryEntries: Int

        /// Makes a configuration.
        ///
        /// - precondition: ``maxFileBytes`` at least 1,024; ``maxTotalBytes`` at least ``maxFileBytes``;
        ///   ``memoryEntries`` zero or more.
        public init(directory: URL? = nil, level: FieldLogLevel = .info, maxFileBytes: Int = 256 * 1024,
                    maxTotalBytes: Int = 2 * 1024 * 1024, systemLog: Bool = FieldLog.systemLogByDefault,
                    subsystem: String = "waymark", memoryEntries: Int = 2_000) {
            self.directory = directory
            self.level = level
            self.maxFileBytes = maxFileBytes
            self.maxTotalBytes = maxTotalBytes
            self.systemLog = systemLog
            self.subsystem = subsystem
            self.memoryEntries = memoryEntries
            ContractCheck.require(contractViolations, in: "FieldLog.Configuration")
        }

        /// A configuration whose folder is `WaymarkLog` beside the device store at `storePath` (the
        /// `RideStore` file of WaymarkSync, or any file the app keeps its data in): the log lives and
        /// is backed up (or not) with the store.
        public init(besideStoreAt storePath: String, level: FieldLogLevel = .info, maxFileBytes: Int = 256 * 1024,
                    maxTotalBytes: Int = 2 * 1024 * 1024, systemLog: Bool = FieldLog.systemLogByDefault) {
            let folder = URL(fileURLWithPath: storePath).deletingLastPathComponent()
            self.init(directory: folder.appendingPathComponent("WaymarkLog", isDirectory: true), level: level,
                      maxFileBytes: maxFileBytes, maxTotalBytes: maxTotalBytes, systemLog: systemLog)
        }

        /// What breaks ``FieldLog``'s contract; empty for a usable configuration.
        var contractViolations: [String] {
            var check = ContractCheck()
            check.require(maxFileBytes >= 1_024, "maxFileBytes must be at least 1024, not \(maxFileBytes)")
            check.require(maxTotalBytes >= maxFileBytes,
                          "maxTotalBytes (\(maxTotalBytes)) must be at least maxFileBytes (\(maxFileBytes))")
            check.nonNegative("memoryEntries", memoryEntries)
            return check.violations
        }
    }

    /// Whether entries go to the system log unless the configuration says otherwise: true where
    /// `os.Logger` exists (Apple platforms), false elsewhere.
    public static var systemLogByDefault: Bool {
        #if canImport(os)
        true
        #else
        false
        #endif
    }
}
