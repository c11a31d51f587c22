/// Decodes `application/x-www-form-urlencoded` text (query strings and form bodies).
///
/// `+` is a space and `%XX` a byte; invalid escapes are kept literally. Later values of a
/// repeated name do not replace the first one. At most `maxFields` pairs are read: a longer text
/// is marked ``isTruncated`` rather than decoded (OsmAnd sends about 15 fields).
struct FormFields: Sendable {
    private(set) var values: [String: String] = [:]
    /// Whether the text had more than `maxFields` pairs; the rest were not read.
    private(set) var isTruncated = false

    init(_ text: some StringProtocol, maxFields: Int = DecodeLimits().maxFormFields) {
        var read = 0
        for pair in text.split(separator: "&", maxSplits: maxFields, omittingEmptySubsequences: true) {
            read += 1
            guard read <= maxFields else {
                isTruncated = true
                break
            }
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.decode(parts[0])
            let value = parts.count > 1 ? Self.decode(parts[1]) : ""
            if values[name] == nil { values[name] = value }
        }
    }

    /// Reads a form body or query string, refusing one with more than `limits.maxFormFields` fields.
    /// - throws: ``ServerError`` ``ServerError/Code/payloadTooLarge``.
    init(_ text: some StringProtocol, limits: DecodeLimits) throws {
        self.init(text, maxFields: limits.maxFormFields)
        if isTruncated {
            throw ServerError(.payloadTooLarge, "the form has more than \(limits.maxFormFields) fields; OsmAnd sends one point per request")
        }
    }

    /// Fields given as name/value pairs (the flat JSON objects of the Traccar SDK's JSON upload).
    init(values: [String: String]) { self.values = values }

    /// Adds the fields of `other` that this one lacks.
    mutating func merge(_ other: FormFields) {
        values.merge(other.values) { mine, _ in mine }
        isTruncated = isTruncated || other.isTruncated
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
