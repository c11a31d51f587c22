/// The tokenizer's byte-level helpers: comparisons, XML name classes, newline counting and bounded
/// excerpts for error messages. Pure functions of their arguments.
extension XMLTokenizer {
    /// Whether `count` bytes at `a` and `b` are equal (inline; names are short).
    @inline(__always)
    static func bytesEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        var i = 0
        while i < count {
            if a[i] != b[i] { return false }
            i += 1
        }
        return true
    }

    @inline(__always)
    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x09 || c == 0x0D }

    @inline(__always)
    static func isNameStart(_ c: UInt8) -> Bool {
        (c | 0x20) >= UInt8(ascii: "a") && (c | 0x20) <= UInt8(ascii: "z") || c == UInt8(ascii: "_") || c == UInt8(ascii: ":") || c >= 0x80
    }

    @inline(__always)
    static func isNameChar(_ c: UInt8) -> Bool {
        isNameStart(c) || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "-") || c == UInt8(ascii: ".")
    }

    /// `bytes` (UTF-8) cut to at most ``maxEchoedBytes`` bytes at a character boundary,
    /// with "…" appended when something was cut.
    static func excerpt(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard bytes.count > maxEchoedBytes else { return String(decoding: bytes, as: UTF8.self) }
        var n = maxEchoedBytes
        while n > 0 && bytes[n] & 0xC0 == 0x80 { n -= 1 }   // do not split a UTF-8 sequence
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[0..<n]), as: UTF8.self) + "…"
    }

    /// `text` cut to at most ``maxEchoedBytes`` bytes of UTF-8 (then "…") for an error message.
    static func excerpt(_ text: String) -> String {
        var text = text
        return text.withUTF8 { excerpt($0) }
    }

    /// Number of `\n` bytes in `count` bytes at `p`: 16 bytes at a time with SIMD compares
    /// (per-lane counters summed every 255 blocks), then eight at a time, then bytewise.
    static func countNewlines(_ p: UnsafePointer<UInt8>, _ count: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        var n = 0
        var i = 0
        let raw = UnsafeRawPointer(p)
        let newline = SIMD16<UInt8>(repeating: 0x0A)
        let one = SIMD16<UInt8>(repeating: 1)
        let zero = SIMD16<UInt8>()
        while i + 16 <= count {
            var lanes = SIMD16<UInt8>()
            var blocks = 0
            while blocks < 255 && i + 16 <= count {
                let v = raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
                lanes &+= zero.replacing(with: one, where: v .== newline)
                blocks += 1
                i += 16
            }
            n += Int(SIMD16<UInt16>(truncatingIfNeeded: lanes).wrappedSum())
        }
        while i + 8 <= count {
            let x = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ (ones &* 0x0A)
            // 0x80 in exactly the bytes of x that are zero.
            let zero = ~(((x & low7) &+ low7) | x | low7)
            n &+= zero.nonzeroBitCount
            i += 8
        }
        while i < count { if p[i] == 0x0A { n += 1 }; i += 1 }
        return n
    }
}
