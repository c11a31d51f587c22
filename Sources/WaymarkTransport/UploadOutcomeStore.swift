import Foundation

/// A durable record of finished upload transfers, by idempotency key, and the request bodies
/// that background transfers upload from.
///
/// A background `URLSession` reports a finished transfer to its delegate whenever iOS runs the
/// app next, possibly in a new process, possibly while nobody awaits the send. The delegate
/// writes the outcome here at once (``record(_:)``); the next send of that key takes it
/// (``take(_:)``) instead of uploading again. One file per key under `outcomes/`, replaced
/// atomically (the format is in ``UploadOutcome``), so a kill between two writes loses nothing
/// already written and two keys never contend. Request bodies are files under `bodies/`,
/// because background sessions upload only from files.
///
/// ```swift
/// let store = try UploadOutcomeStore.applicationSupport()
/// try store.record(UploadOutcome(key: key, response: response, finishedAt: Date()))
/// if let earlier = store.take(key) { return earlier.response }   // a relaunch picks it up
/// ```
///
/// On iOS the files are written with `completeUntilFirstUserAuthentication` protection: iOS may
/// finish a transfer and wake the app while the phone is locked, and the upload daemon reads the
/// body then too.
///
/// Thread-safety: a `Sendable` value; every method may be called from any thread or process.
/// Writes to one key should come from one writer at a time (the session delegate).
public struct UploadOutcomeStore: Hashable, Sendable {
    /// The folder that holds `outcomes/` and `bodies/`.
    public let directory: URL

    /// Opens (and creates, if needed) a store in `directory`.
    ///
    /// - throws: ``TransportError`` `.outcomeStore` when the folders cannot be created.
    public init(directory: URL) throws {
        self.directory = directory
        for folder in [outcomes, bodies] {
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw TransportError(.outcomeStore, "cannot create the upload outcome folder \(folder.path): \(error)")
            }
        }
    }

    /// The store in the app's Application Support folder, `Application Support/<name>`.
    ///
    /// - throws: ``TransportError`` `.outcomeStore` when the folder cannot be found or created.
    public static func applicationSupport(named name: String = "WaymarkUploads") throws -> UploadOutcomeStore {
        let base: URL
        do {
            base = try FileManager.default.url(for: .applicationSupportDirectory, in: .userDomainMask,
                                               appropriateFor: nil, create: true)
        } catch {
            throw TransportError(.outcomeStore, "cannot find or create Application Support: \(error)")
        }
        return try UploadOutcomeStore(directory: base.appendingPathComponent(name, isDirectory: true))
    }

    var outcomes: URL { directory.appendingPathComponent("outcomes", isDirectory: true) }
    var bodies: URL { directory.appendingPathComponent("bodies", isDirectory: true) }

    // MARK: Outcomes

    /// Writes the outcome for its key, replacing an earlier one; it is on disk when this returns.
    ///
    /// - throws: ``TransportError`` `.outcomeStore` when the file cannot be written.
    public func record(_ outcome: UploadOutcome) throws {
        let file = outcomeFile(outcome.key)
        do {
            try Self.write(try JSONEncoder().encode(outcome), to: file)
        } catch {
            throw TransportError(.outcomeStore, "cannot write the upload outcome \(file.path): \(error)")
        }
    }

    /// The outcome recorded for `key`, or nil. A file that cannot be read as an outcome of this
    /// key is removed and reported as nil (the batch is then simply sent again).
    public func outcome(for key: String) -> UploadOutcome? {
        let file = outcomeFile(key)
        guard let data = try? Data(contentsOf: file) else { return nil }
        guard let outcome = try? JSONDecoder().decode(UploadOutcome.self, from: data), outcome.key == key else {
            try? FileManager.default.removeItem(at: file)
            return nil
        }
        return outcome
    }

    /// The outcome recorded for `key`, removed from the store; nil when there is none.
    public func take(_ key: String) -> UploadOutcome? {
        guard let outcome = outcome(for: key) else { return nil }
        forget(key)
        return outcome
    }

    /// Removes the outcome recorded for `key`, if any.
    public func forget(_ key: String) {
        try? FileManager.default.removeItem(at: outcomeFile(key))
    }

    /// Every recorded outcome, oldest first.
    public func recorded() -> [UploadOutcome] {
        let files = (try? FileManager.default.contentsOfDirectory(at: outcomes, includingPropertiesForKeys: nil)) ?? []
        return files.compactMap { file in
            (try? Data(contentsOf: file)).flatMap { try? JSONDecoder().decode(UploadOutcome.self, from: $0) }
        }.sorted { ($0.finishedAt, $0.key) < ($1.finishedAt, $1.key) }
    }

    /// Removes outcomes that finished before `date`, and request bodies last written before it
    /// (a batch that was split or quarantined never asks for its old key again).
    ///
    /// - returns: how many outcomes were removed.
    @discardableResult
    public func prune(before date: Date) -> Int {
        var removed = 0
        for outcome in recorded() where outcome.finishedAt < date {
            forget(outcome.key)
            removed += 1
        }
        let files = (try? FileManager.default.contentsOfDirectory(at: bodies, includingPropertiesForKeys: [.contentModificationDateKey])) ?? []
        for file in files {
            let modified = (try? file.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate
            if let modified, modified < date { try? FileManager.default.removeItem(at: file) }
        }
        return removed
    }

    // MARK: Request bodies

    /// Writes the request body for `key` and returns its file, to upload from.
    ///
    /// - throws: ``TransportError`` `.outcomeStore` when the file cannot be written.
    public func writeBody(_ body: [UInt8], for key: String) throws -> URL {
        let file = bodyFile(key)
        do {
            try Self.write(Data(body), to: file)
        } catch {
            throw TransportError(.outcomeStore, "cannot write the upload body \(file.path): \(error)")
        }
        return file
    }

    /// The file ``writeBody(_:for:)`` writes for `key` (it may not exist).
    public func bodyFile(_ key: String) -> URL {
        bodies.appendingPathComponent(Self.fileName(key) + ".json")
    }

    /// Removes the request body for `key`, if any.
    public func removeBody(for key: String) {
        try? FileManager.default.removeItem(at: bodyFile(key))
    }

    // MARK: Files

    func outcomeFile(_ key: String) -> URL {
        outcomes.appendingPathComponent(Self.fileName(key) + ".json")
    }

    /// A file name for any key: its UTF-8 bytes in hex (keys hold dots, slashes, anything), or for
    /// keys over 100 bytes a 64-bit FNV-1a digest; the file holds the key, checked on reading.
    static func fileName(_ key: String) -> String {
        let bytes = Array(key.utf8)
        if bytes.count <= 100 { return "k" + bytes.map { hex($0, width: 2) }.joined() }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return "h" + hex(hash, width: 16)
    }

    private static func hex<T: BinaryInteger>(_ value: T, width: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    private static func write(_ data: Data, to file: URL) throws {
        #if os(iOS) || os(watchOS) || os(tvOS) || os(visionOS)
        try data.write(to: file, options: [.atomic, .completeFileProtectionUntilFirstUserAuthentication])
        #else
        try data.write(to: file, options: .atomic)
        #endif
    }
}
