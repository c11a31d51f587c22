import Foundation
import NIOCore

/// Finds one member of a JSON body's top-level object without parsing the rest: what the server reads of
/// a body before it knows who sent it (Traccar Client's `device_id`).
///
/// Linear in the bytes up to the member, no allocation until it is found, nesting tracked by a counter
/// (no recursion). It does not validate the body; the full decoder does that after authentication.
enum JSONKeyScanner {
    /// The value of the top-level member `key` as text (a string's content, or a number's literal), or nil
    /// when the body is not an object, has no such member, or the value is of another kind.
    static func topLevelText(forKey key: String, in buffer: ByteBuffer) -> String? {
        let wanted = Array(key.utf8)
        return buffer.withUnsafeReadableBytes { b -> String? in
            var i = 0
            func skipSpace() { while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 } }
            /// Skips a string starting at `i` (on its quote); returns its content's range and whether it has escapes.
            func string() -> (Range<Int>, Bool)? {
                guard i < b.count, b[i] == UInt8(ascii: "\"") else { return nil }
                let start = i + 1
                var escaped = false
                i += 1
                while i < b.count {
                    switch b[i] {
                    case UInt8(ascii: "\\"): escaped = true; i += 2
                    case UInt8(ascii: "\""): i += 1; return (start..<(i - 1), escaped)
                    default: i += 1
                    }
                }
                return nil
            }
            /// Skips any value starting at `i`.
            func skipValue() -> Bool {
                skipSpace()
                guard i < b.count else { return false }
                if b[i] == UInt8(ascii: "\"") { return string() != nil }
                if b[i] == UInt8(ascii: "{") || b[i] == UInt8(ascii: "[") {
                    var depth = 0
                    while i < b.count {
                        switch b[i] {
                        case UInt8(ascii: "\""): guard string() != nil else { return false }; continue
                        case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                        case UInt8(ascii: "}"), UInt8(ascii: "]"):
                            depth -= 1
                            if depth == 0 { i += 1; return true }
                        default: break
                        }
                        i += 1
                    }
                    return false
                }
                while i < b.count, !(b[i] == UInt8(ascii: ",") || b[i] == UInt8(ascii: "}") || b[i] == UInt8(ascii: "]")) { i += 1 }
                return true
            }
            func text(_ range: Range<Int>, escaped: Bool) -> String? {
                let raw = UnsafeRawBufferPointer(rebasing: b[range])
                guard escaped else { return String(decoding: raw, as: UTF8.self) }
                // Rare: let Foundation undo the escapes of this one short string.
                let quoted = Data([UInt8(ascii: "\"")] + Array(raw) + [UInt8(ascii: "\"")])
                return (try? JSONSerialization.jsonObject(with: quoted, options: [.fragmentsAllowed])) as? String
            }
            skipSpace()
            guard i < b.count, b[i] == UInt8(ascii: "{") else { return nil }
            i += 1
            while true {
                skipSpace()
                guard let (nameRange, nameEscaped) = string() else { return nil }
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: ":") else { return nil }
                i += 1
                skipSpace()
                let matches = nameEscaped
                    ? text(nameRange, escaped: true).map { Array($0.utf8) == wanted } ?? false
                    : nameRange.count == wanted.count && zip(b[nameRange], wanted).allSatisfy { $0 == $1 }
                if matches {
                    guard i < b.count else { return nil }
                    if b[i] == UInt8(ascii: "\"") {
                        guard let (valueRange, valueEscaped) = string() else { return nil }
                        return text(valueRange, escaped: valueEscaped)
                    }
                    let start = i
                    guard skipValue() else { return nil }
                    let literal = String(decoding: UnsafeRawBufferPointer(rebasing: b[start..<i]), as: UTF8.self)
                        .trimmingCharacters(in: .whitespacesAndNewlines)
                    return Double(literal) != nil ? literal : nil
                }
                guard skipValue() else { return nil }
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: ",") else { return nil }
                i += 1
            }
        }
    }
}
