/// Text a client sent: limits counted in UTF-8 bytes, and bounded quoting for error messages.
///
/// Every length limit on client text (activities, gap reasons, ride ids, device and fence names,
/// webhook URLs) is in UTF-8 bytes, never in characters: one grapheme cluster can hold megabytes
/// (`"a"` followed by a million combining accents is one `Character`).
enum ClientText {
    /// Bytes of a client value an error message repeats at most.
    static let echoLimit = 64

    /// `text` cut to at most `maxBytes` UTF-8 bytes, at a Unicode scalar boundary. O(`maxBytes`).
    static func truncated(_ text: String, maxBytes: Int) -> String {
        let utf8 = text.utf8
        guard let limit = utf8.index(utf8.startIndex, offsetBy: maxBytes, limitedBy: utf8.endIndex),
              limit != utf8.endIndex else { return text }
        var end = limit
        // Back off over continuation bytes (10xxxxxx) so the cut does not split a scalar.
        while end > utf8.startIndex, utf8[end] & 0xC0 == 0x80 { end = utf8.index(before: end) }
        return String(decoding: utf8[utf8.startIndex..<end], as: UTF8.self)
    }

    /// `'value'` for an error message: at most ``echoLimit`` bytes of it, then `…(N bytes)`.
    static func quoted(_ value: Any) -> String {
        let text = value as? String ?? "\(value)"
        let count = text.utf8.count
        guard count > echoLimit else { return "'\(text)'" }
        return "'\(truncated(text, maxBytes: echoLimit))…' (\(count) bytes)"
    }

    /// Whether `text` has 1 to `maxBytes` UTF-8 bytes.
    static func fits(_ text: String, maxBytes: Int) -> Bool {
        !text.isEmpty && text.utf8.count <= maxBytes
    }
}
