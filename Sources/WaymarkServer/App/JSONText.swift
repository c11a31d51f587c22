import WaymarkGeo

/// Small pieces of JSON text written by hand, for replies streamed in parts: a validity check that builds
/// nothing, string quoting and number formatting that agree with the encoders used elsewhere.
enum JSONText {
    /// Most nesting levels ``isValid(_:)`` follows; deeper text counts as invalid.
    static let maxDepth = 256

    /// Whether `text` is exactly one JSON value (RFC 8259), surrounded by optional whitespace. A linear scan
    /// with an explicit stack: it allocates one small array, however large the value.
    static func isValid(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { isValid($0) }
    }

    private static func isValid(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        var stack: [UInt8] = []     // "{" or "[" of each open container
        func space() { while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 } }
        func digits() -> Bool {
            let start = i
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }
            return i > start
        }
        func string() -> Bool {
            guard i < b.count, b[i] == 0x22 else { return false }
            i += 1
            while i < b.count {
                switch b[i] {
                case 0x22: i += 1; return true
                case 0x5C:
                    guard i + 1 < b.count else { return false }
                    if b[i + 1] == 0x75 {
                        guard i + 5 < b.count, (2...5).allSatisfy({ isHex(b[i + $0]) }) else { return false }
                        i += 6
                    } else {
                        guard [0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74].contains(b[i + 1]) else { return false }
                        i += 2
                    }
                case 0x00..<0x20: return false
                default: i += 1
                }
            }
            return false
        }
        func scalar() -> Bool {
            guard i < b.count else { return false }
            switch b[i] {
            case 0x22: return string()
            case 0x74: return literal("true")
            case 0x66: return literal("false")
            case 0x6E: return literal("null")
            default:
                if b[i] == 0x2D { i += 1 }
                guard i < b.count else { return false }
                if b[i] == 0x30 { i += 1 } else if !digits() { return false }
                if i < b.count, b[i] == 0x2E { i += 1; guard digits() else { return false } }
                if i < b.count, b[i] == 0x65 || b[i] == 0x45 {
                    i += 1
                    if i < b.count, b[i] == 0x2B || b[i] == 0x2D { i += 1 }
                    guard digits() else { return false }
                }
                return true
            }
        }
        func literal(_ word: StaticString) -> Bool {
            let n = word.utf8CodeUnitCount
            guard i + n <= b.count else { return false }
            for k in 0..<n where b[i + k] != word.utf8Start[k] { return false }
            i += n
            return true
        }
        // A value is expected at `i`; after it, the enclosing container decides what follows.
        space()
        value: while true {
            guard i < b.count else { return false }
            if b[i] == 0x7B || b[i] == 0x5B {
                guard stack.count < maxDepth else { return false }
                stack.append(b[i])
                i += 1
                space()
                if i < b.count, b[i] == (stack.last == 0x7B ? 0x7D : 0x5D) {
                    stack.removeLast()
                    i += 1
                } else {
                    if stack.last == 0x7B {
                        guard string() else { return false }
                        space()
                        guard i < b.count, b[i] == 0x3A else { return false }
                        i += 1
                        space()
                    }
                    continue value
                }
            } else if !scalar() {
                return false
            }
            // After a complete value: close containers, or go on to the next member or element.
            while true {
                space()
                guard let open = stack.last else {
                    return i == b.count
                }
                guard i < b.count else { return false }
                if b[i] == 0x2C {
                    i += 1
                    space()
                    if open == 0x7B {
                        guard string() else { return false }
                        space()
                        guard i < b.count, b[i] == 0x3A else { return false }
                        i += 1
                        space()
                    }
                    continue value
                }
                guard b[i] == (open == 0x7B ? 0x7D : 0x5D) else { return false }
                stack.removeLast()
                i += 1
            }
        }
    }

    private static func isHex(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
    }

    /// `text` as a JSON string literal: quotes, backslashes and control characters escaped
    /// (WaymarkGeo's `JSONText.quoted`, the package's one string writer).
    static func quoted(_ text: String) -> String { WaymarkGeo.JSONText.quoted(text) }

    /// A finite number as JSON: whole numbers without a fraction (`600`), others in Swift's shortest
    /// form; `null` otherwise (WaymarkGeo's `JSONText.number`).
    static func number(_ value: Double) -> String { WaymarkGeo.JSONText.number(value) }
}
