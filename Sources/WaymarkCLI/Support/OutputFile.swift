import Foundation

/// A buffered text sink for a file or standard output, usable as a `TextOutputStream`.
struct OutputFile: TextOutputStream {
    /// The file written to.
    let handle: FileHandle
    private let closesHandle: Bool
    private var buffer: [UInt8] = []

    /// Standard output when `path` is nil or "-", else a new file at `path` (replaced if it exists).
    init(path: String?) throws {
        if let path, path != "-" {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw InputError("cannot create output file \(path)")
            }
            guard let handle = FileHandle(forWritingAtPath: path) else {
                throw InputError("cannot open output file \(path) for writing")
            }
            self.handle = handle
            closesHandle = true
        } else {
            handle = FileHandle.standardOutput
            closesHandle = false
        }
        buffer.reserveCapacity(1 << 16)
    }

    mutating func write(_ string: String) {
        buffer.append(contentsOf: string.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    mutating func write(_ data: Data) {
        flush()
        handle.write(data)
    }

    mutating func flush() {
        guard !buffer.isEmpty else { return }
        handle.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes and closes the file (standard output stays open).
    mutating func close() {
        flush()
        if closesHandle { try? handle.close() }
    }
}

/// The size of the file at `path` in bytes, or 0 when unknown.
func fileSize(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
}

/// Encodes `value` as pretty, key-sorted JSON and writes it with a final newline to stdout.
func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    var data = try encoder.encode(value)
    data.append(0x0A)
    FileHandle.standardOutput.write(data)
}

/// Writes a line of the tool's output to standard output (the commands' one way to print).
func writeLine(_ text: String = "", terminator: String = "\n") {
    FileHandle.standardOutput.write(Data((text + terminator).utf8))
}
