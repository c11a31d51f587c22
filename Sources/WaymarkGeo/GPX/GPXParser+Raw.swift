import Foundation

/// Keeping unknown extension elements as raw XML text.
///
/// The fragment is re-serialised from tokens: names, attributes and text as
/// written (CDATA re-escaped, comments dropped), plus `xmlns:prefix`
/// declarations on its root for prefixes declared further out, so every
/// fragment is well-formed XML on its own.
extension GPXParser {
    func beginRaw(parent: Context) {
        raw.removeAll(keepingCapacity: true)
        rawPrefixes.removeAll()
        rawDepth = 0
        let owner = parent == .extensions && contexts.count >= 2 ? contexts[contexts.count - 2] : parent
        switch owner {
        case .wpt, .rtept, .trkpt, .trackPointExtension: rawTarget = .point
        case .rte, .trk: rawTarget = .path
        case .trkseg: rawTarget = .segment
        case .metadata: rawTarget = .metadata
        default: rawTarget = .document
        }
    }

    private func notePrefix(_ s: Int, _ e: Int) {
        var k = s
        while k < e && tok.buf[k] != UInt8(ascii: ":") { k += 1 }
        guard k < e else { return }
        let prefix = tok.string(s, k)
        if prefix != "xmlns" && prefix != "xml" && !rawPrefixes.contains(prefix) { rawPrefixes.append(prefix) }
    }

    private func appendBytes(_ s: Int, _ e: Int) {
        raw.append(contentsOf: UnsafeBufferPointer(start: tok.buf + s, count: e - s))
    }

    private func checkRawSize() throws(GeoError) {
        guard raw.count <= maxRawBytes else {
            throw GeoError(.invalidGPX, "an extension element is longer than \(maxRawBytes) bytes",
                           at: tok.location(at: tok.tokenStart))
        }
    }

    func rawStart() throws(GeoError) {
        raw.append(UInt8(ascii: "<"))
        appendBytes(tok.nameStart, tok.nameEnd)
        notePrefix(tok.nameStart, tok.nameEnd)
        if rawDepth == 0 { rawRootNameEnd = raw.count }
        for a in tok.attributes {
            if rawDepth == 0 && isWaymarkUnqualifiedDeclaration(a) { continue }
            raw.append(UInt8(ascii: " "))
            appendBytes(a.nameStart, a.nameEnd)
            notePrefix(a.nameStart, a.nameEnd)
            let quote = tok.buf[a.valueStart - 1]
            raw.append(UInt8(ascii: "="))
            raw.append(quote)
            appendBytes(a.valueStart, a.valueEnd)
            raw.append(quote)
        }
        if tok.isEmptyElement { raw.append(UInt8(ascii: "/")) }
        raw.append(UInt8(ascii: ">"))
        rawDepth += 1
        try checkRawSize()
    }

    /// `xmlns="urn:waymark:gpx:unqualified-extension"`: the declaration ``GPXWriter`` adds to an
    /// extension element that had no namespace; dropped so the fragment reads back as it was.
    private func isWaymarkUnqualifiedDeclaration(_ a: XMLTokenizer.Attribute) -> Bool {
        let name = "xmlns".utf8, value = GPXWriter.unqualifiedExtensionNamespace.utf8
        guard a.nameEnd - a.nameStart == name.count, a.valueEnd - a.valueStart == value.count else { return false }
        return zip(name, UnsafeBufferPointer(start: tok.buf + a.nameStart, count: name.count)).allSatisfy { $0 == $1 }
            && zip(value, UnsafeBufferPointer(start: tok.buf + a.valueStart, count: value.count)).allSatisfy { $0 == $1 }
    }

    func appendRawText() throws(GeoError) {
        if tok.textIsCDATA {
            for i in tok.textStart..<tok.textEnd {
                switch tok.buf[i] {
                case UInt8(ascii: "<"): raw.append(contentsOf: Array("&lt;".utf8))
                case UInt8(ascii: ">"): raw.append(contentsOf: Array("&gt;".utf8))
                case UInt8(ascii: "&"): raw.append(contentsOf: Array("&amp;".utf8))
                case let c: raw.append(c)
                }
            }
        } else {
            try tok.validateText()
            appendBytes(tok.textStart, tok.textEnd)
        }
        try checkRawSize()
    }

    func rawEnd() throws(GeoError) {
        if !tok.isEmptyElement {
            raw.append(contentsOf: [UInt8(ascii: "<"), UInt8(ascii: "/")])
            appendBytes(tok.nameStart, tok.nameEnd)
            raw.append(UInt8(ascii: ">"))
        }
        rawDepth -= 1
        guard rawDepth == 0 else { return }
        var declarations: [UInt8] = []
        for prefix in rawPrefixes {
            let declared = Array("xmlns:\(prefix)=".utf8)
            if raw.firstRange(of: declared) != nil { continue }
            guard let binding = namespaces.last(where: { $0.prefix == prefix }) else { continue }
            declarations.append(contentsOf: Array(" xmlns:\(prefix)=\"\(GPXWriter.escape(binding.uri, attribute: true))\"".utf8))
        }
        if !declarations.isEmpty { raw.insert(contentsOf: declarations, at: rawRootNameEnd) }
        let fragment = String(decoding: raw, as: UTF8.self)
        switch rawTarget {
        case .point: pointExtensions.raw.append(fragment); extensionsTouched = true
        case .path: path.extensions.append(fragment)
        case .segment: segmentExtensions.append(fragment)
        case .metadata: metadata.extensions.append(fragment)
        case .document: documentExtensions.append(fragment)
        }
    }
}
