import Foundation

/// A pull JSON parser over bytes read in chunks (internal engine of ``GeoJSONFeatureReader``).
///
/// It parses one value at a time into a ``JSONValue``, so a caller can walk a large
/// top-level object or array member by member while holding only the current member.
/// Tracks the line and column of every byte for error messages. Input must be UTF-8
/// (RFC 8259); a UTF-8 byte-order mark is skipped.
final class JSONByteParser {
    private let fileHandle: FileHandle?
    private let data: Data?
    private var dataOffset = 0
    private let chunkSize: Int
    private var buffer: [UInt8] = []
    private var index = 0
    private var exhausted = false
    /// The name used in error locations.
    let name: String?
    /// Bytes consumed so far.
    private(set) var offset = 0
    private(set) var line = 1
    private(set) var column = 1
    /// The deepest nesting of arrays and objects accepted.
    let maxDepth = 512

    init(url: URL, chunkSize: Int) throws(GeoError) {
        do {
            fileHandle = try FileHandle(forReadingFrom: url)
        } catch {
            throw GeoError(.io, "cannot open \(url.path): \(error.localizedDescription)")
        }
        data = nil
        self.chunkSize = max(chunkSize, 16)
        name = url.path
        try skipByteOrderMark()
    }

    init(data: Data, name: String?, chunkSize: Int) throws(GeoError) {
        fileHandle = nil
        self.data = data
        self.chunkSize = max(chunkSize, 16)
        self.name = name
        try skipByteOrderMark()
    }

    deinit { try? fileHandle?.close() }

    /// The current position.
    var location: SourceLocation { SourceLocation(file: name, line: line, column: column) }

    func error(_ message: String, at where: SourceLocation? = nil) -> GeoError {
        GeoError(.invalidGeoJSON, message, at: `where` ?? location)
    }

    private func skipByteOrderMark() throws(GeoError) {
        if try peek() == 0xEF {
            let saved = (line, column)
            index += 1
            guard try peek() == 0xBB else { throw error("invalid byte at the start of the input; expected JSON") }
            index += 1
            guard try peek() == 0xBF else { throw error("invalid byte at the start of the input; expected JSON") }
            index += 1
            (line, column) = saved
            offset = 3
        }
    }

    /// Reads the next chunk; false at the end of input.
    private func refill() throws(GeoError) -> Bool {
        if exhausted { return false }
        buffer.removeFirst(index)
        index = 0
        let chunk: Data
        if let data {
            let end = min(data.count, dataOffset + chunkSize)
            chunk = data.subdata(in: (data.startIndex + dataOffset)..<(data.startIndex + end))
            dataOffset = end
        } else {
            do {
                chunk = try fileHandle?.read(upToCount: chunkSize) ?? Data()
            } catch {
                throw GeoError(.io, "\(name ?? "input"): read failed: \(error.localizedDescription)", at: location)
            }
        }
        if chunk.isEmpty { exhausted = true; return false }
        buffer.append(contentsOf: chunk)
        return true
    }

    /// The next byte without consuming it; nil at the end of input.
    @inline(__always)
    func peek() throws(GeoError) -> UInt8? {
        if index < buffer.count { return buffer[index] }
        return try refill() ? buffer[index] : nil
    }

    /// Consumes one byte (which `peek()` returned).
    @inline(__always)
    func advance() {
        let b = buffer[index]
        index += 1
        offset += 1
        if b == 0x0A { line += 1; column = 1 } else if b & 0xC0 != 0x80 { column += 1 }
    }

    /// Skips JSON whitespace and returns the next byte (not consumed); nil at the end of input.
    func skipWhitespace() throws(GeoError) -> UInt8? {
        while let b = try peek() {
            guard b == 0x20 || b == 0x0A || b == 0x09 || b == 0x0D else { return b }
            advance()
        }
        return nil
    }

    /// Consumes `byte` after optional whitespace, or throws naming what was expected.
    func expect(_ byte: UInt8, _ what: String) throws(GeoError) {
        guard let b = try skipWhitespace() else { throw error("unexpected end of input; expected \(what)") }
        guard b == byte else { throw error("unexpected \(Self.describe(b)); expected \(what)") }
        advance()
    }

    static func describe(_ b: UInt8) -> String {
        b >= 0x21 && b < 0x7F ? "'\(Character(Unicode.Scalar(b)))'" : String(format: "byte 0x%02X", b)
    }

    /// Parses the next value (after optional whitespace).
    func parseValue(depth: Int = 0) throws(GeoError) -> JSONValue {
        guard let b = try skipWhitespace() else { throw error("unexpected end of input; expected a JSON value") }
        switch b {
        case UInt8(ascii: "{"):
            guard depth < maxDepth else { throw error("arrays and objects are nested deeper than \(maxDepth) levels") }
            advance()
            var members: [String: JSONValue] = [:]
            if try skipWhitespace() == UInt8(ascii: "}") { advance(); return .object(members) }
            while true {
                let key = try parseKey()
                members[key] = try parseValue(depth: depth + 1)
                guard let next = try skipWhitespace() else { throw error("unexpected end of input; expected ',' or '}'") }
                advance()
                if next == UInt8(ascii: "}") { return .object(members) }
                guard next == UInt8(ascii: ",") else { throw error("unexpected \(Self.describe(next)); expected ',' or '}'", at: previousLocation) }
            }
        case UInt8(ascii: "["):
            guard depth < maxDepth else { throw error("arrays and objects are nested deeper than \(maxDepth) levels") }
            advance()
            var items: [JSONValue] = []
            if try skipWhitespace() == UInt8(ascii: "]") { advance(); return .array(items) }
            while true {
                items.append(try parseValue(depth: depth + 1))
                guard let next = try skipWhitespace() else { throw error("unexpected end of input; expected ',' or ']'") }
                advance()
                if next == UInt8(ascii: "]") { return .array(items) }
                guard next == UInt8(ascii: ",") else { throw error("unexpected \(Self.describe(next)); expected ',' or ']'", at: previousLocation) }
            }
        case UInt8(ascii: "\""):
            return .string(try parseString())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try parseNumber())
        default:
            throw error("unexpected \(Self.describe(b)); expected a JSON value")
        }
    }

    /// The location of the byte just consumed (line and column before it), for separators.
    private var previousLocation: SourceLocation {
        SourceLocation(file: name, line: line, column: max(1, column - 1))
    }

    /// `"key"` followed by `:`.
    func parseKey() throws(GeoError) -> String {
        guard let b = try skipWhitespace() else { throw error("unexpected end of input; expected a member name") }
        guard b == UInt8(ascii: "\"") else { throw error("unexpected \(Self.describe(b)); expected a quoted member name") }
        let key = try parseString()
        try expect(UInt8(ascii: ":"), "':' after a member name")
        return key
    }

    private func literal(_ word: StaticString) throws(GeoError) {
        let start = location
        let bytes = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for expected in bytes {
            guard let b = try peek(), b == expected else { throw error("invalid literal; expected \(word)", at: start) }
            advance()
        }
    }

    private func parseNumber() throws(GeoError) -> Double {
        let start = location
        var text: [UInt8] = []
        while let b = try peek(), b == UInt8(ascii: "-") || b == UInt8(ascii: "+") || b == UInt8(ascii: ".")
                || (b | 0x20) == UInt8(ascii: "e") || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) {
            text.append(b)
            advance()
        }
        guard Self.isJSONNumber(text), let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else {
            throw error("invalid number \"\(String(decoding: text, as: UTF8.self))\"", at: start)
        }
        return value
    }

    /// RFC 8259 number grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    static func isJSONNumber(_ t: [UInt8]) -> Bool {
        var i = 0
        func digits() -> Int {
            let s = i
            while i < t.count && t[i] >= UInt8(ascii: "0") && t[i] <= UInt8(ascii: "9") { i += 1 }
            return i - s
        }
        if i < t.count && t[i] == UInt8(ascii: "-") { i += 1 }
        guard i < t.count else { return false }
        if t[i] == UInt8(ascii: "0") { i += 1 } else if digits() == 0 { return false }
        if i < t.count && t[i] == UInt8(ascii: ".") { i += 1; if digits() == 0 { return false } }
        if i < t.count && (t[i] | 0x20) == UInt8(ascii: "e") {
            i += 1
            if i < t.count && (t[i] == UInt8(ascii: "+") || t[i] == UInt8(ascii: "-")) { i += 1 }
            if digits() == 0 { return false }
        }
        return i == t.count
    }

    /// A string starting at the opening quote (not yet consumed).
    private func parseString() throws(GeoError) -> String {
        let start = location
        advance()
        var out: [UInt8] = []
        while true {
            guard let b = try peek() else { throw error("unexpected end of input inside a string", at: start) }
            if b == UInt8(ascii: "\"") { advance(); break }
            if b < 0x20 { throw error("control character \(Self.describe(b)) inside a string; expected it escaped") }
            if b != UInt8(ascii: "\\") { out.append(b); advance(); continue }
            let escapeStart = location
            advance()
            guard let e = try peek() else { throw error("unexpected end of input inside a string", at: start) }
            advance()
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4(escapeStart)
                if scalar >= 0xD800 && scalar < 0xDC00 {
                    guard try peek() == UInt8(ascii: "\\") else { throw error("unpaired surrogate in \\u escape", at: escapeStart) }
                    advance()
                    guard try peek() == UInt8(ascii: "u") else { throw error("unpaired surrogate in \\u escape", at: escapeStart) }
                    advance()
                    let low = try hex4(escapeStart)
                    guard low >= 0xDC00 && low < 0xE000 else { throw error("unpaired surrogate in \\u escape", at: escapeStart) }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let u = Unicode.Scalar(scalar) else { throw error("unpaired surrogate in \\u escape", at: escapeStart) }
                out.append(contentsOf: UTF8.encode(u)!)
            default:
                throw error("invalid escape \\\(Character(Unicode.Scalar(e))) in a string", at: escapeStart)
            }
        }
        guard let s = UTF8Text.string(validating: out) else { throw error("a string is not valid UTF-8", at: start) }
        return s
    }

    private func hex4(_ at: SourceLocation) throws(GeoError) -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard let h = try peek() else { throw error("unexpected end of input in a \\u escape", at: at) }
            let d: UInt32
            switch h {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(h - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(h - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(h - UInt8(ascii: "A") + 10)
            default: throw error("invalid \\u escape; expected four hex digits", at: at)
            }
            v = v * 16 + d
            advance()
        }
        return v
    }
}
