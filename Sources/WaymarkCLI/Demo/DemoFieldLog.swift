import Foundation
import WaymarkEngine

/// The simulated phone's field log after the demo: its folder beside the phone's store, its files,
/// and the one-file export a support engineer would receive.
struct DemoFieldLog: Hashable, Sendable, Codable {
    /// The log's folder (`WaymarkLog` beside the phone's `device.sqlite`).
    var folder: String
    /// Its files, oldest first.
    var files: [String]
    /// Their total size, bytes.
    var bytes: Int
    /// Entries kept.
    var entries: Int
    /// Entries per category (`launch`, `ride`, `upload`…).
    var categories: [String: Int]
    /// The export (``FieldLog/export(since:to:)``) of everything kept, in the temporary folder: it
    /// outlives the demo's data folder, which the demo deletes when it exits.
    var export: String

    /// Reads `log`'s state and exports it into `folder` (the temporary folder when nil).
    init(_ log: FieldLog, exportTo folder: URL? = nil) async throws {
        let status = await log.status
        let kept = await log.entries()
        self.folder = log.configuration.directory?.path ?? "(memory)"
        files = status.files.map(\.lastPathComponent)
        bytes = status.bytes
        entries = kept.count
        categories = kept.reduce(into: [:]) { $0[$1.category.rawValue, default: 0] += 1 }
        export = try await log.export(to: folder).path
    }

    /// The lines the demo prints after its summary.
    var rendered: String {
        let counts = categories.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        return """
            Field log (the phone's, beside its store; see "Reading the field log" in WaymarkEngine's documentation)
              folder   \(folder) (\(files.count) file\(files.count == 1 ? "" : "s"), \(bytes / 1024) KiB, \(entries) entries: \(counts);
                       deleted with the demo's data when it exits)
              export   \(export) (one file for a support email; kept)
            """
    }
}
