import Foundation

extension XMLTokenizer {
    /// Fast path for a leaf element whose start tag was just read: when its content is plain
    /// text (no `&`, no markup) followed directly by the matching end tag, all already in the
    /// buffer, consumes both at once, leaves the text at `textStart..<textEnd` (valid until the
    /// next call to ``next()``) and returns true. Otherwise consumes nothing and returns false,
    /// and the caller reads the content token by token as usual.
    func takeSimpleContent() -> Bool {
        if isEmptyElement || openCount == 0 { return false }
        let p = buf
        var i = pos
        while i < end {
            let c = p[i]
            if c == UInt8(ascii: "<") { break }
            if c == UInt8(ascii: "&") { return false }
            i &+= 1
        }
        let top = stackStarts[openCount - 1]
        let len = stackCount - top
        guard i + 2 + len < end, p[i + 1] == UInt8(ascii: "/"),
              XMLTokenizer.bytesEqual(stackBytes + top, p + i + 2, len) else { return false }
        var j = i + 2 + len
        while j < end && XMLTokenizer.isSpace(p[j]) { j &+= 1 }
        guard j < end && p[j] == UInt8(ascii: ">") else { return false }
        textStart = pos
        textEnd = i
        textIsCDATA = false
        textHasEntity = false
        stackCount = top
        openCount -= 1
        nameStart = i + 2
        nameEnd = i + 2 + len
        pos = j + 1
        return true
    }

    /// Appends the current text token, with entities and character references replaced, to `out`.
    func appendText(to out: inout [UInt8]) throws(GeoError) {
        if textIsCDATA || !textHasEntity {
            out.append(contentsOf: UnsafeBufferPointer(start: buf + textStart, count: textEnd - textStart))
        } else {
            try decode(textStart, textEnd, into: &out)
        }
    }

    /// Checks the entity references of the current text token without keeping the text.
    func validateText() throws(GeoError) {
        guard textHasEntity && !textIsCDATA else { return }
        var scratch: [UInt8] = []
        try decode(textStart, textEnd, into: &scratch)
    }

    /// Appends the value of attribute `a`, entities replaced, to `out`.
    func appendValue(of a: Attribute, to out: inout [UInt8]) throws(GeoError) {
        if a.hasEntity {
            try decode(a.valueStart, a.valueEnd, into: &out)
        } else {
            out.append(contentsOf: UnsafeBufferPointer(start: buf + a.valueStart, count: a.valueEnd - a.valueStart))
        }
    }

    /// The value of attribute `a` as a String.
    func value(of a: Attribute) throws(GeoError) -> String {
        if !a.hasEntity { return string(a.valueStart, a.valueEnd) }
        var out: [UInt8] = []
        try decode(a.valueStart, a.valueEnd, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// True when the current element's (or end tag's) name is `name`, bytes compared.
    func nameEquals(_ s: Int, _ e: Int, _ name: StaticString) -> Bool {
        e - s == name.utf8CodeUnitCount && XMLTokenizer.bytesEqual(buf + s, name.utf8Start, e - s)
    }

    /// Copies bytes `[s, e)` replacing `&name;`, `&#N;` and `&#xH;` references.
    func decode(_ s: Int, _ e: Int, into out: inout [UInt8]) throws(GeoError) {
        let p = buf
        var i = s
        while i < e {
            let c = p[i]
            if c != UInt8(ascii: "&") { out.append(c); i += 1; continue }
            var j = i + 1
            while j < e && p[j] != UInt8(ascii: ";") && j - i < 12 { j += 1 }
            guard j < e && p[j] == UInt8(ascii: ";") else {
                throw malformed("'&' must start an entity reference such as &amp; or &#38;", at: i)
            }
            let n = j - i - 1
            let body = p + i + 1
            if n >= 2 && body[0] == UInt8(ascii: "#") {
                var scalar: UInt32 = 0
                let hex = body[1] == UInt8(ascii: "x")
                var k = hex ? 2 : 1
                guard k < n else { throw malformed("empty character reference", at: i) }
                while k < n {
                    let d = body[k]
                    let v: UInt32
                    switch d {
                    case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(d - UInt8(ascii: "0"))
                    case UInt8(ascii: "a")...UInt8(ascii: "f") where hex: v = UInt32(d - UInt8(ascii: "a") + 10)
                    case UInt8(ascii: "A")...UInt8(ascii: "F") where hex: v = UInt32(d - UInt8(ascii: "A") + 10)
                    default: throw malformed("invalid digit in character reference", at: i + 1 + k)
                    }
                    scalar = scalar * (hex ? 16 : 10) + v
                    guard scalar <= 0x10FFFF else { throw malformed("character reference beyond U+10FFFF", at: i) }
                    k += 1
                }
                guard XMLTokenizer.isXMLChar(scalar), let u = Unicode.Scalar(scalar) else {
                    throw malformed("character reference to a character XML does not allow", at: i)
                }
                out.append(contentsOf: UTF8.encode(u)!)
            } else if n == 2 && body[0] == UInt8(ascii: "l") && body[1] == UInt8(ascii: "t") {
                out.append(UInt8(ascii: "<"))
            } else if n == 2 && body[0] == UInt8(ascii: "g") && body[1] == UInt8(ascii: "t") {
                out.append(UInt8(ascii: ">"))
            } else if n == 3 && memcmp(body, "amp", 3) == 0 {
                out.append(UInt8(ascii: "&"))
            } else if n == 4 && memcmp(body, "quot", 4) == 0 {
                out.append(UInt8(ascii: "\""))
            } else if n == 4 && memcmp(body, "apos", 4) == 0 {
                out.append(UInt8(ascii: "'"))
            } else {
                throw malformed("unknown entity &\(string(i + 1, j)); (expected &lt; &gt; &amp; &quot; &apos; or &#...;)", at: i)
            }
            i = j + 1
        }
    }

    static func isXMLChar(_ c: UInt32) -> Bool {
        c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD) || c >= 0x10000
    }
}
