import Testing
@testable import WaymarkGeo

/// Both decoding paths (the iOS 18 / macOS 15 one and the older systems') agree, byte for byte.
@Suite struct UTF8TextTests {
    static let wellFormed: [[UInt8]] = [
        [], Array("plain".utf8), Array("Zürich – 東京 🚲".utf8),
        [0xF4, 0x8F, 0xBF, 0xBF],          // U+10FFFF, the last scalar
        [0xEF, 0xBF, 0xBD],                // U+FFFD itself is well-formed
    ]
    static let illFormed: [[UInt8]] = [
        [0xFF], [0x80],                    // never valid; a lone continuation byte
        [0xC0, 0xAF],                      // overlong "/"
        [0xED, 0xA0, 0x80],                // a UTF-16 surrogate (U+D800) spelled in UTF-8
        [0xF4, 0x90, 0x80, 0x80],          // beyond U+10FFFF
        [0x61, 0xE2, 0x82],                // truncated at the end
        [0xE2, 0x28, 0xA1],                // bad second byte
    ]

    @Test(arguments: wellFormed)
    func wellFormedDecodesOnBothPaths(bytes: [UInt8]) {
        let expected = String(decoding: bytes, as: UTF8.self)
        #expect(UTF8Text.string(validating: bytes) == expected)
        #expect(UTF8Text.stringByTranscoding(validating: bytes) == expected)
    }

    @Test(arguments: illFormed)
    func illFormedIsRefusedOnBothPaths(bytes: [UInt8]) {
        #expect(UTF8Text.string(validating: bytes) == nil)
        #expect(UTF8Text.stringByTranscoding(validating: bytes) == nil)
    }

    @Test func aSliceDecodesOnlyItsOwnBytes() {
        let bytes = Array("ab\u{E9}cd".utf8)
        #expect(UTF8Text.string(validating: bytes[1..<4]) == "b\u{E9}")
        #expect(UTF8Text.stringByTranscoding(validating: bytes[2..<3]) == nil)  // half of é
    }
}
