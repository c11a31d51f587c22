import Foundation

extension GPXWriter {
    /// The namespace the writer gives a raw extension element that has none.
    ///
    /// GPX 1.1 allows only elements of *other* namespaces inside `<extensions>`; an element
    /// without a prefix or a default-namespace declaration would land in the GPX namespace (or in
    /// none) and make the file invalid. Such elements, which some apps write, are declared in this
    /// namespace on output; ``GPXReader`` removes that declaration again, so a read → write → read
    /// round trip gives back the fragment as it was.
    public static let unqualifiedExtensionNamespace = "urn:waymark:gpx:unqualified-extension"

    /// The fragment with ``unqualifiedExtensionNamespace`` declared on its root element when the
    /// root has neither a prefix nor its own default-namespace declaration; otherwise unchanged.
    static func qualifiedExtension(_ fragment: String) -> String {
        let bytes = Array(fragment.utf8)
        guard bytes.first == UInt8(ascii: "<"), bytes.count > 1 else { return fragment }
        var nameEnd = 1
        while nameEnd < bytes.count, !isNameTerminator(bytes[nameEnd]) {
            if bytes[nameEnd] == UInt8(ascii: ":") { return fragment }   // prefixed: has a namespace
            nameEnd += 1
        }
        guard nameEnd > 1 else { return fragment }
        if rootDeclaresDefaultNamespace(bytes, from: nameEnd) { return fragment }
        let declaration = " xmlns=\"\(unqualifiedExtensionNamespace)\""
        return String(decoding: bytes[..<nameEnd] + Array(declaration.utf8) + bytes[nameEnd...], as: UTF8.self)
    }

    private static func isNameTerminator(_ c: UInt8) -> Bool {
        c == UInt8(ascii: " ") || c == UInt8(ascii: "\t") || c == UInt8(ascii: "\n") || c == UInt8(ascii: "\r")
            || c == UInt8(ascii: "/") || c == UInt8(ascii: ">")
    }

    /// Whether the root start tag (scanned up to its `>` outside quotes) has an `xmlns="…"` attribute.
    private static func rootDeclaresDefaultNamespace(_ bytes: [UInt8], from start: Int) -> Bool {
        var i = start
        var quote: UInt8? = nil
        let xmlns = Array("xmlns".utf8)
        while i < bytes.count {
            let c = bytes[i]
            if let q = quote {
                if c == q { quote = nil }
            } else if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                quote = c
            } else if c == UInt8(ascii: ">") {
                return false
            } else if isNameTerminator(bytes[i - 1]), i + xmlns.count < bytes.count,
                      Array(bytes[i..<(i + xmlns.count)]) == xmlns {
                var j = i + xmlns.count
                while j < bytes.count, bytes[j] == UInt8(ascii: " ") { j += 1 }
                if j < bytes.count, bytes[j] == UInt8(ascii: "=") { return true }
            }
            i += 1
        }
        return false
    }
}
