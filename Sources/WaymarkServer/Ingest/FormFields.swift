/// Decodes `application/x-www-form-urlencoded` text (query strings and form bodies).
///
/// `+` is a space and `%XX` a byte; invalid escapes are kept literally. Later values of a
/// repeated name do not replace the first one.
struct FormFields: Sendable {
    private(set) var values: [String: String] = [:]

    init(_ text: some StringProtocol) {
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.decode(parts[0])
            let value = parts.count > 1 ? Self.decode(parts[1]) : ""
            if values[name] == nil { values[name] = value }
        }
    }

    /// Adds the fields of `other` that this one lacks.
    mutating func merge(_ other: FormFields) {
        values.merge(other.values) { mine, _ in mine }
    }

    subscript(_ name: String) -> String? { values[name] }

    /// The first of `names` present.
    func first(_ names: String...) -> (name: String, value: String)? {
        for name in names { if let value = values[name] { return (name, value) } }
        return nil
    }

    static func decode(_ text: some StringProtocol) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = Array(text.utf8)[...]
        while let b = iterator.popFirst() {
            if b == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if b == UInt8(ascii: "%"), iterator.count >= 2,
                      let hi = hex(iterator[iterator.startIndex]), let lo = hex(iterator[iterator.startIndex + 1]) {
                bytes.append(hi << 4 | lo)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(b)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: c - 48
        case 65...70: c - 55
        case 97...102: c - 87
        default: nil
        }
    }
}
