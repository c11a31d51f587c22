import Foundation

/// The files of a ``FieldLog``, owned by its writing task: appends, rotation, the cap, reads and
/// exports. Every failure is caught here: it goes to the system log, the entry stays in memory.
struct FieldLogFiles {
    static let prefix = "waymark-"
    static let suffix = ".log"
    /// After a failed write, the disk is tried again for the first entry this much later (entry time), s.
    static let retryAfter: TimeInterval = 60

    let configuration: FieldLog.Configuration
    var systemLog: SystemLogMirror
    var handle: FileHandle?
    var activeIndex = 0
    var activeSize = 0
    /// The entry time of the last failed write, while the disk is not tried.
    var failedAt: Date?
    var failures = 0
    var lastFailure: String?
    /// Entries no file took (no folder, or a failed write), the newest ``FieldLog/Configuration/memoryEntries``.
    var memory: [FieldLogEntry] = []

    init(configuration: FieldLog.Configuration) {
        self.configuration = configuration
        systemLog = SystemLogMirror(subsystem: configuration.subsystem)
    }

    var status: FieldLogStatus {
        let files = listed()
        return FieldLogStatus(files: files.map(\.url), bytes: files.reduce(0) { $0 + $1.size }, writeFailures: failures,
                              lastFailure: lastFailure, entriesInMemory: memory.count)
    }

    mutating func write(_ entry: FieldLogEntry) {
        if configuration.systemLog { systemLog.log(entry) }
        guard configuration.directory != nil else { return remember(entry) }
        if let failedAt, entry.time >= failedAt, entry.time < failedAt.addingTimeInterval(Self.retryAfter) {
            return remember(entry)
        }
        do {
            let data = Data((Self.bounded(entry.line, configuration.maxFileBytes / 2) + "\n").utf8)
            if handle == nil { try open() }
            if activeSize > 0, activeSize + data.count > configuration.maxFileBytes { try rotate() }
            guard let handle else { throw FileFailure("no file is open") }
            try handle.write(contentsOf: data)
            activeSize += data.count
            if failedAt != nil {
                failedAt = nil
                systemLog.log(FieldLogEntry(time: entry.time, level: .notice, category: .log,
                                            message: "the field log is written to \(activePath) again"))
            }
        } catch {
            fail(entry, because: "\(error)")
        }
    }

    mutating func close() {
        try? handle?.close()
        handle = nil
    }

    // MARK: Files

    var directory: URL? { configuration.directory }

    var activePath: String { directory.map { Self.url(in: $0, index: activeIndex).path } ?? "memory" }

    static func url(in directory: URL, index: Int) -> URL {
        let number = String(index)
        return directory.appendingPathComponent(prefix + String(repeating: "0", count: max(0, 6 - number.count)) + number + suffix)
    }

    /// The log files in the folder, oldest (lowest index) first, with their sizes.
    func listed() -> [(index: Int, url: URL, size: Int)] {
        guard let directory, let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [] }
        return names.compactMap { name -> (Int, URL, Int)? in
            guard name.hasPrefix(Self.prefix), name.hasSuffix(Self.suffix),
                  let index = Int(name.dropFirst(Self.prefix.count).dropLast(Self.suffix.count)) else { return nil }
            let url = directory.appendingPathComponent(name)
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? 0
            return (index, url, size)
        }.sorted { $0.0 < $1.0 }
    }

    /// Opens the newest file for appending, or begins one when there is none or it is full.
    mutating func open() throws {
        guard let directory else { throw FileFailure("no folder") }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw FileFailure("cannot create the folder \(directory.path): \(error.localizedDescription)")
        }
        if let newest = listed().last, newest.size < configuration.maxFileBytes {
            activeIndex = newest.index
            activeSize = newest.size
            try openActive(create: false)
        } else {
            activeIndex = (listed().last?.index ?? 0) + 1
            try openActive(create: true)
        }
        enforceCap()
    }

    /// Closes the full file and begins the next; then drops the oldest files over the cap.
    mutating func rotate() throws {
        close()
        activeIndex += 1
        try openActive(create: true)
        enforceCap()
    }

    private mutating func openActive(create: Bool) throws {
        guard let directory else { throw FileFailure("no folder") }
        let url = Self.url(in: directory, index: activeIndex)
        if create || !FileManager.default.fileExists(atPath: url.path) {
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                throw FileFailure("cannot create \(url.path)")
            }
            activeSize = 0
        }
        do {
            let handle = try FileHandle(forWritingTo: url)
            activeSize = Int(try handle.seekToEnd())
            self.handle = handle
        } catch {
            throw FileFailure("cannot open \(url.path) for writing: \(error.localizedDescription)")
        }
    }

    /// Deletes the oldest files until the others and a full active file fit in the cap.
    mutating func enforceCap() {
        var others = listed().filter { $0.index != activeIndex }
        var total = others.reduce(0) { $0 + $1.size }
        while total + configuration.maxFileBytes > configuration.maxTotalBytes, !others.isEmpty {
            let oldest = others.removeFirst()
            do {
                try FileManager.default.removeItem(at: oldest.url)
                total -= oldest.size
            } catch {
                lastFailure = "cannot delete \(oldest.url.path) to keep the log under its cap: \(error.localizedDescription)"
                systemLog.log(FieldLogEntry(time: Date(), level: .error, category: .log, message: lastFailure ?? ""))
                return
            }
        }
    }

    private mutating func fail(_ entry: FieldLogEntry, because reason: String) {
        close()
        failures += 1
        lastFailure = reason
        if failedAt == nil {
            // The fallback sink hears about the failure even when the system-log copy is off.
            systemLog.log(FieldLogEntry(time: entry.time, level: .error, category: .log,
                                        message: "cannot write the field log (\(reason)); entries go to the system log and "
                                            + "memory, the disk is tried again in \(Int(Self.retryAfter)) s"))
            if !configuration.systemLog { systemLog.log(entry) }
        }
        failedAt = entry.time
        remember(entry)
    }

    private mutating func remember(_ entry: FieldLogEntry) {
        guard configuration.memoryEntries > 0 else { return }
        memory.append(entry)
        if memory.count > configuration.memoryEntries { memory.removeFirst(memory.count - configuration.memoryEntries) }
    }

    /// `line` cut to at most `limit` bytes of UTF-8 (a runaway message cannot fill a file).
    static func bounded(_ line: String, _ limit: Int) -> String {
        guard line.utf8.count > limit else { return line }
        return String(decoding: line.utf8.prefix(limit - 6), as: UTF8.self) + " [cut]"
    }

    struct FileFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

extension FieldLogFiles {
    /// Every entry kept from `since` on, oldest first: the files' lines and the entries in memory.
    func read(since: Date?) -> FieldLogReading {
        var found: [FieldLogEntry] = []
        var unreadable = 0
        let files = listed()
        for file in files {
            guard let data = FileManager.default.contents(atPath: file.url.path) else { continue }
            for line in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true) {
                guard let entry = FieldLogEntry(line: line) else { unreadable += 1; continue }
                if since.map({ entry.time >= $0 }) ?? true { found.append(entry) }
            }
        }
        found += memory.filter { entry in since.map { entry.time >= $0 } ?? true }
        // By time; entries of the same time keep the order they were written in.
        let ordered = found.enumerated().sorted { a, b in
            a.element.time != b.element.time ? a.element.time < b.element.time : a.offset < b.offset
        }.map(\.element)
        return FieldLogReading(entries: ordered, files: files.count, unreadableLines: unreadable)
    }

    /// Writes the entries from `since` on into one new file in `folder` (the temporary folder by default).
    func export(since: Date?, to folder: URL?) -> Result<URL, EngineError> {
        let reading = read(since: since)
        let folder = folder ?? FileManager.default.temporaryDirectory
        let now = Date()
        let stamp = FieldLogTime.format(now).replacingOccurrences(of: ":", with: "-")
        let url = folder.appendingPathComponent("waymark-field-log-\(stamp).log")
        let from = since.map { "since \(FieldLogTime.format($0))" } ?? "everything kept"
        var text = "# Waymark field log: \(reading.entries.count) entries, \(from)\n"
        text += "# from \(reading.files) file\(reading.files == 1 ? "" : "s") in \(directory?.path ?? "(no folder: memory only)")"
        text += " and \(memory.count) entries kept in memory;"
        text += " \(reading.unreadableLines) unreadable lines skipped; \(failures) failed writes"
        text += lastFailure.map { " (last: \($0))" } ?? ""
        text += "\n# exported \(FieldLogTime.format(now))\n"
        for entry in reading.entries { text += entry.line + "\n" }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url, options: .atomic)
            return .success(url)
        } catch {
            return .failure(EngineError(.fieldLog, "cannot write the field log export to \(url.path): \(error.localizedDescription)"))
        }
    }
}
