import Foundation
import Testing
@testable import WaymarkEngine

/// The field log's files (issue #32 item 3): one readable line per entry, rotation by size, a total
/// cap with the oldest file dropped first, `export(since:to:)` across the rotated files in time
/// order, levels, and a folder that cannot be written.
@Suite("FieldLog: files, rotation, cap, export", .timeLimit(.minutes(2)))
struct FieldLogTests {
    static let t0 = Date(timeIntervalSince1970: 1_790_000_000)

    static func folder(_ name: String = #function) -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("waymark-fieldlog-\(name.filter(\.isLetter))-\(UUID().uuidString)", isDirectory: true)
        return url
    }

    static func entry(_ i: Int, level: FieldLogLevel = .info, at seconds: Double? = nil) -> FieldLogEntry {
        FieldLogEntry(time: t0.addingTimeInterval(seconds ?? Double(i)), level: level, category: .ride,
                      message: "entry \(i): " + String(repeating: "x", count: 60))
    }

    @Test("an entry is one readable line and reads back the same")
    func lineRoundTrip() throws {
        let entry = FieldLogEntry(time: Self.t0.addingTimeInterval(0.125), level: .warning, category: .geofence,
                                  message: "fence 'café' exit #2: two\nlines")
        let line = entry.line
        #expect(line.hasPrefix("2026-09-21T14:13:20.125Z WARNING geofence   fence 'café' exit #2: two\\nlines"), "\(line)")
        #expect(!line.contains("\n"))
        let read = try #require(FieldLogEntry(line: line))
        #expect(read.time == entry.time && read.level == .warning && read.category == .geofence)
        #expect(read.message == "fence 'café' exit #2: two\\nlines")
        #expect(FieldLogEntry(line: "# a header") == nil)
        #expect(FieldLogEntry(line: "2026-09-21T14:13:20.125Z INF") == nil, "a line cut short by a crash")
    }

    @Test("rotation by size: files never pass maxFileBytes, the total stays under the cap, the oldest files go first")
    func rotationAndCap() async throws {
        let dir = Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let log = FieldLog(.init(directory: dir, maxFileBytes: 1_024, maxTotalBytes: 4_096, systemLog: false))
        var largest = 0
        for i in 0..<300 {
            log.record(Self.entry(i))
            if i % 25 == 24 {
                let status = await log.status
                #expect(status.bytes <= 4_096, "over the cap after \(i + 1) entries: \(status.bytes)")
                largest = max(largest, status.files.count)
            }
        }
        let status = await log.status
        #expect(status.writeFailures == 0)
        #expect(largest >= 4, "rotated into several files")
        for file in status.files {
            let size = try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber).intValue
            #expect(size <= 1_024, "\(file.lastPathComponent) is \(size) bytes")
        }
        // The files kept are the newest, numbered without a hole, and end with the last entry.
        let names = status.files.map(\.lastPathComponent)
        #expect(names == names.sorted())
        let numbers = names.compactMap { Int($0.dropFirst(8).prefix(6)) }
        #expect(numbers.count == names.count && zip(numbers, numbers.dropFirst()).allSatisfy { $1 == $0 + 1 }, "\(names)")
        #expect(numbers.first ?? 0 > 1, "the first files were dropped")
        let kept = await log.entries()
        #expect(kept.last?.message.hasPrefix("entry 299:") == true)
        #expect(kept.first?.message.hasPrefix("entry 0:") == false)
        let indices = kept.compactMap { Int($0.message.dropFirst(6).prefix { $0.isNumber }) }
        #expect(indices == Array((indices.first ?? 0)...299), "a contiguous tail of the entries")
    }

    @Test("a new log over the same folder goes on from the newest file (a new process)")
    func continuesAcrossProcesses() async throws {
        let dir = Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        do {
            let first = FieldLog(.init(directory: dir, systemLog: false))
            for i in 0..<3 { first.record(Self.entry(i)) }
            #expect(await first.status.files.count == 1)
        }
        let second = FieldLog(.init(directory: dir, systemLog: false))
        for i in 3..<5 { second.record(Self.entry(i)) }
        let status = await second.status
        #expect(status.files.count == 1)
        #expect(await second.entries().count == 5)
    }

    @Test("levels: info and above by default, debug once asked for")
    func levels() async throws {
        let log = FieldLog(.init(systemLog: false))
        #expect(log.level == .info)
        log.record(Self.entry(1, level: .debug))
        log.record(Self.entry(2, level: .info))
        log.record(Self.entry(3, level: .error))
        log.setLevel(.debug)
        log.record(Self.entry(4, level: .debug))
        log.setLevel(.warning)
        log.record(Self.entry(5, level: .notice))
        let kept = await log.entries().map { $0.message.prefix(7) }
        #expect(kept == ["entry 2", "entry 3", "entry 4"])
        #expect(FieldLogLevel.debug < .info && FieldLogLevel.warning < .error)
    }

    @Test("export(since:) writes one file: a header, then the entries from `since` on across the rotated files, in time order")
    func exportSince() async throws {
        let dir = Self.folder()
        let out = Self.folder("export")
        defer {
            try? FileManager.default.removeItem(at: dir)
            try? FileManager.default.removeItem(at: out)
        }
        let log = FieldLog(.init(directory: dir, maxFileBytes: 1_024, maxTotalBytes: 64 * 1_024, systemLog: false))
        for i in 0..<60 { log.record(Self.entry(i)) }
        // Recorded late but earlier in time (an upload outcome stamped before the engine's last step).
        log.record(Self.entry(1_000, at: 45.5))
        #expect(await log.status.files.count > 3, "several files to stitch together")
        let url = try await log.export(since: Self.t0.addingTimeInterval(40), to: out)
        #expect(url.deletingLastPathComponent().standardizedFileURL == out.standardizedFileURL)
        #expect(url.lastPathComponent.hasPrefix("waymark-field-log-") && url.pathExtension == "log")
        let text = try String(contentsOf: url, encoding: .utf8)
        let lines = text.split(separator: "\n")
        #expect(lines.first?.hasPrefix("# Waymark field log: 21 entries, since 2026-09-21T14:14:00.000Z") == true, "\(lines.first ?? "")")
        let entries = lines.compactMap { FieldLogEntry(line: $0) }
        #expect(entries.count == 21)
        #expect(entries.first?.time == Self.t0.addingTimeInterval(40))
        #expect(zip(entries, entries.dropFirst()).allSatisfy { $0.time <= $1.time }, "in time order")
        #expect(entries.map(\.message).filter { $0.hasPrefix("entry 1000:") }.count == 1)
        let position = entries.firstIndex { $0.message.hasPrefix("entry 1000:") }
        #expect(position.map { entries[$0 - 1].message.hasPrefix("entry 45:") } == true, "placed by its time")
        // Everything when since is nil.
        let all = try await log.export(to: out)
        #expect(try String(contentsOf: all, encoding: .utf8).split(separator: "\n").compactMap { FieldLogEntry(line: $0) }.count == 61)
    }

    @Test("a folder that cannot be written: recording goes on, the entries stay in memory and in the export")
    func unwritableFolder() async throws {
        let base = Self.folder()
        defer { try? FileManager.default.removeItem(at: base) }
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        // A file where the folder should be: no process, root included, can create the folder.
        let blocker = base.appendingPathComponent("blocker")
        #expect(FileManager.default.createFile(atPath: blocker.path, contents: Data("x".utf8)))
        let log = FieldLog(.init(directory: blocker.appendingPathComponent("logs"), systemLog: false))
        for i in 0..<10 { log.record(Self.entry(i)) }
        let status = await log.status
        #expect(status.writeFailures == 1, "one failed write, then the disk rests for a minute of entry time")
        #expect(status.lastFailure?.contains("blocker") == true, "\(status.lastFailure ?? "none")")
        #expect(status.files.isEmpty && status.entriesInMemory == 10)
        #expect(await log.entries().count == 10)
        // A minute later the disk is tried again (and fails again).
        log.record(Self.entry(100, at: 70))
        #expect(await log.status.writeFailures == 2)
        let url = try await log.export(to: base)
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.split(separator: "\n").compactMap { FieldLogEntry(line: $0) }.count == 11)
        #expect(text.contains("2 failed writes"))
        // An export into a folder that cannot be made says which and why.
        await #expect(throws: EngineError.self) { try await log.export(to: blocker.appendingPathComponent("out")) }
        do {
            _ = try await log.export(to: blocker.appendingPathComponent("out"))
        } catch {
            #expect(error.code == .fieldLog && error.message.contains("blocker/out"), "\(error.message)")
        }
    }

    @Test("without a folder the newest entries are kept in memory, up to memoryEntries")
    func memoryOnly() async throws {
        let log = FieldLog(.init(systemLog: false, memoryEntries: 5))
        for i in 0..<8 { log.record(Self.entry(i)) }
        let kept = await log.entries().map { $0.message.prefix(7) }
        #expect(kept == ["entry 3", "entry 4", "entry 5", "entry 6", "entry 7"])
        #expect(await log.status.writeFailures == 0)
    }

    @Test("besideStoreAt puts the folder next to the store file")
    func besideStore() {
        let configuration = FieldLog.Configuration(besideStoreAt: "/data/app/rides.sqlite")
        #expect(configuration.directory?.path == "/data/app/WaymarkLog")
        #expect(configuration.level == .info)
    }
}
